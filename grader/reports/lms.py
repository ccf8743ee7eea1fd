"""Grades an LMS can import: a Canvas or Moodle CSV made from the batch's reports and the LMS's own roster export.

The roster is the CSV the instructor exports from the LMS; its ``id_column`` holds each student's nbgrader id
(``grader.reports.students.student_of`` a report). The rules followed, and where each comes from:

Canvas: "How do I import grades in the Gradebook?", Instructure Community, Instructor Guide,
https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807 , checked against the code that
reads and writes these files, GradebookImporter (app/models/gradebook_importer.rb) and GradebookExporter (lib/gradebook_exporter.rb)
in https://github.com/instructure/canvas-lms :
  C1 The header starts with the student columns as the export writes them: Student (or LastName, FirstName), ID, [SIS User ID],
     SIS Login ID, [Integration ID], [Root Account], Section. The importer finds them by position and needs Section to end them,
     so they are copied from the roster, header and cells, exactly as exported.
  C2 A row is matched to a student by ID, then SIS User ID, then SIS Login ID, then name; a row matching nobody shows as an
     unknown student. Only roster rows are written, so every row matches.
  C3 An assignment column "Name (id)" updates assignment id; a bare name updates the assignment of that exact title, else
     Canvas creates a new assignment.
  C4 A row whose first cell contains "Points Possible" (the export writes "    Points Possible" under the header) gives new
     assignments their points; a "Manual Posting" (or "Muted") row is skipped.
  C5 A column whose header contains Current/Final Score, Points or Grade, or Override Score/Grade/Status, is a read-only total
     and is ignored on import.
  C6 A blank cell replaces a score with none, so a student without a submission gets no row at all.
  C7 The importer takes comma- or semicolon-separated files; Canvas CSV is UTF-8 ("All text should be UTF-8 encoded", SIS CSV
     Format, https://developerdocs.instructure.com/services/canvas/sis/file.sis_csv).
  C8 The export lists the Test Student (Student View) last, as "Student, Test".
Moodle: "Grade import", MoodleDocs, https://docs.moodle.org/311/en/Grade_import , and gradeimport_csv_load_data
(grade/import/csv/classes/load_data.php, grade/import/grade_import_form.php) in https://github.com/moodle/moodle :
  M1 The upload form asks for the file's encoding and separator (comma by default): we write UTF-8, comma.
  M2 In the preview one maps a column ("Map from") to userid, username, useridnumber or useremail ("Map to"); the value must
     equal that field of the user exactly (the docs: email addresses are case sensitive).
  M3 Each other column is mapped to an existing grade item, a "new grade item" named after its header, or to feedback for an
     item; lines with at most one cell are skipped.
  M4 One user not found aborts the whole import, so only roster rows are written.
  M5 A blank or "-" grade means no grade, so a student without a submission gets no row.
  M6 Grades above 100 need the site's 'unlimitedgrades' setting (Note 2); without it the import fails.
  M7 Feedback columns are documented (Note 3: importing feedback overwrites the item's grades unless both are imported), but a
     report holds no text meant for students, so none is written.
Output: Canvas, the roster's student columns (C1), then the assignment; a Points Possible row; one row per graded roster student,
in roster order. Moodle, the roster's id column (map it to username, useridnumber or useremail, M2), then the assignment (map it
to its grade item, or "new grade item"); one row per graded roster student.
"""

import contextlib
import csv
import io
import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grader.reports.report import Report
from grader.reports.safe import atomic_write
from grader.reports.students import student_of

__all__ = ["DEFAULT_ID_COLUMN", "FORMATS", "LmsFormat", "LmsError", "Roster", "export", "load_roster", "roster_ids"]

_CANVAS_TOTALS = ("Current Score", "Current Points", "Current Grade", "Final Score", "Final Points", "Final Grade",
                  "Override Score", "Override Grade", "Override Status")  # C5: matched anywhere in a header
_CANVAS_STUDENT_COLUMNS = ("Student", "LastName", "FirstName", "ID", "SIS User ID", "SIS Login ID", "Section",
                           "Integration ID", "Root Account")
_TITLE_AND_ID = re.compile(r"\A(.*)\s\((\d+)\)\Z", re.S)  # C3: Canvas's Assignment.title_and_id
_POSTING_ROW = re.compile(r"\A\s*(Muted|Manual Posting.*)?\s*\Z", re.I | re.S)  # C4
_CANVAS_TEST_STUDENT = ("Student, Test", "Test Student")  # C8


class LmsError(ValueError):
    """A roster, report or output path the export cannot use; the message is one line that says what to do."""


