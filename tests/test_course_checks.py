"""The course's own checks on a shared server, one by one: what a submitted folder holds, who can read the course,
the due date, and the class batch reaped when it ends (tests/test_multiuser.py runs them in a whole term)."""

import datetime
import os
import pwd
import time
from pathlib import Path

import pytest
from support.folders import folder_in_tmp

from grader.course import course_folder, exchange, permissions
from grader.course.class_batch import BackgroundBatch, package_digest
from grader.course.inbound import inbound_submissions
from grader.course.inspection import changed_after_timestamp, inspect_submission, irregular_entries, reference_copies

pytestmark = pytest.mark.unit


def _submission(tmp_path: Path) -> Path:
    folder = tmp_path / "submitted" / "ben" / "agstate-lab"
    (folder / "agstate").mkdir(parents=True)
    (folder / "agstate" / "state.py").write_text("x = 1\n")
    return folder


def test_links_and_special_files_are_named_and_never_followed(tmp_path):
    folder = _submission(tmp_path)
    secret = tmp_path / "secret"
    secret.mkdir()
    (folder / "agstate" / "board.py").symlink_to("/etc/shadow")
    (folder / "elsewhere").symlink_to(secret)  # a link to a folder: named, not entered
    (secret / "inside.py").write_text("")
    os.mkfifo(folder / "agstate" / "pipe")
    found = dict(irregular_entries(folder))
    assert found == {"agstate/board.py": "a symbolic link to '/etc/shadow'", "agstate/pipe": "a named pipe",
                     "elsewhere": f"a symbolic link to {str(secret)!r}"}
    # The digest autograde compares is of plain files only, like the grader's copy: a link does not change it.
    (folder / "agstate" / "board.py").unlink()
    plain = package_digest(folder / "agstate")
    (folder / "agstate" / "board.py").symlink_to(folder / "agstate" / "state.py")
    assert package_digest(folder / "agstate") == plain


def test_files_changed_after_the_timestamp_are_named(tmp_path):
    folder = _submission(tmp_path)
    (folder / "timestamp.txt").write_text("2026-01-01 10:00:00.000000 UTC")
    (folder / "submission_secret.txt").write_text("s")  # nbgrader writes it after the timestamp: never a finding
    early = time.mktime((2026, 1, 1, 9, 0, 0, 0, 0, 0)) - time.timezone
    os.utime(folder / "agstate" / "state.py", (early, early))
    assert changed_after_timestamp(folder) == []
    os.utime(folder / "agstate" / "state.py", (early + 7200, early + 7200))
    (late,) = changed_after_timestamp(folder)
    assert late.startswith("agstate/state.py was changed at 2026-01-01 11:00:00 UTC, after the submission's timestamp")
    (folder / "timestamp.txt").write_text("yesterday-ish")
    assert changed_after_timestamp(folder) == ["timestamp.txt does not hold a time"]


def test_a_module_equal_to_the_reference_is_named(tmp_path):
    folder = _submission(tmp_path)
    reference = tmp_path / "reference"
    reference.mkdir()
    (reference / "state.py").write_text("x = 1\n")
    (reference / "board.py").write_text("y = 2\n")
    assert reference_copies(folder, reference) == ["agstate/state.py is the reference solution, byte for byte"]
    (folder / "agstate" / "state.py").write_text("x = 1  # mine\n")
    assert reference_copies(folder, reference) == []
    assert reference_copies(folder, None) == [] and inspect_submission(folder) == []


@pytest.fixture
def open_folder():
    """A folder every account can reach (pytest's own are under a 0700 folder, which hides everything below)."""
    with folder_in_tmp("agstate-course-checks-", 0o755) as folder:
        yield folder


def test_who_else_can_read_the_course_is_said_with_the_fix(open_folder, monkeypatch):
    monkeypatch.setattr(permissions, "reference_package", lambda: None)
    tmp_path = open_folder
    course = tmp_path / "course"
    collected = _submission(course)
    os.chmod(collected, 0o777)
    os.chmod(course, 0o755)
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    os.chmod(exchange, 0o777)
    problems = permissions.course_problems(course, str(exchange))
    assert problems[0] == (f"every account on this server can read the course folder {course} (the gradebook, the seed, "
                           f"the submissions): chmod 700 {course}")
    assert f"{collected} is writable by every account" in problems[1] and problems[1].endswith(f"chmod -R o-w {collected}")
    assert problems[2].endswith(f"without the sticky bit): sudo chmod 1777 {exchange}")
    permissions.make_course_private(course)
    os.chmod(collected, 0o750)
    os.chmod(exchange, 0o1777)
    assert permissions.course_problems(course, str(exchange)) == []
    assert permissions.course_problems(course, str(tmp_path / "nowhere")) == [
        f"the exchange {tmp_path / 'nowhere'} does not exist: sudo install -d -m 1777 {tmp_path / 'nowhere'}"]


