"""Who else on a shared server can read or write a path: the mode bits, the owner, the groups, and the folders above.

A hub course keeps answers, a grader and grades in folders its students
have accounts beside: the service's environment, its secret and log, a
clone's ``solutions/``, the course folder. Each is private when no student
can reach it, which the file system decides: an account gets to a path only
through folders that let it search them, and then reads or writes by the
bits of the class it falls in (owner, group, others). "Others" here are the
accounts a course's students have: not root, not the owner, and not the
members of the path's group when every member is one of ``trusted`` (the
service's own group holds the service and nobody else). Used by the
grading service when it starts (``grader.service.privacy``) and by
``agstate-course`` (``grader.course.permissions``); only the standard
library.
"""

import grp
import os
import pwd
import stat
from pathlib import Path

__all__ = ["readable_by_others", "writable_by_others", "passable", "group_members"]


def group_members(gid: int) -> set[str]:
    """Every account in group ``gid``: its listed members and the accounts whose own group it is."""
    try:
        members = set(grp.getgrgid(gid).gr_mem)
    except KeyError:
        members = set()
    return members | {entry.pw_name for entry in pwd.getpwall() if entry.pw_gid == gid}


def _owner(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _strangers(gid: int, trusted: frozenset[str], owner: str) -> set[str]:
    return group_members(gid) - set(trusted) - {owner, "root"}


def passable(path, trusted: frozenset[str] = frozenset()) -> bool:
    """Whether an account other than root, the owners and ``trusted`` may go through every folder above ``path``."""
    resolved = Path(os.path.realpath(path))  # the folders a link leads through are the ones searched
    for folder in resolved.parents:
        try:
            info = os.stat(folder)
        except OSError:
            return False
        if info.st_mode & stat.S_IXOTH:
            continue
        if info.st_mode & stat.S_IXGRP and _strangers(info.st_gid, trusted, _owner(info.st_uid)):
            continue
        return False
    return True


def _who(path: Path, bits_others: int, bits_group: int, trusted: frozenset[str]) -> str | None:
    try:
        info = path.lstat()
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode) or not passable(path, trusted):
        return None
    if info.st_mode & bits_others:
        return "every account on this server"
    strangers = _strangers(info.st_gid, trusted, _owner(info.st_uid)) if info.st_mode & bits_group else set()
    if strangers:
        shown = ", ".join(sorted(strangers)[:3]) + (", ..." if len(strangers) > 3 else "")
        return f"the members of its group {grp.getgrgid(info.st_gid).gr_name} ({shown})"
    return None


def readable_by_others(path, trusted: frozenset[str] = frozenset()) -> str | None:
    """Who, beyond the owner, root and ``trusted``, can read ``path``; None: nobody. A folder counts as read when
    they may list it or enter it: entered, it gives away every file whose name is known (a venv's are). A path this
    account cannot reach itself is behind a folder closed to others: None."""
    path = Path(path)
    try:
        folder = stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return None
    if folder:
        return _who(path, stat.S_IROTH | stat.S_IXOTH, stat.S_IRGRP | stat.S_IXGRP, trusted)
    return _who(path, stat.S_IROTH, stat.S_IRGRP, trusted)


def writable_by_others(path, trusted: frozenset[str] = frozenset()) -> str | None:
    """Who, beyond the owner, root and ``trusted``, can write ``path`` (create or remove in it, for a folder)."""
    return _who(Path(path), stat.S_IWOTH, stat.S_IWGRP, trusted)
