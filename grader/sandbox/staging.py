"""The private copy of a submission that its sandboxes see, made with bounds.

The grader reads the submission once, into a folder only the grading user
can reach (mode 0700; a root grader's sandboxes see it through bind mounts,
see ``grader.sandbox.keeper``), and every task's sandbox mounts that copy
read-only: no task can change what a later task imports, and no other
submission's process can read it. What is copied is bounded, because a
submission is data from a stranger: regular files and folders only (a
symbolic link, a FIFO or a device is left out and named), at most
``MAX_FILES`` files and ``MAX_BYTES`` in all, counted both by apparent size
(a sparse 10 GB file) and by the blocks on disk, and at most ``MAX_DEPTH``
folders deep.
"""

import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

from grader.i18n import _

__all__ = ["staged", "StagingError", "MAX_FILES", "MAX_BYTES", "MAX_DEPTH"]

MAX_FILES = 2000
MAX_BYTES = 32 * 2**20
MAX_DEPTH = 16
_SKIPPED_DIRS = {"__pycache__", ".ipynb_checkpoints", ".hypothesis", ".git"}


class StagingError(Exception):
    """The submission cannot be copied as it is; the message says why, for the learner."""


class _Budget:
    def __init__(self):
        self.files = 0
        self.bytes = 0

    def take(self, relative: str, info: os.stat_result) -> None:
        self.files += 1
        self.bytes += max(info.st_size, info.st_blocks * 512)
        if self.files > MAX_FILES:
            raise StagingError(_("agstate/ holds more than {count} files; hand in only the lab's files").format(count=MAX_FILES))
        if self.bytes > MAX_BYTES:
            raise StagingError(_("agstate/ holds more than {megabytes} MB (at {file}); hand in only the lab's files").format(
                megabytes=MAX_BYTES // 2**20, file=relative))


@contextmanager
def staged(submission: Path):
    """``(copy, skipped)``: a folder holding the copied ``agstate/``, and the entries left out."""
    root = Path(tempfile.mkdtemp(prefix="agstate-submission-"))  # 0700: this user only
    try:
        copy = root / "copy"
        copy.mkdir(mode=0o755)
        skipped: list[str] = []
        source = submission / "agstate"
        if source.is_dir() and not source.is_symlink():
            _copy_tree(source, copy / "agstate", "agstate", _Budget(), skipped, 0)
        elif source.is_symlink():
            skipped.append(f"agstate ({_('a symbolic link')})")
        yield copy, skipped
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _copy_tree(source: Path, target: Path, relative: str, budget: _Budget, skipped: list[str], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise StagingError(_("agstate/ is nested more than {depth} folders deep (at {file})").format(depth=MAX_DEPTH, file=relative))
    target.mkdir(mode=0o755)
    with os.scandir(source) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            name = f"{relative}/{entry.name}"
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                if entry.name not in _SKIPPED_DIRS:
                    _copy_tree(Path(entry.path), target / entry.name, name, budget, skipped, depth + 1)
            elif stat.S_ISREG(info.st_mode):
                budget.take(name, info)
                _copy_file(entry.path, target / entry.name, budget, name)
            else:
                kind = _("a symbolic link") if stat.S_ISLNK(info.st_mode) else _("not a regular file")
                skipped.append(f"{name} ({kind})")


def _copy_file(source: str, target: Path, budget: _Budget, relative: str) -> None:
    # O_NOFOLLOW | O_NONBLOCK: a file swapped for a link or a FIFO after the scan is refused, not followed or waited on.
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StagingError(_("{file} changed while it was being copied").format(file=relative))
        allowed = MAX_BYTES - budget.bytes + os.fstat(fd).st_size
        with os.fdopen(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), "wb") as out:
            copied = 0
            while chunk := os.read(fd, 1 << 20):
                copied += len(chunk)
                if copied > allowed:  # it grew after the scan
                    raise StagingError(_("agstate/ holds more than {megabytes} MB (at {file})").format(
                        megabytes=MAX_BYTES // 2**20, file=relative))
                out.write(chunk)
    finally:
        os.close(fd)
