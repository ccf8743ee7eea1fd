"""One way to build a submission in tests: a copy of a package (the reference, by default), edited.

Every test that grades a folder builds it here: the mutation corpora, the
hostile corpus, the batch and sandbox tests and the ``make_submission``
fixture. An edit names exact text that must occur once in its module, so a
change to the reference that makes an edit stale fails loudly
(``StaleEdit``) instead of silently grading the reference itself.
"""

import shutil
from pathlib import Path

from support.paths import REFERENCE

__all__ = ["StaleEdit", "apply_edits", "build_submission"]


class StaleEdit(Exception):
    """An edit's old text does not occur exactly once in its module."""


def apply_edits(source: str, edits, what: str, module: str) -> str:
    """``source`` of ``module`` with ``edits`` (old, new) applied in order, each old text matching once."""
    if not edits:
        raise StaleEdit(f"{what} has no edits: it would be the reference itself")
    for number, (old, new) in enumerate(edits, 1):
        count = source.count(old)
        if count != 1:
            raise StaleEdit(f"{what}, edit {number}: the old text occurs {count} times in solutions/agstate/{module} "
                            f"(expected exactly once); update it to the reference.\nold text:\n{old}")
        if old == new:
            raise StaleEdit(f"{what}, edit {number}: old and new text are the same")
        source = source.replace(old, new, 1)
    return source


def build_submission(directory: Path, *, modules: dict[str, str] | None = None, parts=None, package: Path = REFERENCE) -> Path:
    """``directory/agstate``: a copy of ``package`` with ``modules`` (file name -> source) written over it.

    ``parts``: only these parts' exercise modules are kept (a class handing in
    part A has no ``board.py``); None keeps every part. Returns ``directory``.
    """
    from grader.engine.registry import MODULES  # here: building the registry imports every part's rules

    directory = Path(directory)
    left_out = [f"{module}.py" for part, module in MODULES.items() if parts is not None and part not in parts]
    shutil.copytree(package, directory / "agstate", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", *left_out))
    for name, source in (modules or {}).items():
        (directory / "agstate" / name).write_text(source, encoding="utf-8")
    return directory
