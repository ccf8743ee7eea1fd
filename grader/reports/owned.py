"""Whether a batch's log is this account's alone: the one file a later run trusts (``--resume``, ``--regrade``).

A log is appended to as each submission finishes, and a later run reads its
rows back as grades already given. In a folder other accounts can write
(``/tmp``, a course's shared folder) one of them may have made the file at
the path an instructor names with ``--out``, or may replace or rewrite it
between two runs. So a log is written to and read only when no other
account (root aside) can have written it: the file, if there is one, is
this account's and writable by it alone; its folder is this account's or
root's, and either no other account can write it (``grader.exposure``: the
mode bits and the group's members) or it is sticky, like ``/tmp``, where
nobody else may rename or remove what this account made there. The file
opened is checked again by its descriptor (``check_opened``): what was
checked by name may have been replaced since.
"""

import os
import pwd
import stat
from pathlib import Path

from grader.exposure import writable_by_others

__all__ = ["UntrustedLog", "check_owned", "check_opened"]

# What to do instead, said with every refusal.
_FIX = ("grade into a folder only you can write (e.g. --out ~/grades/grades.csv), and copy into its log only the lines "
        "you have checked")


class UntrustedLog(Exception):
    """A log that another account made, may write, or may replace: its rows may not be this grader's."""


def _account(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def _folder_problem(folder: Path) -> str | None:
    """Why another account could replace or remove a file of this account's in ``folder`` (the nearest that exists)."""
    folder = Path(os.path.realpath(folder))  # the folder a link leads to is the one written
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # the folders --out makes are made in this one
    info = os.stat(folder)
    if info.st_uid not in (os.geteuid(), 0):
        return f"its folder {folder} belongs to another account, {_account(info.st_uid)}, which may replace it"
    who = writable_by_others(folder)
    if who is not None and not info.st_mode & stat.S_ISVTX:
        return (f"its folder {folder} can be written by {who} (mode {info.st_mode & 0o7777:o}, not sticky), "
                "who may replace it")
    return None


def _file_problem(path: Path, info: os.stat_result) -> str | None:
    if stat.S_ISLNK(info.st_mode):  # first: a link's own mode is 777, and what it names is not the log's to decide
        return f"it is a symbolic link (to {os.readlink(path)!r}), and a log is written only as a file of its own"
    if info.st_uid != os.geteuid():
        return (f"it belongs to another account, {_account(info.st_uid)}, not to {_account(os.geteuid())} who grades, "
                "and that account may have written it or may rewrite it")
    if info.st_mode & 0o022:
        return f"it can be written by other accounts (mode {info.st_mode & 0o777:o})"
    return None


def check_owned(path: Path) -> None:
    """Refuse to write to or read back the log ``path`` unless no other account can have written it or can replace it."""
    path = Path(path)
    problem = _folder_problem(path.parent)
    if problem is None:
        try:
            problem = _file_problem(path, os.lstat(path))
        except FileNotFoundError:
            return
    if problem is not None:
        raise UntrustedLog(f"the log {path}: {problem}; its rows may not be this grader's: {_FIX}")


def check_opened(path: Path, handle) -> None:
    """Refuse the log just opened as ``handle`` unless it is still this account's alone (the name may lead elsewhere now)."""
    problem = _file_problem(path, os.fstat(handle.fileno()))
    if problem is not None:
        raise UntrustedLog(f"the log {path}: {problem}; its rows may not be this grader's: {_FIX}")
