"""Where grading keeps what it may reuse between runs: never in the learner's workspace or a student's submission.

Hypothesis keeps its storage (its example database and its tables of
Unicode characters) in ``.hypothesis/`` of the working directory by
default: the workspace of a learner who runs ``agstate-grade .``, the
submission folder ``nbgrader validate`` runs in, a notebook's folder.
Every process that may import Hypothesis — the grader's command line, the
warm grader, the lab's kernels — points it at the user's cache first.
"""

import os
import tempfile
from pathlib import Path

__all__ = ["HYPOTHESIS_STORAGE", "cache_home", "keep_hypothesis_out_of_the_workspace"]

HYPOTHESIS_STORAGE = "HYPOTHESIS_STORAGE_DIRECTORY"  # read by Hypothesis when it first stores something


def cache_home() -> Path:
    """This user's cache for the lab: ``$XDG_CACHE_HOME/agstate-lab``, else ``~/.cache/agstate-lab``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "agstate-lab"


def keep_hypothesis_out_of_the_workspace() -> None:
    """Point Hypothesis's storage at the user's cache (a private temporary folder when that is not writable),
    unless the environment chose a place already."""
    if os.environ.get(HYPOTHESIS_STORAGE):
        return
    home = cache_home() / "hypothesis"
    try:
        home.mkdir(parents=True, exist_ok=True)
        usable = os.access(home, os.W_OK | os.X_OK)
    except OSError:
        usable = False
    # A fresh folder of this process's own, not a shared name in /tmp that another account could have planted.
    os.environ[HYPOTHESIS_STORAGE] = str(home) if usable else tempfile.mkdtemp(prefix="agstate-hypothesis-")
