"""The lab's documentation: Sphinx with MyST, built offline (``make docs``; every ``make test`` builds it, warnings as errors).

Every count a page states comes from the code at build time, as a MyST
substitution (``{{ mutants }}``); the task table, the command lines' usage
and the import contracts are rendered from the grader itself
(``_ext/agstate_docs.py``).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE / "_ext"), str(ROOT), str(ROOT / "tests")]

from agstate_docs import substitutions  # noqa: E402  (after the path)

project = "agstate lab"
author = "the agstate lab authors"
extensions = ["myst_parser", "sphinx.ext.autodoc", "agstate_docs"]
# The rule writer's reference (reference/writing-rules.md) from the docstrings, in the order the code has them.
autodoc_member_order = "bysource"
autodoc_typehints = "description"
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
myst_enable_extensions = ["substitution", "deflist"]
myst_heading_anchors = 3
myst_substitutions = substitutions()
html_theme = "alabaster"
html_title = "agstate lab"
# Nothing is fetched: no intersphinx, no remote image; a link outside the repository is a plain URL.
suppress_warnings = []
