"""The course kit (grader/authoring/course_kit.py): a graded course's students get no answer key.

Its grader is what a student's kernel runs, and nothing more: the unit tests
hold ``KIT_MODULES`` to the imports of its own modules and of the notebooks,
and to having no model, rule, check, strategy, scenario, fake or probe; the
slow test builds the wheel as ``make course-kit`` does, lists its files, and
runs its ``check()`` on its own files (no repository on the path): with no
service named it says so in one line, and with one it shows the service's
report.
"""

import ast
import json
import re
import subprocess
import sys
import zipfile

import pytest
from conftest import ROOT
from test_grading_service import _REPORT, _StandIn

from grader.authoring.course_kit import KIT_MODULES, build

pytestmark = pytest.mark.unit

# What a grader's answer key is made of (grader/parts/__init__.py names each), and the rooms that grade.
ANSWER_KEYS = re.compile(r"(^|/)(model|strategies|checks|checks_\w+|scenarios|scenarios_\w+|fakes)\.py$|/(rules|probes)/|"
                         r"^grader/(engine|sandbox|course|authoring|service)/|^grader/child/(probes|remote|serve|generic)\.py$")


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


@pytest.mark.slow
def test_the_wheel_lists_no_answer_key_and_its_check_asks_the_service(tmp_path):
    wheel = build(tmp_path / "dist")
    names = sorted(zipfile.ZipFile(wheel).namelist())
    files = [name for name in names if ".dist-info/" not in name]
    expected = sorted([*KIT_MODULES, "grader/learner_notebooks/__init__.py",
                       *[f"grader/learner_notebooks/{path.name}" for path in (ROOT / "notebooks").glob("*.ipynb")],
                       *[f"agstate/{path.name}" for path in (ROOT / "agstate").glob("*.py")]])
    assert files == expected
    assert not [name for name in files if ANSWER_KEYS.search(name)]
    assert zipfile.ZipFile(wheel).read("agstate/state.py") == (ROOT / "agstate" / "state.py").read_bytes()  # the stub

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
