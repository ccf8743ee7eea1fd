"""The course kit (grader/authoring/course_kit.py): a graded course's students get no answer key.

Its grader is what a student's kernel runs, and nothing more: the unit tests
hold ``KIT_MODULES`` to the imports of its own modules and of the notebooks,
and to having no model, rule, check, strategy, scenario, fake or probe; a
copy of the checkout where someone solved the exercises or ran a notebook
stages no answer (its ``agstate/`` is made from ``solutions/``, a notebook
not as released is refused); the slow test builds the wheel as ``make course-kit`` does, lists its files, and
runs its ``check()`` on its own files (no repository on the path): with no
service named it says so in one line, and with one it shows the service's
report.
"""

import ast
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support.paths import ROOT
from test_grading_service import _REPORT, _StandIn

from grader.authoring.course_kit import KIT_MODULES, build, stage
from grader.authoring.released_copies import NotReleased
from grader.authoring.stubs import stub_module

pytestmark = pytest.mark.unit

# What a grader's answer key is made of (grader/parts/__init__.py names each), and the rooms that grade.
# Of grader/course/, the students' side only: their nbgrader's exchange classes and `agstate-course config student`.
ANSWER_KEYS = re.compile(r"(^|/)(model|strategies|checks|checks_\w+|scenarios|scenarios_\w+|fakes)\.py$|/(rules|probes)/|"
                         r"^grader/(engine|sandbox|authoring|service)/|^grader/child/(probes|remote|serve|generic)\.py$|"
                         r"^grader/course/(?!(__init__|exchange|inbound|inspection|configs|cli|hub_layout)\.py$)")


def _grader_imports(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("grader"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("grader"))
    return found


def _module_file(module: str) -> str:
    path = module.replace(".", "/")
    return f"{path}.py" if (ROOT / f"{path}.py").is_file() else f"{path}/__init__.py"


def test_the_kit_holds_every_grader_module_its_own_modules_and_the_notebooks_import():
    sources = {name: (ROOT / name).read_text() for name in KIT_MODULES}
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text())["cells"]
        sources[notebook.name] = "\n".join("".join(cell["source"]) for cell in cells
                                           if cell["cell_type"] == "code" and not "".join(cell["source"]).startswith("%"))
    missing = {(name, module) for name, source in sources.items() for module in _grader_imports(source)
               if _module_file(module) not in KIT_MODULES}
    assert not missing, f"imported but not in the course kit: {sorted(missing)}"


def test_the_kit_holds_no_answer_key():
    assert not [name for name in KIT_MODULES if ANSWER_KEYS.search(name)]
    assert ANSWER_KEYS.search("grader/parts/branches/model.py") and ANSWER_KEYS.search("grader/parts/state/rules/keep_max.py")
    assert ANSWER_KEYS.search("grader/course/autograde.py") and not ANSWER_KEYS.search("grader/course/exchange.py")


def _checkout(folder: Path, committed: bool = False) -> Path:
    """What ``stage`` reads of this repository, copied into ``folder``; with ``committed``, a git work tree at HEAD."""
    for name in ["pyproject.toml", *KIT_MODULES]:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, folder / name)
    for tree in ("agstate", "notebooks", "solutions/agstate"):
        shutil.copytree(ROOT / tree, folder / tree, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    if committed:
        git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "release"]):
            subprocess.run([*git, *args], check=True)
    return folder


def _edit_cell(notebook: Path, answer: bool, edit) -> int:
    """Apply ``edit`` to the notebook's first written answer cell (or first code cell); that cell's number."""
    content = json.loads(notebook.read_text())
    number, cell = next((number, cell) for number, cell in enumerate(content["cells"], 1)
                        if (cell.get("metadata", {}).get("nbgrader", {}).get("solution") if answer else cell["cell_type"] == "code"))
    edit(cell)
    notebook.write_text(json.dumps(content, indent=1))
    return number


