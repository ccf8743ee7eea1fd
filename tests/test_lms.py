"""grader.reports.lms: the Canvas and Moodle files follow the rules its docstring cites, and bad input gets a one-line error.

The fixtures are written as the LMSs export: tests/lms_fixtures/canvas_gradebook.csv has Canvas's byte-order mark,
its student columns up to Section, a custom column, a Manual Posting row, the "    Points Possible" row, read-only
totals and the Test Student last (canvas-lms lib/gradebook_exporter.rb); moodle_participants.csv is a participants
download with a Username column and CRLF lines. No grading runs: the reports are built by hand.
"""

import csv
import io
import os
from pathlib import Path

import pytest

from grader.reports.lms import FORMATS, LmsError, load_roster
from grader.reports.lms import export as lms_export

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "lms_fixtures"
CANVAS = FIXTURES / "canvas_gradebook.csv"
MOODLE = FIXTURES / "moodle_participants.csv"
STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
TEST_STUDENT_LOGIN = "3f2a9c0d7e1b4a6f8c5d2e9b0a7f3c1d6e8b4a2f"


def report(student: str, score: float, max_score: float = 100.0, folder: str = "submitted") -> dict:
    return {"submission": f"{folder}/{student}/agstate-lab", "score": score, "max_score": max_score, "tasks": []}


