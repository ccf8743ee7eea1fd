"""Which submissions in the exchange's inbound folder the instructor's side trusts, and why it refuses the others.

Every account on the server can write into the exchange's ``inbound/``:
that is how ``nbgrader submit`` hands work in. So a folder there says, by
its name (``student+assignment+time+random``), whose submission it is and
when it was made, and any account can choose that name. nbgrader's collect
only warns when the owner is not the student named ("cheating attempt?")
and then collects it anyway: a classmate's hand-made folder with a later
time replaced the student's submission. The file system knows who made a
folder, and nobody but root can change that, so the lab's collect
(``grader.course.exchange.Collect``) trusts a folder only when

- its name is nbgrader's, for this assignment, with a time that is not
  later than now (a time in the future would outrank every later submission);
- it is a folder (not a link) whose every entry is a plain file or folder
  owned by the student named, or by the collecting account itself (a
  course run from one account: the instructor's own test students);
- the collecting account can read all of it (a folder it cannot enter
  would stop the copy half-way, for the class);
- it holds what ``nbgrader submit`` writes besides the notebooks,
  ``timestamp.txt`` and ``submission_secret.txt`` (without the secret, the
  student's feedback cannot be released, and ``release_feedback`` died on
  it, for the class).

The others are never collected; each is named, with why, in collect's log
and by ``agstate-course audit``. The student's own latest trusted folder is
collected as if the others were not there.
"""

import datetime
import os
import pwd
import stat
from dataclasses import dataclass
from pathlib import Path

from nbgrader.utils import parse_utc

__all__ = ["Submission", "inbound_submissions", "SLACK"]

SLACK = datetime.timedelta(minutes=2)  # a submission's time against the collector's clock: the same server's clock
_WRITTEN_BY_SUBMIT = ("timestamp.txt", "submission_secret.txt")


@dataclass(frozen=True)
class Submission:
    """One entry of ``inbound/`` for the assignment: whose it claims to be, when, and why it is refused (or None)."""

    path: Path
    student: str
    timestamp: datetime.datetime | None  # naive UTC, as nbgrader's collect compares them
    refused: str | None

    @property
    def trusted(self) -> bool:
        return self.refused is None


def inbound_submissions(inbound: Path, assignment: str, student: str | None = None,
                        now: datetime.datetime | None = None) -> list[Submission]:
    """Every entry of ``inbound`` named for ``assignment`` (and ``student``, when given), judged; in name order."""
    now = now or datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    found = []
    for name in sorted(os.listdir(inbound)):
        parts = name.rsplit("+", 3)  # as nbgrader's collect reads a name: a student id may hold a "+"
        if len(parts) < 3 or parts[1] != assignment or (student is not None and parts[0] != student):
            continue
        found.append(_judged(inbound / name, parts[0], parts[2], now))
    return found


def _judged(path: Path, student: str, when: str, now: datetime.datetime) -> Submission:
    try:
        timestamp = parse_utc(when)
    except Exception:  # nbgrader's own parser, on any text a student chose: its collect died on a bad one
        return Submission(path, student, None, f"its name does not end in a time ({when!r}), as nbgrader submit names "
                                               "a submission")
    return Submission(path, student, timestamp, _refusal(path, student, timestamp, now))


def _refusal(path: Path, student: str, timestamp: datetime.datetime, now: datetime.datetime) -> str | None:
    if timestamp > now + SLACK:
        return f"it is dated {timestamp:%Y-%m-%d %H:%M:%S} UTC, in the future (now {now:%Y-%m-%d %H:%M:%S} UTC)"
    try:
        return _ownership(path, student)
    except OSError as error:
        return f"the instructor's account cannot read it ({error.strerror}: {error.filename})"


def _ownership(path: Path, student: str) -> str | None:
    entry = path.lstat()
    if not stat.S_ISDIR(entry.st_mode):
        return "it is not a folder (a symbolic link, or a file)"
    trusted, owner = _accounts(student), entry.st_uid
    if owner not in trusted:
        return f"it claims to be {student!r}'s but was made by {_name(owner)!r}" + (
            "" if len(trusted) > 1 else f" (no account on this server is named {student!r})")
    for directory, folders, files in os.walk(path, onerror=_raise):
        for name in folders + files:
            inner = os.path.join(directory, name)
            found = os.lstat(inner)
            if found.st_uid != owner:
                return f"{os.path.relpath(inner, path)} in it was written by {_name(found.st_uid)!r}, not by {_name(owner)!r}"
            if stat.S_ISREG(found.st_mode) and not os.access(inner, os.R_OK):
                raise PermissionError(13, "Permission denied", inner)
    missing = [name for name in _WRITTEN_BY_SUBMIT if not (path / name).is_file() or (path / name).is_symlink()]
    if missing:
        return f"it was not made by nbgrader submit (no {' and no '.join(missing)})"
    return None


def _raise(error: OSError):
    raise error


def _accounts(student: str) -> set[int]:
    """The uids whose folders may be ``student``'s: the student's own account, and the collecting account."""
    uids = {os.geteuid()}
    try:
        uids.add(pwd.getpwnam(student).pw_uid)
    except KeyError:
        pass
    return uids


def _name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"