@pytest.mark.parametrize("due, stored", [("2027-01-15 17:00 +01:00", "2027-01-15 16:00"), ("2027-01-15 17:00 UTC", "2027-01-15 17:00"),
                                         ("2027-01-15T17:00:00-05:00", "2027-01-15 22:00")])
def test_a_due_date_is_a_moment_in_utc(due, stored):
    assert f"{course_folder._due(due):%Y-%m-%d %H:%M}" == stored


@pytest.mark.parametrize("due", ["2027-01-15 17:00", "next friday-ish", ""])
def test_a_due_date_without_its_time_zone_is_refused(due):
    with pytest.raises(course_folder.CourseError, match="is not a time with its time zone"):
        course_folder._due(due)


def test_a_finished_class_batch_leaves_no_zombie():
    """A formgrader's server outlives its Autograde click: the batch it started is reaped when it ends."""
    batch = BackgroundBatch([], [], 1)
    pid = batch.process.pid
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists(), f"the finished batch {pid} is left a zombie"
    batch.close()


def test_a_course_hidden_behind_a_private_folder_is_not_open(tmp_path, monkeypatch):
    monkeypatch.setattr(permissions, "reference_package", lambda: None)
    course = tmp_path / "course"
    course.mkdir(mode=0o755)
    assert permissions.course_problems(course) == []  # pytest's 0700 folder above it: no other account gets through


