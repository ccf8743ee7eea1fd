"""What a submitted folder shows beyond its notebooks: links, special files, late changes, copies of the reference.

A submission travels through folders a student can write (the inbound
folder is the student's own after ``nbgrader submit``), so the instructor's
side looks at what it collected before trusting it. Each finding is a
sentence naming the file. Used by ``grader.course.exchange.Collect`` (what it
leaves out), autograde (``grader.course.autograde``) and ``agstate-course audit``.
Nothing here follows a link or opens anything but a plain file.
"""

import datetime
import filecmp
import os
import stat
from pathlib import Path

from nbgrader.utils import parse_utc

from grader.catalog import MODULES

__all__ = ["irregular_entries", "changed_after_timestamp", "reference_copies", "inspect_submission"]

_SLACK = datetime.timedelta(seconds=2)  # file systems keep times to the second or two (FAT)
_NBGRADERS = {"timestamp.txt", "submission_secret.txt"}  # written by nbgrader submit after the timestamp was taken


def irregular_entries(folder) -> list[tuple[str, str]]:
    """``(relative path, what it is)`` for every entry under ``folder`` that is not a plain file or folder."""
    found = []
    for directory, folders, files in os.walk(folder):  # os.walk lists a link to a folder but never enters it
        for name in sorted(folders + files):
            path = os.path.join(directory, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
                continue
            relative = os.path.relpath(path, folder)
            found.append((relative, _kind(path, mode)))
    return found


def _kind(path: str, mode: int) -> str:
    if stat.S_ISLNK(mode):
        return f"a symbolic link to {os.readlink(path)!r}"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device file"


def changed_after_timestamp(folder: Path) -> list[str]:
    """The files changed after the moment the submission's ``timestamp.txt`` gives (a back-dated timestamp)."""
    stamp = folder / "timestamp.txt"
    if not stamp.is_file() or stamp.is_symlink():
        return []
    try:
        moment = parse_utc(stamp.read_text().strip())
    except Exception:  # nbgrader's own parser; a garbled timestamp is a finding of its own
        return ["timestamp.txt does not hold a time"]
    late = []
    for directory, _, files in os.walk(folder):
        for name in sorted(files):
            path = Path(directory, name)
            if (path.parent == folder and path.name in _NBGRADERS) or path.is_symlink():
                continue
            changed = datetime.datetime.fromtimestamp(path.lstat().st_mtime, datetime.UTC).replace(tzinfo=None)
            if changed > moment + _SLACK:
                late.append(f"{path.relative_to(folder)} was changed at {changed:%Y-%m-%d %H:%M:%S} UTC, after the "
                            f"submission's timestamp {moment:%Y-%m-%d %H:%M:%S} UTC")
    return late


def reference_copies(folder: Path, reference: Path | None) -> list[str]:
    """The submitted exercise modules byte for byte equal to the reference solution's (``reference``: its agstate/)."""
    if reference is None or not reference.is_dir():
        return []
    copies = []
    for solution in (reference / f"{module}.py" for module in MODULES.values()):  # the provided helpers are the same for all
        mine = folder / "agstate" / solution.name
        if solution.is_file() and mine.is_file() and not mine.is_symlink() and filecmp.cmp(mine, solution, shallow=False):
            copies.append(f"agstate/{solution.name} is the reference solution, byte for byte")
    return copies


def inspect_submission(folder: Path, reference: Path | None = None) -> list[str]:
    """Every finding about the submitted ``folder``: left-out entries, late changes, copies of the reference."""
    found = [f"{relative} is {what}, which is never graded" for relative, what in irregular_entries(folder)]
    return found + changed_after_timestamp(folder) + reference_copies(folder, reference)
