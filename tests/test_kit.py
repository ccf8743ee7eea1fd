"""The learner's kit: a wheel with the grader and the starting files, no answers, that gives a working lab.

The slow test is the learner's kit's way in (docs/learner/getting-started.md), run as a student would: build
the wheel from this checkout (``python -m build``), install it in a fresh
virtual environment, write a workspace with ``agstate-workspace``, and grade
it with ``check()`` there — first the stubs, then a module of the reference.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support.paths import ROOT, SOLUTIONS

from grader.authoring.workspace import main as workspace_main
from grader.authoring.workspace import starting_files, write_workspace

pytestmark = pytest.mark.unit


def test_a_workspace_holds_the_learner_copies_and_never_overwrites_work(tmp_path, monkeypatch):
    import importlib

    monkeypatch.syspath_prepend(str(SOLUTIONS))  # this process imported the reference's agstate (as other tests do):
    monkeypatch.delitem(sys.modules, "agstate", raising=False)  # the kit's files are still the stubs
    assert "SOLUTION" in Path(importlib.import_module("agstate").__file__).with_name("state.py").read_text()
    files = starting_files()
    assert (ROOT / "notebooks" / "00_welcome.ipynb").read_bytes() == files["00_welcome.ipynb"]
    assert (ROOT / "agstate" / "state.py").read_bytes() == files["agstate/state.py"]  # the stub, not the answer
    assert not any("solutions" in name for name in files)
    written, kept = write_workspace(tmp_path)
    assert sorted(written) == sorted(files) and kept == []
    (tmp_path / "agstate" / "state.py").write_text("# my work\n")
    (tmp_path / "03_dedupe.ipynb").unlink()
    written, kept = write_workspace(tmp_path)  # a second run, after a new release: adds what is missing
    assert written == ["03_dedupe.ipynb"] and "agstate/state.py" in kept
    assert (tmp_path / "agstate" / "state.py").read_text() == "# my work\n"


def test_a_workspace_over_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "taken").write_text("")
    assert workspace_main([str(tmp_path / "taken")]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err


def test_a_workspace_in_an_environment_it_cannot_write_says_so_in_one_line(tmp_path, capsys, monkeypatch):
    """A shared, read-only environment (learner-F): the workspace is written, the kernel's settings are not, and the
    learner reads one line saying so, not a traceback. Costs milliseconds."""
    from grader.notebook import kernel

    def refused(prefix):
        raise PermissionError(13, "Permission denied", str(tmp_path / "env" / "etc" / "ipython"))

    monkeypatch.setattr(kernel, "install", refused)
    assert workspace_main([str(tmp_path / "lab")]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("wrote ") and (tmp_path / "lab" / "agstate").is_dir()
    assert len(err.strip().splitlines()) == 1 and "Permission denied" in err and "Traceback" not in err


def _run(*args, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(arg) for arg in args], capture_output=True, text=True, timeout=900, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, args))} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.slow
def test_the_wheel_installed_in_a_fresh_environment_gives_a_working_lab_without_the_answers(tmp_path):
    shutil.rmtree(ROOT / "build", ignore_errors=True)  # setuptools' staging: a module deleted since would ship again
    _run(sys.executable, "-m", "build", "--wheel", "--outdir", tmp_path / "dist", ROOT, cwd=tmp_path)
    (wheel,) = (tmp_path / "dist").glob("agstate_lab-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert not [name for name in names if name.startswith("solutions/") or "/solutions/" in name]
    folders = {str(path.parent.relative_to(ROOT)) for path in [*(ROOT / "grader").rglob("*.py"), *(ROOT / "agstate").glob("*.py")]
               if "__pycache__" not in path.parts}
    assert folders <= {name.rsplit("/", 1)[0] for name in names}, "a package folder of the tree is not in the wheel"
    notebooks = sorted(path.relative_to(ROOT / "notebooks").as_posix() for pattern in ("[0-9][0-9]_*.ipynb", "*/[0-9][0-9]_*.ipynb")
                       for path in (ROOT / "notebooks").glob(pattern))
    assert [f"grader/learner_notebooks/{name}" for name in notebooks] == \
        sorted(name for name in names if name.startswith("grader/learner_notebooks/") and name.endswith(".ipynb"))
    assert {f"grader/locale/{lang}/LC_MESSAGES/agstate.mo" for lang in ("es", "zh_CN", "ru")} <= set(names)
    assert "agstate/state.py" in names
    stub = zipfile.ZipFile(wheel).read("agstate/state.py")
    assert stub == (ROOT / "agstate" / "state.py").read_bytes() != (SOLUTIONS / "agstate" / "state.py").read_bytes()

    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    environment = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    environment.pop("AGSTATE_WORKSPACE", None)
    _run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel, env=environment)
    _run(venv / "bin" / "agstate-workspace", tmp_path / "lab", env=environment, cwd=tmp_path)
    lab = tmp_path / "lab"
    assert (lab / "00_welcome.ipynb").is_file() and (lab / "agstate" / "state.py").read_bytes() == stub
    assert (venv / "etc" / "ipython" / "ipython_kernel_config.py").is_file()  # autoreload in the kit's kernels too

    grade = ("import json, sys; from grader.notebook.check import check; points = check(sys.argv[1], seed=3); "
             "print(json.dumps(float(points)))")
    stubs = _run(venv / "bin" / "python", "-c", grade, "state.dedupe", env=environment, cwd=lab)  # as a kernel there
    assert "not_implemented" in stubs.stdout and json.loads(stubs.stdout.splitlines()[-1]) == 0.0
    assert stubs.stderr == "", stubs.stderr  # a quiet first grade: no warning, no traceback
    # In Spanish: the notebooks of notebooks/es, and check()'s scorecard from the kit's compiled catalog.
    _run(venv / "bin" / "agstate-workspace", "--lang", "es", tmp_path / "lab-es", env=environment, cwd=tmp_path)
    assert (tmp_path / "lab-es" / "00_welcome.ipynb").read_bytes() == (ROOT / "notebooks" / "es" / "00_welcome.ipynb").read_bytes()
    spanish = _run(venv / "bin" / "python", "-c", grade, "state.dedupe", env={**environment, "AGSTATE_LANG": "es"},
                   cwd=tmp_path / "lab-es")
    assert "sin_implementar" in spanish.stdout and "semilla 3" in spanish.stdout, spanish.stdout
    (lab / "agstate" / "state.py").write_bytes((SOLUTIONS / "agstate" / "state.py").read_bytes())
    done = _run(venv / "bin" / "python", "-c", grade, "state", env=environment, cwd=lab)
    assert json.loads(done.stdout.splitlines()[-1]) == 100.0, done.stdout
    # The kit's own words give the kit's own commands: agstate-grade, never the repository's make targets.
    texts = {path.name: path.read_text(encoding="utf-8") for path in [*lab.glob("*.ipynb"), *lab.glob("agstate/*.py")]}
    assert not [name for name, text in texts.items() if re.search(r"\bmake (grade|lab|test)\b", text)]
    graded = subprocess.run([venv / "bin" / "agstate-grade", ".", "--part", "state", "--seed", "3"], cwd=lab, env=environment,
                            capture_output=True, text=True, timeout=600)
    assert graded.returncode == 0 and "score 100.0/100.0" in graded.stdout, graded.stdout + graded.stderr
    assert not (lab / ".hypothesis").exists() and not (lab / "agstate" / ".hypothesis").exists()
    _run(venv / "bin" / "jupyter", "lab", "--version", env=environment)
