"""What the grading service refuses to start beside: its grader, secret or log within a student's reach.

The service's environment holds the whole grader: the models that behave
as the reference does, the rules, the strategies. Readable by a student, it
is every answer key, and ``agstate-grade`` at any seed, unlimited and
unlogged; writable, it is code the service runs with the practice secret
in hand. So the service checks, as it starts, that no account but its own,
root and (for the log) the instructors' group can read

- its environment (``sys.prefix``) and the grader's package in it;
- the practice secret's file (``--secret-file``);
- its log and its folder of checks in progress;

and that none can write any of them, and says which path and the command
that fixes it (``grader.exposure`` decides who can reach what).
"""

import os
import pwd
import sys
from pathlib import Path

from grader.exposure import group_members, readable_by_others, writable_by_others

__all__ = ["privacy_problems"]


def privacy_problems(log: Path, work: Path, secret_file: Path | None, instructors: str | None = None,
                     environment: Path | None = None, package: Path | None = None) -> list[str]:
    """Each way another account can read or write what the service keeps, with its fix; [] when none. ``environment``
    and ``package`` default to this one's (``sys.prefix``) and the grader's own."""
    me = frozenset({pwd.getpwuid(os.geteuid()).pw_name})
    readers = me | _members(instructors)
    environment = (environment or Path(sys.prefix)).resolve()
    package = (package or Path(__file__).parent.parent).resolve()  # grader/, not grader/service/
    problems = []
    for path, what in ((environment, "the service's environment (the grader: its models and rules)"),
                       (package, "the grader's package")):
        who = readable_by_others(path, me)
        if who:
            problems.append(f"{who} can read {path}, {what}: {_fix_read(path, who)}")
            break
    for top in dict.fromkeys((environment, package)):
        written = _first_writable(top, me)
        if written:
            problems.append(f"{written[1]} can write {written[0]}, in the service's environment: "
                            f"sudo chmod -R go-w {top}")
            break
    if secret_file is not None:
        who = readable_by_others(secret_file, me)
        if who:
            problems.append(f"{who} can read {secret_file}, the practice secret: {_fix_read(secret_file, who)}")
    for path, what in ((log, "the service's log"), (work, "the checks in progress")):
        who = readable_by_others(path, readers)
        if who:
            problems.append(f"{who} can read {path}, {what}: {_fix_read(path, who)}")
        for written in (path, path.parent):
            who = writable_by_others(written, me)
            if who:
                problems.append(f"{who} can write {written}, where {what} is kept: sudo chmod go-w {written}")
                break
    return problems


def _members(group: str | None) -> frozenset[str]:
    if not group:
        return frozenset()
    import grp

    try:
        return frozenset(group_members(grp.getgrnam(group).gr_gid))
    except KeyError:
        return frozenset()


def _fix_read(path: Path, who: str) -> str:
    recursive = "-R " if path.is_dir() else ""
    if who.startswith("every account"):
        return f"sudo chmod {recursive}o-rwx {path}"
    return f"sudo chgrp {recursive}<the service's own group> {path} (or sudo chmod {recursive}g-rwx,o-rwx {path})"


def _first_writable(top: Path, trusted: frozenset[str]) -> tuple[Path, str] | None:
    """The first folder or file under ``top`` (itself included) another account can write, and who."""
    who = writable_by_others(top, trusted)
    if who or not readable_by_others(top, trusted):  # a folder nobody else may enter: nothing in it is in reach
        return (top, who) if who else None
    for directory, folders, files in os.walk(top):
        for path in (Path(directory, name) for name in (*folders, *files)):
            who = None if path.is_symlink() else writable_by_others(path, trusted)
            if who:
                return path, who
    return None