def test_collect_copies_plain_files_only_and_hangs_on_nothing(tmp_path, caplog):
    """A student's inbound folder, theirs after submitting: a link to the instructor's solutions (a folder), and a
    named pipe (nbgrader's copytree would block reading it). Collect leaves both out, names them, and the copy is private."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    from grader.course.exchange import Collect

    inbound = tmp_path / "inbound" / "b+en+agstate-lab+2026-12-03 10:00:00.000000 UTC+abc"  # a student id may hold '+'
    (inbound / "notes").mkdir(parents=True)
    (inbound / "01_overwrite.ipynb").write_text("{}")
    os.chmod(inbound / "01_overwrite.ipynb", 0o666)
    os.mkfifo(inbound / "pipe")
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    (solutions / "state.py").write_text("THE REFERENCE")
    (inbound / "agstate").symlink_to(solutions)
    collected = tmp_path / "course" / "submitted" / "b+en" / "agstate-lab"
    collect = Collect(coursedir=CourseDirectory(root=str(tmp_path / "course")), authenticator=Authenticator())
    collect.do_copy(str(inbound), str(collected))
    copied = sorted(str(path.relative_to(collected)) for path in collected.rglob("*"))
    assert copied == ["01_overwrite.ipynb", "notes"]
    said = [record.getMessage() for record in caplog.records]
    assert f"Not collected from student 'b+en': agstate is a symbolic link to {str(solutions)!r} (a submission holds " \
           "plain files only)" in said
    assert "Not collected from student 'b+en': pipe is a named pipe (a submission holds plain files only)" in said
    modes = {path.name: path.stat().st_mode & 0o777 for path in [collected, collected / "notes", collected / "01_overwrite.ipynb"]}
    assert modes == {"agstate-lab": 0o750, "notes": 0o750, "01_overwrite.ipynb": 0o640}


def _page(folder: Path, name: str, heading: str) -> Path:
    """A notebook's feedback page, headed as nbgrader's feedback template heads it."""
    page = folder / f"{name}.html"
    page.write_text(f"<html><body><div class='panel'><h4>{heading}</h4><ul><li>Test cell (Score: 9.0 / 9.0)</li></ul>")
    return page


def test_the_score_listed_is_the_sum_of_the_fetched_pages(tmp_path):
    pages = [_page(tmp_path, "03_dedupe", "03_dedupe (Score: 15.0 / 16.0)"),
             _page(tmp_path, "04 (keep) max", "04 (keep) max (Score: 6.5 / 16.0)"),
             _page(tmp_path, "late", "late (Score: -1.0 / 3.0)")]  # a late penalty larger than the points
    assert exchange.feedback_score(pages) == (20.5, 35.0)
    assert exchange.feedback_score([]) == (0, 0)
    # A page without nbgrader's heading (another template), or missing: no score rather than a wrong one.
    assert exchange.feedback_score([*pages, _page(tmp_path, "other", "other notebook")]) is None
    assert exchange.feedback_score([*pages, tmp_path / "gone.html"]) is None


# Which inbound folders collect trusts (grader/course/inbound.py): as root, folders owned by two real accounts of every
# Debian system, "nobody" (the student) and "daemon" (a classmate), stand in for a shared server's (milliseconds).
_NOW = datetime.datetime(2026, 12, 5, 12, 0)
_ON_TIME = "2026-12-05 11:00:00.000000 UTC"


def _inbound_folder(inbound: Path, name: str, owner: str = "nobody", secret: bool = True) -> Path:
    folder = inbound / name
    (folder / "agstate").mkdir(parents=True)
    (folder / "agstate" / "state.py").write_text("x = 1\n")
    (folder / "timestamp.txt").write_text(_ON_TIME)
    if secret:
        (folder / "submission_secret.txt").write_text("s" * 128)
    uid = pwd.getpwnam(owner).pw_uid
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, uid, uid)
    return folder


@pytest.mark.skipif(os.geteuid() != 0, reason="folders of other accounts: root only (CI)")
def test_collect_trusts_only_a_students_own_submission_dated_until_now(tmp_path):
    inbound = tmp_path / "inbound"
    own = _inbound_folder(inbound, f"nobody+agstate-lab+{_ON_TIME}+own")
    _inbound_folder(inbound, "nobody+agstate-lab+2026-12-05 11:30:00.000000 UTC+fake", owner="daemon")
    _inbound_folder(inbound, "nobody+agstate-lab+2027-01-01 00:00:00.000000 UTC+late")
    _inbound_folder(inbound, "nobody+agstate-lab+soon+bad")
    _inbound_folder(inbound, "nobody+agstate-lab+2026-12-05 11:40:00.000000 UTC+handmade", secret=False)
    planted = _inbound_folder(inbound, "nobody+agstate-lab+2026-12-05 11:50:00.000000 UTC+planted")
    (planted / "agstate" / "board.py").write_text("")  # written by root here: a classmate, in a folder of mode 0777
    os.lchown(planted / "agstate" / "board.py", pwd.getpwnam("daemon").pw_uid, 0)
    _inbound_folder(inbound, "daemon+agstate-lab+2026-12-05 11:00:00.000000 UTC+other", owner="daemon")
    (inbound / "nobody+other-assignment+x").mkdir()
    judged = {s.path.name.rsplit("+", 1)[1]: s.refused for s in inbound_submissions(inbound, "agstate-lab", "nobody", _NOW)}
    assert judged == {
        "own": None,
        "fake": "it claims to be 'nobody''s but was made by 'daemon'",
        "late": "it is dated 2027-01-01 00:00:00 UTC, in the future (now 2026-12-05 12:00:00 UTC)",
        "bad": "its name does not end in a time ('soon'), as nbgrader submit names a submission",
        "handmade": "it was not made by nbgrader submit (no submission_secret.txt)",
        "planted": "agstate/board.py in it was written by 'daemon', not by 'nobody'",
    }
    everyone = inbound_submissions(inbound, "agstate-lab", now=_NOW)
    assert {s.student for s in everyone if s.trusted} == {"nobody", "daemon"} and own in {s.path for s in everyone}


def test_release_feedback_names_a_student_it_cannot_release_and_releases_the_others(tmp_path, caplog):
    """A feedback folder without nbgrader's secret (a submission nbgrader submit never made): nbgrader's own
    release_feedback died there, and the students after it got nothing (milliseconds)."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    from grader.course.exchange import ReleaseFeedback

    course = tmp_path / "course"
    for student, secret in (("ana", True), ("ben", False), ("cy", True)):
        folder = course / "feedback" / student / "agstate-lab"
        folder.mkdir(parents=True)
        (folder / "01_overwrite.html").write_text(f"<p>{student}</p>")
        (folder / "timestamp.txt").write_text("2026-12-05 10:00:00.000000 UTC")
        if secret:
            (folder / "submission_secret.txt").write_text(f"secret of {student}")
    (tmp_path / "exchange").mkdir(mode=0o1777)
    coursedir = CourseDirectory(root=str(course), course_id="c", assignment_id="agstate-lab")
    release = ReleaseFeedback(coursedir=coursedir, authenticator=Authenticator(), root=str(tmp_path / "exchange"))
    release.start()
    released = sorted(page.read_text() for page in (tmp_path / "exchange" / "c" / "feedback").glob("*.html"))
    assert released == ["<p>ana</p>", "<p>cy</p>"]
    assert any("Feedback not released for student 'ben'" in record.getMessage() and "submission_secret.txt" in
               record.getMessage() for record in caplog.records)
