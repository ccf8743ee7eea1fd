"""Who else on the server can read the course: the permissions the course depends on, checked, with the fix.

On a shared server every student has an account. Debian makes homes 0755
and files 0644, so a course folder made there is readable by all of them:
the gradebook (everyone's scores), the grading seed, the reports, the
collected submissions; and a clone of the lab holds ``solutions/``.
``agstate-course init`` makes the course folder private (0700) and says what
else is open; autograde and ``agstate-course audit`` check again and log
every problem with the command that fixes it. "Others" here is what the
mode bits give an account that is neither the owner nor in the group: the
accounts a course's students have.
"""

import os
import stat
from pathlib import Path

from grader.authoring.release import ROOT
from grader.course.configs import CourseError, course_settings
from grader.course.hub_layout import HubLayout, layout_problems, recorded_layout
from grader.exposure import readable_by_others

__all__ = ["course_problems", "make_course_private", "reference_package"]


def reference_package() -> Path | None:
    """The reference solution's package, when this installation has one (a clone of the lab; the kit has none)."""
    package = ROOT / "solutions" / "agstate"
    return package if package.is_dir() else None


def make_course_private(directory: Path) -> None:
    """The course folder: its owner only (its contents are then out of every other account's reach)."""
    directory.chmod(0o700)


def _open_to_others(path: Path) -> bool:
    return readable_by_others(path) is not None


def course_problems(root: str | os.PathLike, exchange: str | None = None) -> list[str]:
    """Every way another account can read the course's private files or write into it, each with its fix."""
    root = Path(root).resolve()
    problems = []
    if _open_to_others(root):  # else nothing in it is in another account's reach, whatever its own mode
        problems.append(f"every account on this server can read the course folder {root} (the gradebook, the seed, the "
                        f"submissions): chmod 700 {root}")
    problems += [f"{folder} is writable by every account (nbgrader's copy keeps the exchange's mode): chmod -R o-w {folder}"
                 for folder in _world_writable(root / "submitted")]
    reference = reference_package()
    if reference is not None and _open_to_others(reference):
        problems.append(f"every account on this server can read the reference solutions in {reference}: "
                        f"chmod 700 {ROOT}")
    if exchange:
        problems += _exchange_problems(Path(exchange))
        problems += _inbound_problems(root, Path(exchange))
    # The hub's paths: those agstate-course hub-config recorded for this course, else the docs' (each only if there).
    return problems + layout_problems(recorded_layout(root) or HubLayout())


def _inbound_problems(root: Path, exchange: Path) -> list[str]:
    """The course's inbound folder without the sticky bit (released before the lab's release_assignment gave it)."""
    try:
        inbound = exchange / course_settings(root)["course_id"] / "inbound"
        mode = inbound.stat().st_mode
    except (CourseError, OSError):
        return []
    if mode & stat.S_IWOTH and not mode & stat.S_ISVTX:
        return [f"any account may remove or rename a submission of another in {inbound} (writable by all, without the "
                f"sticky bit): chmod +t {inbound}"]
    return []


def _world_writable(top: Path) -> list[Path]:
    found = []
    for directory, folders, _ in os.walk(top):
        if os.lstat(directory).st_mode & stat.S_IWOTH:
            found.append(Path(directory))
            folders.clear()  # one line per collected folder is enough
    return found


def _exchange_problems(exchange: Path) -> list[str]:
    try:
        mode = exchange.stat().st_mode
    except OSError:
        return [f"the exchange {exchange} does not exist: sudo install -d -m 1777 {exchange}"]
    if mode & stat.S_IWOTH and not mode & stat.S_ISVTX:
        # Without the sticky bit, any account may rename the course's folder in the exchange and put its own in place.
        return [f"every account may rename or replace the course's folder in the exchange {exchange} (writable by all, "
                f"without the sticky bit): sudo chmod 1777 {exchange}"]
    return []