@dataclass(frozen=True)
class Roster:
    """What load_roster read: the export's header and student rows, each cell as exported."""
    fmt: str
    path: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]  # student rows only, padded to the header's length
    id_column: str
    id_index: int
    identity: int  # Canvas: the leading columns, Student .. Section, that identify a student (C1); Moodle: 0
    points_possible: tuple[str, ...] = ()  # Canvas: the export's "Points Possible" row, if it has one (C4)


def _format(fmt: str) -> "LmsFormat":
    if fmt not in FORMATS:
        raise LmsError(f"unknown LMS format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return FORMATS[fmt]


def _listing(values) -> str:
    return ", ".join(repr(value) for value in values)  # repr: a hostile name cannot break the one-line message


def load_roster(path: str, fmt: str, id_column: str | None = None) -> Roster:
    """Read the roster exported from the LMS; ``id_column`` (default: DEFAULT_ID_COLUMN) holds the nbgrader ids."""
    lms = _format(fmt).name
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise LmsError(f"cannot read the roster {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")  # drops the byte-order mark Canvas's export may start with
    except UnicodeDecodeError as exc:
        raise LmsError(f"the roster {path} is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                       "export it again as UTF-8") from None
    # The separator is the one that splits the header into most cells (C7, M1); a tie keeps the comma.
    first_line = (text.strip().splitlines() or [""])[0]
    delimiter = max(",;\t", key=lambda d: len(next(csv.reader([first_line], delimiter=d), [])))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)  # a cut file is refused
    try:
        table = [(reader.line_num, row) for row in reader if any(cell.strip() for cell in row)]
    except csv.Error as exc:
        raise LmsError(f"the roster {path} is not valid CSV (line {reader.line_num}: {exc}); export it again from {lms}") from None
    if not table:
        raise LmsError(f"the roster {path} is empty; export it again from {lms}")
    header = tuple(table[0][1])
    names = [name.strip() for name in header]
    identity = _format(fmt).identity(names, header, path)
    wanted = (id_column or _format(fmt).id_column).strip()
    found = [i for i, name in enumerate(names) if name == wanted]
    found = found or [i for i, name in enumerate(names) if name.casefold() == wanted.casefold()]
    if len(found) != 1:
        raise LmsError(f"the roster {path} has {'several columns' if found else 'no column'} {wanted!r}; its columns are "
                       f"{_listing(header)}; name the one holding the nbgrader student ids with --roster-id")
    index = found[0]
    rows, points, seen = [], (), {}
    for line, row in table[1:]:
        row = tuple(row) + ("",) * (len(header) - len(row))
        kind = _format(fmt).row_kind(row)
        if kind == "points":
            points = row
        elif kind == "student":
            rows.append(row)
            seen.setdefault(row[index].strip(), []).append(line)
    if twice := {key: at for key, at in seen.items() if key and len(at) > 1}:
        shown = "; ".join(f"{key!r} on lines {', '.join(map(str, at))}" for key, at in list(twice.items())[:5])
        raise LmsError(f"the roster {path} has {header[index]!r} values on more than one row ({shown}); "
                       f"each student must have one row: fix the export or pick another --roster-id")
    if not rows:
        raise LmsError(f"the roster {path} lists no students; export it again from {lms} with its students")
    return Roster(fmt, str(path), header, tuple(rows), header[index], index, identity, points)


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _number(value: float) -> str:
    """A score as the LMS reads it: a point, no float noise (84.57, not 84.57000000001), no exponent."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def roster_ids(roster: Roster) -> set[str]:
    """The student ids the roster's id column holds, as the batch's are compared."""
    return {_id(row[roster.id_index]) for row in roster.rows} - {""}


def _id(cell: str) -> str:
    """A roster id as the batch's ids are compared: trimmed, in Unicode's composed form (grader.reports.students)."""
    return unicodedata.normalize("NFC", cell.strip())


def _graded(reports: list[Report], warnings: list[str]) -> dict[str, Report]:
    """Each student's report; of a student graded in several submissions, the last report in the list."""
    graded, paths = {}, {}
    for report in reports:
        submission = report.get("submission") if isinstance(report, dict) else None
        if not isinstance(submission, str) or not (_finite(report.get("score")) and _finite(report.get("max_score"))):
            raise LmsError(f"the report of {submission!r} has no numeric score and max_score; grade it again")
        who = student_of(report)
        graded[who] = report
        paths.setdefault(who, {})[submission] = None
    for who, seen in paths.items():  # the same submission twice (a resumed batch) is one grade, not worth a word
        if len(seen) > 1:
            warnings.append(f"{who!r} was graded in {len(seen)} submissions ({_listing(seen)}); only the last, "
                            f"{graded[who]['submission']!r}, is exported")
    return graded


def _name(name: str, new: bool) -> str:
    if not isinstance(name, str) or not name.strip() or not name.isprintable():
        raise LmsError(f"the assignment name {name!r} must be one line of printable text")
    # A header we make up must not run as a spreadsheet formula. grader/reports/gradebook.py's _cell would quote it, but the
    # quote would become part of the LMS's item name, so such a name is refused instead.
    if new and (name := name.strip())[0] in "=+-@":
        raise LmsError(f"the assignment name {name!r} starts with {name[0]!r}, which a spreadsheet runs as a formula; "
                       "rename it")
    return name.strip()


def _canvas_column(roster: Roster, assignment: str, top: float, warnings: list[str]) -> tuple[str, str]:
    """The assignment's header and its Points Possible cell: the roster's own when it has the column (C3, C4)."""
    wanted, columns = _name(assignment, new=False), range(roster.identity, len(roster.header))
    found = [i for i in columns if roster.header[i].strip() == wanted]
    found = found or [i for i in columns if (m := _TITLE_AND_ID.match(roster.header[i].strip())) and m.group(1) == wanted]
    if len(found) > 1:
        raise LmsError(f"{wanted!r} names {len(found)} assignments of the roster ({_listing(roster.header[i] for i in found)}); "
                       f"pass the one to grade as it is written there")
    if not found:
        header, points = _name(assignment, new=True), _number(top)
        warnings.append(f"{header!r} is not a column of the roster: Canvas will create a new assignment worth {points} points "
                        f"(to grade an existing one, pass its header from the roster, e.g. 'Lab 1 (1234)')")
    else:  # as Canvas exported it: the id in it is what Canvas matches, and its points stay Canvas's own
        header = roster.header[found[0]]
        points = roster.points_possible[found[0]].strip() if roster.points_possible else ""
        if "read only" in points:
            raise LmsError(f"Canvas marks {header!r} read only; pass an assignment column")
        with contextlib.suppress(ValueError):  # a semicolon export writes decimal commas (C7)
            if abs(float(points.replace(",", ".")) - top) > 0.005:
                warnings.append(f"Canvas's {header!r} is worth {points} points but the scores are out of {_number(top)}: "
                                f"change its points in Canvas first, or the grades will be on the wrong scale")
        points = points or _number(top)
    if header.strip() in _CANVAS_STUDENT_COLUMNS or any(total in header for total in _CANVAS_TOTALS):
        raise LmsError(f"Canvas reads a column named {header!r} as a student or total column, not an assignment; rename the assignment")
    return header, points


def export(fmt: str, reports: list[Report], roster: Roster, out_path: Path, assignment: str) -> list[str]:
    """Write ``out_path``, the grades ``fmt`` imports, for the roster's students; returns warnings, one line each."""
    lms = _format(fmt).name
    if roster.fmt != fmt:
        raise LmsError(f"the roster {roster.path} was read as a {_format(roster.fmt).name} export, not a {lms} one")
    warnings: list[str] = []
    graded, key = _graded(reports, warnings), roster.id_index
    if blank := [next(cell for cell in row if cell.strip()) for row in roster.rows if not _id(row[key])]:
        warnings.append(f"{len(blank)} roster row(s) have no {roster.id_column!r} and cannot be matched: {_listing(blank)}")
    matched = [row for row in roster.rows if _id(row[key]) in graded]
    if not matched:
        raise LmsError(f"none of the {len(graded)} graded students is in the roster's {roster.id_column!r} column; name the "
                       f"column holding the nbgrader ids with --roster-id (the roster has {_listing(roster.header)})")
    if unknown := sorted(set(graded) - {_id(row[key]) for row in roster.rows}):
        warnings.append(f"{len(unknown)} graded student(s) are not in the roster's {roster.id_column!r} column, so {lms} "
                        f"gets no grade for them: {_listing(unknown)}")
    if missing := [row[key] for row in roster.rows if _id(row[key]) and _id(row[key]) not in graded
                   and not _format(fmt).test_student(row)]:
        warnings.append(f"{len(missing)} roster student(s) have no submission; their grade in {lms} is left as it is: {_listing(missing)}")
    mine = [graded[_id(row[key])] for row in matched]
    tops = sorted({report["max_score"] for report in mine})
    if len(tops) > 1:
        warnings.append(f"the reports disagree on max_score ({', '.join(map(_number, tops))}); the highest is used")
    # Cells copied from the roster are written as exported, never quoted like gradebook.py's _cell: Canvas matches
    # rows on ID, SIS User ID, SIS Login ID (C2) and Moodle on the exact field (M2), so a quote would lose the
    # student. They come from the LMS's own export (Canvas writes a name starting with = as ="..."); a submission
    # folder's name reaches the file only when it equals one of them. Scores are numbers formatted here.
    sheet = _format(fmt).sheet(roster, matched, mine, tops[-1], assignment, warnings)
    _write(Path(out_path), sheet, roster.path)
    return warnings


def _write(out: Path, sheet: list[list[str]], roster_path: str) -> None:
    """Write atomically, as grader/reports/gradebook.py does: a link at ``out`` is replaced, never written through."""
    with contextlib.suppress(OSError):
        if out.exists() and not out.is_symlink() and out.samefile(roster_path):
            raise LmsError(f"{out} is the roster itself; write the grades to another file")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        # UTF-8, no byte-order mark (Canvas compares the first header cell as text, C1, C7; Moodle is told, M1);
        # the csv module quotes what needs it and ends rows with CRLF.
        with atomic_write(out, newline="") as file:
            csv.writer(file).writerows(sheet)
    except OSError as exc:
        raise LmsError(f"cannot write {out}: {exc.strerror or exc}") from None


# -- each LMS: how its roster export reads, what its grade import takes ------------------------------------------------
@dataclass(frozen=True)
class LmsFormat:
    """One LMS's CSV: a new LMS is one of these in ``FORMATS`` (``--lms`` offers its key; its file is ``FILE.<key>.csv``)."""

    name: str  # as messages name it: "Canvas"
    id_column: str  # the roster column that holds the nbgrader ids unless --roster-id says otherwise
    identity: Callable  # (names, header, path) -> how many leading columns identify a student; refuses another export
    row_kind: Callable  # (row) -> "student", "points" (the assignments' points possible) or "skip"
    test_student: Callable  # (row) -> whether the LMS's own test student, never warned about
    sheet: Callable  # (roster, matched rows, their reports, max score, assignment, warnings) -> the rows to write


def _canvas_identity(names: list[str], header: tuple, path) -> int:
    start = 2 if names[:2] == ["LastName", "FirstName"] else 1
    if names[:1] not in (["Student"], ["LastName"]) or names[start:start + 1] != ["ID"] or "Section" not in names:
        raise LmsError(f"the roster {path} is not a Canvas gradebook export: its header must start with Student, ID "
                       f"and have Section (it has {_listing(header)}); export it from Canvas: Grades > Export")
    return names.index("Section") + 1


def _canvas_row_kind(row: tuple) -> str:
    if "Points Possible" in row[0]:
        return "points"
    return "skip" if all(_POSTING_ROW.match(cell) for cell in row) else "student"


def _canvas_sheet(roster: Roster, matched: list, mine: list, top: float, assignment: str, warnings: list) -> list:
    header, points = _canvas_column(roster, assignment, top, warnings)
    sheet = [[*roster.header[:roster.identity], header], ["    Points Possible", *[""] * (roster.identity - 1), points]]
    return sheet + [[*row[:roster.identity], _number(report["score"])] for row, report in zip(matched, mine)]


def _moodle_sheet(roster: Roster, matched: list, mine: list, top: float, assignment: str, warnings: list) -> list:
    key = roster.id_index
    sheet = [[roster.header[key], _name(assignment, new=True)], *([row[key], _number(report["score"])]
                                                                  for row, report in zip(matched, mine))]
    if (high := max(top, *(report["score"] for report in mine))) > 100:
        warnings.append(f"grades go up to {_number(high)}: Moodle refuses grades above 100 unless the site enables "
                        f"'unlimitedgrades' (Grade import, Note 2)")
    return sheet


FORMATS = {
    # Canvas's export always has "SIS Login ID" (the login, usually the nbgrader id); "SIS User ID" only with SIS access.
    "canvas": LmsFormat("Canvas", "SIS Login ID", _canvas_identity, _canvas_row_kind,
                        lambda row: row[0].strip() in _CANVAS_TEST_STUDENT, _canvas_sheet),
    # Moodle shows "Username" where the site lists it among identity fields; else "ID number" or "Email address" fit.
    "moodle": LmsFormat("Moodle", "Username", lambda names, header, path: 0, lambda row: "student", lambda row: False,
                        _moodle_sheet),
}
DEFAULT_ID_COLUMN = {key: lms.id_column for key, lms in FORMATS.items()}
