"""A task's shared folder: the one place its learner processes may write that outlives them, read by the grading side.

Part C's scenarios need a database file that outlives the process writing
it (a writer killed mid-append, then the file reopened by another process)
and that two processes write at once (racing writers). Each learner process
of such a task sees the folder at ``bubblewrap.SHARED`` (unsandboxed: at its
real path); nothing else of the machine's is writable to it.

The folder is the grader's: made in a private (0700) directory, writable by
every learner uid only when the grader is root (a task's processes then run
as different uids), removed with whatever the learner left in it. The
grading side never trusts what is there: it opens no path the learner may
have swapped for a link (``O_NOFOLLOW``), reads only regular files of a
bounded size, and learns whether a writer holds a lock from the kernel
(``lock_held``), not from the file's contents.
"""

import contextlib
import fcntl
import os
import shutil
import stat
import struct
import tempfile
from pathlib import Path

__all__ = ["shared_folder", "create", "read", "lock_held", "held_bytes", "SHARED_BYTES"]

# What a task's learner processes may leave in the folder, checked after each scenario that gives them it (a writer's
# file is kilobytes; RLIMIT_FSIZE bounds one file, not how many).
SHARED_BYTES = 64 * 2**20

_PREFIX = "agstate-shared-"


def _parent() -> str | None:
    """Where shared folders are made: the machine's shared memory when it is a tmpfs the grader may write and the
    task's memory is limited as a whole (cgroups: what the learner writes there is charged to its memory), else the
    temporary directory. In memory, a writer's commit (an fsync each) costs nothing, as in the sandbox's own /tmp."""
    from grader.sandbox import cgroups

    if isinstance(cgroups.detected(), cgroups.Cgroups) and os.access("/dev/shm", os.W_OK | os.X_OK) and _is_tmpfs("/dev/shm"):
        return "/dev/shm"
    return None


def _is_tmpfs(path: str) -> bool:
    with contextlib.suppress(OSError), open("/proc/self/mounts") as mounts:
        return any(line.split()[1:3] == [path, "tmpfs"] for line in mounts)
    return False


@contextlib.contextmanager
def shared_folder():
    """A fresh shared folder for one task, removed afterwards."""
    root = tempfile.mkdtemp(prefix=_PREFIX, dir=_parent())  # 0700: no other account reaches what is inside
    folder = Path(root) / "files"
    folder.mkdir()
    # A root grader runs each of a task's learner processes as a uid of its own (grader.sandbox.bubblewrap.learner_uid).
    folder.chmod(0o777 if os.geteuid() == 0 else 0o700)
    try:
        yield folder
    finally:
        _remove(root)


def _remove(root: str) -> None:
    """Remove ``root`` and what the learner left there: every folder it made unreadable or unwritable is opened first.

    ``os.fwalk`` never follows a link, and each folder is changed through its
    own descriptor: nothing outside ``root`` is touched whatever the learner
    planted. Every learner process of the task has ended (their sessions are
    closed first), so nothing changes under the walk.
    """
    with contextlib.suppress(OSError):
        os.chmod(root, 0o700)
        for _, folders, _, fd in os.fwalk(root, onerror=None):
            for name in folders:
                with contextlib.suppress(OSError):
                    inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                    try:
                        os.fchmod(inner, 0o700)
                    finally:
                        os.close(inner)
    shutil.rmtree(root, ignore_errors=True)  # never follows a link: it removes the link


def create(folder: Path, name: str) -> Path:
    """An empty file ``name`` in ``folder`` every learner uid may write (SQLite gives its journal the same mode)."""
    path = folder / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        os.fchmod(fd, 0o666)  # whatever the grader's umask
    finally:
        os.close(fd)
    return path


def _open(path: Path) -> int | None:
    """``path`` opened for reading if it is a regular file (never through a link, never blocking on a FIFO), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def read(path: Path, limit: int) -> bytes | None:
    """The bytes of the regular file ``path``, or None: it is not one, or it holds more than ``limit`` bytes."""
    fd = _open(path)
    if fd is None:
        return None
    try:
        if os.fstat(fd).st_size > limit:
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(limit + 1)
        return data if len(data) <= limit else None
    finally:
        os.close(fd)


def held_bytes(folder: Path) -> int:
    """The bytes the files under ``folder`` hold (links and special files count nothing; none is followed)."""
    total = 0
    for _, _, files, fd in os.fwalk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                found = os.stat(name, dir_fd=fd, follow_symlinks=False)
                total += found.st_blocks * 512 if stat.S_ISREG(found.st_mode) else 0
    return total


def lock_held(path: Path, offset: int) -> bool:
    """Whether another process holds a POSIX lock on byte ``offset`` of the regular file ``path`` (SQLite's locks are such)."""
    fd = _open(path)
    if fd is None:
        return False
    try:
        query = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0)
        return struct.unpack("hhqqi", fcntl.fcntl(fd, fcntl.F_GETLK, query))[0] != fcntl.F_UNLCK
    finally:
        os.close(fd)