def test_a_solved_exercise_module_in_the_checkout_does_not_reach_the_kit(tmp_path):
    root = _checkout(tmp_path / "checkout")
    master = (root / "solutions" / "agstate" / "state.py").read_text()
    (root / "agstate" / "state.py").write_text(master)  # the instructor solved the exercises here
    (root / "agstate" / "answers.py").write_text("ANSWERS = {}\n")
    kit = stage(tmp_path / "kit", root)
    assert sorted(path.name for path in (kit / "agstate").iterdir()) == \
        sorted(path.name for path in (root / "solutions" / "agstate").glob("*.py"))
    assert (kit / "agstate" / "state.py").read_text() == stub_module(master, "state.py") != master


@pytest.mark.parametrize("answer, edit", [
    (False, lambda cell: cell["outputs"].append({"output_type": "stream", "name": "stdout", "text": ["42\n"]})),
    (False, lambda cell: cell.update(execution_count=1)),
    (True, lambda cell: cell.update(source="The last write wins: the trace lists one node.")),
], ids=["an output", "an execution count", "a written answer"])
def test_a_notebook_someone_ran_or_answered_is_refused(tmp_path, answer, edit):
    root = _checkout(tmp_path / "checkout")
    number = _edit_cell(root / "notebooks" / "01_overwrite.ipynb", answer, edit)
    with pytest.raises(NotReleased) as refused:
        stage(tmp_path / "kit", root)
    found = f"answer cell {number} holds something other than 'YOUR ANSWER HERE'" if answer else \
        f"cell {number} holds outputs or an execution count"
    assert str(refused.value) == (f"notebooks/01_overwrite.ipynb: {found}; a kit ships the learner copies only as "
                                  "released. Write the learner copies afresh from solutions/ (python -m grader.authoring.release), "
                                  "or restore it: git checkout notebooks/01_overwrite.ipynb, then build the kit again")
    assert (refused.value.path, refused.value.found) == ("notebooks/01_overwrite.ipynb", found)
    assert not (tmp_path / "kit").exists()


def _edit_code(root: Path) -> None:
    _edit_cell(root / "notebooks" / "01_overwrite.ipynb", False, lambda cell: cell.update(source="NaiveState = FixedState\n"))


@pytest.mark.parametrize("change, found", [
    (_edit_code, "notebooks/01_overwrite.ipynb: differs from its copy committed at HEAD"),
    (lambda root: shutil.copy(root / "notebooks" / "01_overwrite.ipynb", root / "notebooks" / "01_mine.ipynb"),
     "notebooks/01_mine.ipynb: not committed at HEAD"),
    (lambda root: (root / "notebooks" / "01_overwrite.ipynb").unlink(), "notebooks/01_overwrite.ipynb: committed at HEAD but missing"),
], ids=["edited", "untracked", "missing"])
def test_in_a_git_work_tree_the_notebooks_are_those_committed_at_head(tmp_path, change, found):
    root = _checkout(tmp_path / "checkout", committed=True)
    assert (stage(tmp_path / "as-committed", root) / "grader" / "learner_notebooks" / "01_overwrite.ipynb").is_file()
    change(root)
    with pytest.raises(NotReleased, match=f"^{re.escape(found)}"):
        stage(tmp_path / "kit", root)


