"""The rooms of grader/ hold by machine: which side of the process wall each module is on, and whom it may import.

- ``lint-imports`` checks the contracts of ``pyproject.toml`` (import-linter,
  indirect imports included): the learner's process, the sandbox, the
  reports and the catalog, the kernel's door and the engine each import
  only what their side may;
- each part's learner side (``grader/parts/<part>/probes/``, where a part
  still has one: its scenarios move to the grading side's ``scenarios.py``) imports nothing
  of the grading side — its part's rules, model, checks or strategies, the
  engine, Hypothesis — and a part's grading files import nothing of a
  learner side; files shared by both (``events/tools.py``) import neither;
- at run time, ``from grader import check`` and a check's rendering load no
  Hypothesis and no engine.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

from grader.catalog import NAMES

pytestmark = pytest.mark.unit

# A part's grading side: rules/, model.py, checks.py, strategies.py, scenarios.py (what runs LangGraph and the fakes
# for a rule, grader.engine.remote), fakes.py, and any <one of them>_<topic>.py beside them.
GRADING_FILES = ("rules", "model", "checks", "strategies", "scenarios", "fakes")


def grading(stem: str) -> bool:
    return stem in GRADING_FILES or stem.startswith(tuple(f"{name}_" for name in GRADING_FILES))


def test_the_import_contracts_hold():
    done = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports by name, at any depth of its code (a relative import as its absolute name)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            found |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return found


def side(module: str, part: str) -> str:
    """Which side a module of ``grader`` is on, seen from ``part``'s files: learner, grading, shared or other."""
    names = module.split(".")
    if module.startswith("hypothesis") or names[:2] in (["grader", "engine"], ["grader", "reports"]):
        return "grading"
    if names[:2] == ["grader", "parts"] and len(names) > 3:
        if grading(names[3]):
            return "grading"
        if names[3] == "probes":
            return "learner" if names[2] == part else "another part's learner side"
    return "other"


@pytest.mark.parametrize("part", NAMES)
def test_a_parts_learner_side_imports_nothing_of_the_grading_side(part):
    folder = ROOT / "grader" / "parts" / part
    learner = sorted((folder / "probes").glob("*.py"))  # none: every scenario of the part runs in the grading process
    for path in learner:
        wrong = sorted(m for m in imports_of(path) if side(m, part) in ("grading", "another part's learner side")
                       or m.startswith(("grader.sandbox", "grader.course", "grader.notebook", "grader.authoring", "grader.cli")))
        assert not wrong, f"{path.relative_to(ROOT)} (the learner's side) imports {wrong}"


@pytest.mark.parametrize("part", NAMES)
def test_a_parts_grading_side_imports_no_learner_side_and_its_shared_files_neither(part):
    folder = ROOT / "grader" / "parts" / part
    for path in [*(folder / "rules").glob("*.py"), *(path for path in folder.glob("*.py") if grading(path.stem))]:
        wrong = sorted(m for m in imports_of(path) if side(m, part) in ("learner", "another part's learner side")
                       or m.startswith("grader.child"))
        assert not wrong, f"{path.relative_to(ROOT)} (the grading side) imports {wrong}"
    shared = [path for path in folder.glob("*.py") if not grading(path.stem) and path.stem != "__init__"]
    for path in shared:
        wrong = sorted(m for m in imports_of(path) if m.startswith("grader") and not m.startswith(f"grader.parts.{part}.")
                       or side(m, part) != "other")
        assert not wrong, f"{path.relative_to(ROOT)} (read by both sides) imports {wrong}"


def test_a_check_in_a_kernel_loads_no_engine_and_no_hypothesis():
    script = ("import sys; from grader import check; import grader.notebook.check, grader.notebook.kernel, grader.caches; "
              "from grader.reports.scorecard import render_text, scorecard_html; "
              "print(sorted(m for m in sys.modules if m.split('.')[0] == 'hypothesis' or "
              "m.startswith(('grader.engine', 'grader.sandbox', 'grader.child', 'langgraph'))))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
