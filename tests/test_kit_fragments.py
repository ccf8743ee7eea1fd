"""No code a kit ships earns a point pasted into the stubs: the notebooks and docstrings hold no answer (issue 42).

Every fragment of code in the learner notebooks (cells, the strings they
hold, markdown code), in the docstrings of the learner's ``agstate/`` files and
of the course kit's grader modules that sets a name of an exercise module
(``tests/support/kit_fragments.py``) is appended to that part's stub; each part's
candidates are graded in one batch beside a control, the stub with an
answer for one of its names appended, which must earn points
(so pasting works, and the test can fail). Every task of every candidate
must score 0.

Cost: one batch per part with candidates, every task of the part at 20 examples (a few seconds each: stubs stop at
their first call).
"""

import json
import shutil
import subprocess
import sys

import pytest
from support.kit_fragments import candidates, exercise_names, fragments
from support.paths import ROOT

from grader.authoring.course_kit import KIT_MODULES
from grader.catalog import MODULES

pytestmark = pytest.mark.part

SEED = 3
# For each part with candidates, an answer that, pasted into the stub, earns points (the control): standing alone, as a
# fragment would have to (the stubs' own helpers still raise).
CONTROL = {
    "state": "def merge_sources(old, new):\n    new = [new] if isinstance(new, str) else list(new)\n"
             "    return list(dict.fromkeys([*(old or []), *new]))",
    "branches": "def write_once(old, new):\n    if old is None or old == new:\n        return new if old is None else old\n"
                "    raise WriteOnceViolation(old, new)",
    "messages": "class ChatState(TypedDict, total=False):\n    messages: list\n    summary: str\n\n\n"
                "DECISIONS = {'messages': 'merged by id with add_messages within a budget; visible: the conversation "
                "the model reads', 'summary': 'overwritten by each summary; internal: the text of turns removed'}",
}

FOUND = fragments(sorted((ROOT / "notebooks").glob("*.ipynb")),
                  [*sorted((ROOT / "agstate").glob("*.py")), *(ROOT / name for name in KIT_MODULES)])
EXERCISES = {part: exercise_names((ROOT / "agstate" / f"{module}.py").read_text()) for part, module in MODULES.items()}
CANDIDATES = candidates(FOUND, EXERCISES)


def test_the_finder_finds_code_written_into_a_string_and_a_docstring(tmp_path):
    """A cell that writes a module holding a definition, and a docstring's ``>>>`` session (learner-F's 00_welcome)."""
    notebook = tmp_path / "99_demo.ipynb"
    cell = "path.write_text('''\ndef merge_sources(old, new):\n    return list(dict.fromkeys([*old, *new]))\n''')"
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "source": [cell]},
                                              {"cell_type": "markdown", "source": ["Try `keep_max = max`."]}]}))
    module = tmp_path / "helper.py"
    module.write_text('"""Help.\n\n>>> def windowed(n):\n...     return None\n"""\n')
    found = candidates(fragments([notebook], [module]), EXERCISES)
    assert sorted((part, fragment.where) for part, fragment in found) == [
        ("state", "99_demo.ipynb, cell 0, string 0"), ("state", "99_demo.ipynb, cell 1, code span 0"),
        ("state", "helper.py, module docstring, >>> session")]


@pytest.mark.parametrize("part", sorted({part for part, _ in CANDIDATES}))
def test_no_fragment_a_kit_ships_earns_a_point_in_the_stubs(part, tmp_path):
    pasted = [fragment for owner, fragment in CANDIDATES if owner == part]
    control = CONTROL[part]
    paths = []
    for number, source in enumerate([control, *(fragment.source for fragment in pasted)]):
        folder = tmp_path / f"pasted-{number}"
        shutil.copytree(ROOT / "agstate", folder / "agstate", ignore=shutil.ignore_patterns("__pycache__"))
        module = folder / "agstate" / f"{MODULES[part]}.py"
        module.write_text(module.read_text() + "\n\n" + source + "\n")
        paths.append(str(folder))
    done = subprocess.run([sys.executable, "-m", "grader", *paths, "--json", "--seed", str(SEED), "--part", part,
                           "--examples", "20"], capture_output=True, text=True, cwd=ROOT, timeout=1200)
    control_report, *reports = json.loads(done.stdout)
    assert control_report["score"] > 0, f"the control pasted into part {part}'s stub earned nothing"
    earned = {fragment.where: [(t["id"], t["score"]) for t in report["tasks"] if t["score"] > 0]
              for fragment, report in zip(pasted, reports) if report["score"] > 0}
    assert not earned, f"code a kit ships earns points pasted into the stub of part {part}: {earned}"