def read(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8"), newline="")))


def roster_file(tmp_path: Path, text: str | bytes, name: str = "roster.csv") -> str:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return str(path)


def error(call, *args, **kwargs) -> str:
    with pytest.raises(LmsError) as caught:
        call(*args, **kwargs)
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message
    return message


CLASS = [report("ada", 84.57000000001), report("=mallory", 12.0), report("kurt", 100.0), report("zed", 50.0)]


# --- the Canvas roster, read as exported ------------------------------------------------------------------------

def test_canvas_roster_keeps_the_export_and_skips_its_non_student_rows():
    assert CANVAS.read_bytes().startswith(b"\xef\xbb\xbfStudent,")  # the fixture is as Canvas exports: with a BOM
    roster = load_roster(str(CANVAS), "canvas")
    assert list(roster.header[:6]) == [*STUDENT_COLUMNS, "Notes"]  # no BOM glued to "Student"
    assert roster.identity == 5 and roster.id_column == "SIS Login ID"
    logins = [row[3] for row in roster.rows]
    assert logins == ["kurt", "grace", "ada", "=mallory", "alan", "-erin", TEST_STUDENT_LOGIN]  # no Manual Posting row
    assert roster.points_possible[:8] == ("    Points Possible", "", "", "", "", "", "10.00", "100.00")


def test_crlf_and_lf_rosters_read_the_same(tmp_path):
    crlf = CANVAS.read_bytes().replace(b"\n", b"\r\n")
    assert b"\r\n" in crlf
    assert load_roster(roster_file(tmp_path, crlf), "canvas").rows == load_roster(str(CANVAS), "canvas").rows


def test_semicolon_export_with_decimal_commas_is_read(tmp_path):
    text = ("Student;ID;SIS Login ID;Section;agstate lab (1234)\n    Points Possible;;;;50,00\n"
            '"Lovelace, Ada";101;ada;A;\n')
    roster = load_roster(roster_file(tmp_path, text), "canvas")
    assert roster.rows == (("Lovelace, Ada", "101", "ada", "A", ""),) and roster.identity == 4
    warnings = lms_export("canvas", [report("ada", 40.0, 50.0)], roster, tmp_path / "out.csv", "agstate lab")
    assert not [w for w in warnings if "worth" in w]  # 50,00 is read as 50: the scales agree
    assert read(tmp_path / "out.csv")[1][-1] == "50,00"  # Canvas's own cell, as exported


# --- the Canvas file --------------------------------------------------------------------------------------------

def test_canvas_file_follows_the_documented_layout(tmp_path):
    roster = load_roster(str(CANVAS), "canvas")
    out = tmp_path / "grades.canvas.csv"
    lms_export("canvas", CLASS, roster, out, "agstate lab")
    sheet = read(out)
    assert sheet[0] == [*STUDENT_COLUMNS, "agstate lab (1234)"]  # C1, C3: the roster's "Name (id)" header
    assert sheet[1] == ["    Points Possible", "", "", "", "", "100.00"]  # C4: Canvas's own points for it
    by_login = {row[3]: row for row in roster.rows}
    assert [row[:5] for row in sheet[2:]] == [list(by_login[login][:5]) for login in ("kurt", "ada", "=mallory")]
    assert {row[3]: row[5] for row in sheet[2:]} == {"kurt": "100", "ada": "84.57", "=mallory": "12"}
    assert len(sheet) == 5  # C6: no row, so no blank score, for grace, alan, -erin or the Test Student


def test_canvas_identity_cells_are_copied_verbatim_even_when_they_look_like_formulas(tmp_path):
    out = tmp_path / "out.csv"
    lms_export("canvas", [report("=mallory", 1.0)], load_roster(str(CANVAS), "canvas"), out, "agstate lab")
    row = read(out)[2]
    assert row[0] == '="=Mallory"' and row[3] == "=mallory"  # Canvas's own quoting kept; no "'" added to the login
    assert row[4] == "Section A and Section B"


def test_canvas_file_is_utf8_without_bom_and_keeps_non_ascii_names(tmp_path):
    out = tmp_path / "out.csv"
    lms_export("canvas", CLASS, load_roster(str(CANVAS), "canvas"), out, "agstate lab")
    data = out.read_bytes()
    assert data.startswith(b"Student,") and "Gödel, Kurt".encode() in data and b"\r\n" in data


def test_canvas_warns_of_students_on_one_side_only_but_not_of_the_test_student(tmp_path):
    warnings = lms_export("canvas", CLASS, load_roster(str(CANVAS), "canvas"), tmp_path / "out.csv", "agstate lab")
    assert any("not in the roster" in w and "'zed'" in w for w in warnings)
    missing = [w for w in warnings if "no submission" in w]
    assert len(missing) == 1 and all(f"'{login}'" in missing[0] for login in ("grace", "alan", "-erin"))
    assert TEST_STUDENT_LOGIN not in " ".join(warnings)


def test_canvas_bare_title_resolves_to_the_roster_column_and_warns_of_a_different_scale(tmp_path):
    out = tmp_path / "out.csv"
    warnings = lms_export("canvas", [report("ada", 84.0)], load_roster(str(CANVAS), "canvas"), out, "Lab 1")
    assert read(out)[0][-1] == "Lab 1 (1201)" and read(out)[1][-1] == "10.00"
    assert any("'Lab 1 (1201)' is worth 10.00 points" in w and "out of 100" in w for w in warnings)


def test_canvas_new_assignment_gets_its_points_from_max_score(tmp_path):
    out = tmp_path / "out.csv"
    warnings = lms_export("canvas", [report("ada", 7.5, 12.0)], load_roster(str(CANVAS), "canvas"), out, "Lab 9")
    assert read(out)[0][-1] == "Lab 9" and read(out)[1][-1] == "12"
    assert any("Canvas will create a new assignment" in w for w in warnings)


def test_canvas_refuses_ambiguous_total_and_formula_assignment_names(tmp_path):
    text = ("Student,ID,SIS Login ID,Section,Quiz (1),Quiz (2)\n    Points Possible,,,,5.00,5.00\n"
            '"Lovelace, Ada",101,ada,A,,\n')
    roster = load_roster(roster_file(tmp_path, text), "canvas")
    assert "'Quiz (1)', 'Quiz (2)'" in error(lms_export, "canvas", [report("ada", 1.0)], roster, tmp_path / "o.csv", "Quiz")
    for name in ("Final Score", "Lab Current Grade", "Section"):
        assert "not an assignment" in error(lms_export, "canvas", [report("ada", 1.0)], roster, tmp_path / "o.csv", name)
    for name in ("=SUM(A1)", "+1", "-x", "@cmd"):
        assert "formula" in error(lms_export, "canvas", [report("ada", 1.0)], roster, tmp_path / "o.csv", name)
    assert not (tmp_path / "o.csv").exists()


# --- the Moodle file --------------------------------------------------------------------------------------------

def test_moodle_file_is_the_id_column_and_the_grade_item(tmp_path):
    out = tmp_path / "grades.moodle.csv"
    warnings = lms_export("moodle", [*CLASS, report("@erin", 61.5)], load_roster(str(MOODLE), "moodle"), out, "agstate lab")
    assert read(out) == [["Username", "agstate lab"], ["ada", "84.57"], ["kurt", "100"], ["@erin", "61.5"]]
    assert not out.read_bytes().startswith(b"\xef\xbb\xbf")
    assert any("'=mallory', 'zed'" in w for w in warnings)  # not Moodle users: a single one would abort the import
    assert any("no submission" in w and "'grace'" in w and "'alan'" in w for w in warnings)


def test_moodle_roster_id_column_can_be_chosen(tmp_path):
    roster = load_roster(str(MOODLE), "moodle", id_column="email address")  # case-insensitive when not exact
    assert roster.id_column == "Email address"
    with pytest.raises(LmsError, match="none of the 1 graded students"):
        lms_export("moodle", [report("ada", 1.0)], roster, tmp_path / "out.csv", "lab")


def test_moodle_warns_of_grades_above_100(tmp_path):
    roster = load_roster(str(MOODLE), "moodle")
    assert any("unlimitedgrades" in w for w in lms_export("moodle", [report("ada", 90.0, 120.0)], roster, tmp_path / "a.csv", "x"))
    assert not any("unlimitedgrades" in w for w in lms_export("moodle", [report("ada", 90.0)], roster, tmp_path / "b.csv", "x"))


# --- reports ----------------------------------------------------------------------------------------------------

def test_a_student_graded_twice_appears_once_with_the_last_report(tmp_path):
    out = tmp_path / "out.csv"
    reports = [report("ada", 10.0), report("ada", 20.0, folder="autograded"), report("grace", 5.0), report("grace", 5.0)]
    warnings = lms_export("moodle", reports, load_roster(str(MOODLE), "moodle"), out, "lab")
    assert read(out)[1:] == [["ada", "20"], ["grace", "5"]]
    assert [w for w in warnings if "graded in" in w] == [
        "'ada' was graded in 2 submissions ('submitted/ada/agstate-lab', 'autograded/ada/agstate-lab'); "
        "only the last, 'autograded/ada/agstate-lab', is exported"]


@pytest.mark.parametrize(("score", "written"), [(84.57000000001, "84.57"), (100.0, "100"), (1 / 3, "0.3333"),
                                                (-0.0, "0"), (7, "7"), (2.5e-7, "0")])
def test_scores_are_written_without_float_noise(tmp_path, score, written):
    out = tmp_path / "out.csv"
    lms_export("moodle", [report("ada", score)], load_roster(str(MOODLE), "moodle"), out, "lab")
    assert read(out)[1] == ["ada", written]


@pytest.mark.parametrize("bad", [{"submission": "submitted/ada/x", "score": float("nan"), "max_score": 1.0},
                                 {"submission": "submitted/ada/x", "score": True, "max_score": 1.0},
                                 {"submission": "submitted/ada/x", "max_score": 1.0}, {"score": 1.0, "max_score": 1.0}])
def test_a_report_without_numbers_is_refused(tmp_path, bad):
    assert "no numeric score" in error(lms_export, "moodle", [bad], load_roster(str(MOODLE), "moodle"), tmp_path / "o.csv", "x")


def test_warnings_stay_one_line_whatever_the_folder_names(tmp_path):
    hostile = [report("bad\nname\x1b[2J", 1.0), report("ada", 1.0)]
    warnings = lms_export("moodle", hostile, load_roster(str(MOODLE), "moodle"), tmp_path / "out.csv", "lab")
    assert warnings and all("\n" not in w and "\x1b" not in w for w in warnings)
    assert any(r"'bad\nname\x1b[2J'" in w for w in warnings)


# --- bad rosters ------------------------------------------------------------------------------------------------

def test_missing_id_column_names_the_columns_that_exist():
    message = error(load_roster, str(MOODLE), "moodle", id_column="Student number")
    assert "no column 'Student number'" in message and "'Username'" in message and "'ID number'" in message
    assert "--roster-id" in message


def test_duplicate_ids_are_named(tmp_path):
    text = "Username,Email address\nada,a@x\nbob,b@x\nada,c@x\nbob,d@x\ncy,e@x\n"
    message = error(load_roster, roster_file(tmp_path, text), "moodle")
    assert "'ada' on lines 2, 4" in message and "'bob' on lines 3, 5" in message and "'cy'" not in message


def test_blank_ids_are_not_duplicates_but_are_reported(tmp_path):
    roster = load_roster(roster_file(tmp_path, "Username,First name\n,Ann\n,Bea\nada,Ada\n"), "moodle")
    warnings = lms_export("moodle", [report("ada", 1.0)], roster, tmp_path / "out.csv", "lab")
    assert any("2 roster row(s) have no 'Username'" in w and "'Ann', 'Bea'" in w for w in warnings)


@pytest.mark.parametrize(("text", "expected"), [
    (b"", "is empty"), (b"\xef\xbb\xbf\r\n  \r\n", "is empty"), (b",,,\n , ,\n", "is empty"),
    (b"Username,Email\n", "lists no students"),
    (b"Username\nb\xe9a\n", "not UTF-8 (byte 0xe9 at offset 10)"),
    (b'Username\n"ada\n', "not valid CSV"),
])
def test_bad_roster_files_get_a_clear_error(tmp_path, text, expected):
    assert expected in error(load_roster, roster_file(tmp_path, text), "moodle")


def test_a_file_that_is_not_a_canvas_export_is_refused(tmp_path):
    assert "not a Canvas gradebook export" in error(load_roster, str(MOODLE), "canvas")
    assert "cannot read the roster" in error(load_roster, str(tmp_path / "absent.csv"), "canvas")
    assert "unknown LMS format 'blackboard'" in error(load_roster, str(MOODLE), "blackboard")
    assert list(FORMATS) == ["canvas", "moodle"]


def test_a_roster_read_for_one_lms_is_refused_by_the_other(tmp_path):
    roster = load_roster(str(MOODLE), "moodle")
    assert "read as a Moodle export" in error(lms_export, "canvas", [report("ada", 1.0)], roster, tmp_path / "o.csv", "x")


# --- the output file --------------------------------------------------------------------------------------------

def test_a_symlink_at_the_output_is_replaced_not_written_through(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "grades.moodle.csv"
    out.symlink_to(victim)
    lms_export("moodle", [report("ada", 1.0)], load_roster(str(MOODLE), "moodle"), out, "lab")
    assert not out.is_symlink() and victim.read_text() == "keep me"
    assert oct(out.stat().st_mode & 0o777) == oct(0o644)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grades.moodle.csv", "victim.txt"]  # no temporary left


def test_the_output_cannot_be_the_roster_or_a_folder(tmp_path):
    path = roster_file(tmp_path, MOODLE.read_bytes())
    roster = load_roster(path, "moodle")
    assert "is the roster itself" in error(lms_export, "moodle", [report("ada", 1.0)], roster, Path(path), "lab")
    assert Path(path).read_bytes() == MOODLE.read_bytes()
    (tmp_path / "folder").mkdir()
    assert "cannot write" in error(lms_export, "moodle", [report("ada", 1.0)], roster, tmp_path / "folder", "lab")
    assert sorted(os.listdir(tmp_path)) == ["folder", "roster.csv"]