@pytest.mark.slow
def test_the_wheel_lists_no_answer_key_and_its_check_asks_the_service(tmp_path):
    wheel = build(tmp_path / "dist")
    names = sorted(zipfile.ZipFile(wheel).namelist())
    files = [name for name in names if ".dist-info/" not in name]
    expected = sorted([*KIT_MODULES, "grader/learner_notebooks/__init__.py",
                       *[f"grader/learner_notebooks/{path.relative_to(ROOT / 'notebooks').as_posix()}"
                         for pattern in ("*.ipynb", "*/*.ipynb") for path in (ROOT / "notebooks").glob(pattern)],
                       *[path.relative_to(ROOT).as_posix() for path in (ROOT / "grader" / "locale").glob("*/LC_MESSAGES/*.mo")],
                       *[f"agstate/{path.name}" for path in (ROOT / "solutions" / "agstate").glob("*.py")]])
    assert files == expected
    assert not [name for name in files if ANSWER_KEYS.search(name)]
    stub = stub_module((ROOT / "solutions" / "agstate" / "state.py").read_text(), "state.py")
    assert zipfile.ZipFile(wheel).read("agstate/state.py").decode() == stub

    # The kit's own files first on the path (its dependencies from this environment), and this checkout's editable
    # install, which would answer for any grader.* module, taken out: no repository behind them.
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", site, wheel], check=True)
    workspace = tmp_path / "lab"
    (workspace / "agstate").mkdir(parents=True)
    (workspace / "agstate" / "state.py").write_text((ROOT / "agstate" / "state.py").read_text())
    run = ("import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'Editable' not in getattr(f, '__name__', '')]; "
           "sys.path[:] = [p for p in sys.path if '__editable__' not in p]; "
           f"sys.path.insert(0, {str(site)!r}); import grader, importlib.util; "
           f"assert grader.__file__.startswith({str(site)!r}), grader.__file__; "
           "assert importlib.util.find_spec('grader.engine') is None; "
           "from grader import check; print(repr(check('state.keep_max')))")
    environment = {"PATH": "/usr/bin:/bin", "AGSTATE_WORKSPACE": str(workspace), "HOME": str(tmp_path)}
    alone = subprocess.run([sys.executable, "-c", run], env=environment, capture_output=True, text=True, timeout=120)
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout.splitlines() == ["check() grades on your course's grading service, and this server names none "
                                         "(AGSTATE_GRADING_SERVICE is not set): ask your instructor to add it to the "
                                         "hub's configuration", "None"]
    stand_in = _StandIn([(200, _REPORT)])
    try:
        served = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True, timeout=120,
                                env={**environment, "AGSTATE_GRADING_SERVICE": stand_in.url, "JUPYTERHUB_API_TOKEN": "t"})
    finally:
        stand_in.close()
    assert served.returncode == 0, served.stderr
    assert "state.keep_max" in served.stdout and served.stdout.splitlines()[-1] == "15.0"
    [(_, authorization, sent)] = stand_in.sent
    assert authorization == "token t" and sent["files"] == {"state.py": (ROOT / "agstate" / "state.py").read_text()}


@pytest.mark.parametrize("change, found", [
    (lambda root: shutil.copy(root / "solutions" / "agstate" / "state.py", root / "agstate" / "state.py"),
     "agstate/state.py: differs from the learner copy solutions/ gives (solved, or edited)"),
    (lambda root: (root / "agstate" / "scratch.py").write_text("ANSWER = 42\n"),
     "agstate/scratch.py: is no learner copy (solutions/agstate has no such file)"),
    (lambda root: (root / "agstate" / "board.py").unlink(), "agstate/board.py: missing"),
], ids=["solved", "a file more", "a file less"])
def test_the_self_paced_kit_ships_agstate_only_as_released(tmp_path, change, found):
    """make kit and make students-env install agstate/ as it is: released_copies checks it first."""
    from grader.authoring.released_copies import refuse_unreleased_package

    root = _checkout(tmp_path / "checkout")
    refuse_unreleased_package(root)  # as released: nothing to say
    change(root)
    with pytest.raises(NotReleased, match=f"^{re.escape(found)}"):
        refuse_unreleased_package(root)


def test_the_release_check_is_the_make_targets_first_step():
    makefile = (ROOT / "Makefile").read_text()
    kit = makefile[makefile.index("\nkit:"):makefile.index("\ncourse-kit:")]
    students = makefile[makefile.index("\nstudents-env:"):]
    assert "-m grader.authoring.released_copies" in kit.strip().splitlines()[1]
    assert students.index("-m grader.authoring.released_copies") < students.index("pip install --quiet '.[hub]'")
