"""Folders other accounts can reach, for the tests that hand a path to another account or judge who else can reach it.

pytest's own ``tmp_path`` is below a 0700 folder of this account's, which hides
everything in it from every other account: these are made under ``/tmp``
instead, with the mode the test asks for, and removed afterwards.
"""

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["folder_in_tmp"]


@contextmanager
def folder_in_tmp(prefix: str, mode: int = 0o755) -> Iterator[Path]:
    """A new folder under ``/tmp`` named ``prefix…`` with ``mode`` (``0o1777``: sticky, every account's, like ``/tmp``),
    removed with everything in it when the block ends."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    try:
        folder.chmod(mode)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
