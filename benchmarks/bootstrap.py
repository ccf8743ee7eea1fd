"""What every benchmark that needs this checkout imports first: this checkout's root and its ``tests/`` at the front
of ``sys.path``.

A benchmark runs as a file (``.venv/bin/python benchmarks/<name>.py``), so Python puts ``benchmarks/`` on
``sys.path`` and finds this module there. After ``import bootstrap``, ``grader`` is this checkout's (even
from another checkout's environment), and the tests' helpers and corpora import as the tests import them,
where pytest's ``pythonpath`` (pyproject.toml) puts ``tests/``: ``from support.paths import ROOT``,
``from support.corpus import Corpus``. The one place a benchmark's path is set: none sets its own.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [path for path in (str(ROOT), str(ROOT / "tests")) if path not in sys.path]
