"""The course kit: the students' wheel for a graded course, with no answer key in it.

    python -m grader.authoring.course_kit [--outdir dist]     (make course-kit)
    python -m grader.authoring.course_kit --stage DIR          (make students-env KIT=course: pip installs DIR)

The self-paced kit (``make kit``) holds the whole grader: its models of the
pure tasks behave as the reference does, and its rules, strategies and
probes say what is checked and how. A graded course's students get this
wheel instead, ``agstate-lab-course-kit``: the notebooks, the stubs and
provided helpers (``agstate/``), and of the grader only what a student's
kernel runs — ``check()``, which sends the files to the course's grading
service (``grader.notebook.remote_check``), the scorecard that shows its answer,
the catalog of task names and points, the kernel's reload, and the
scheduler the race notebooks demonstrate with — and what the students'
nbgrader needs: the lab's exchange classes that their configuration names
(the summary page, the score in the Assignment List) and
``agstate-course config student``, which writes that configuration. ``KIT_MODULES`` lists them;
a test builds the wheel and holds its file list to it, and to having no
model, rule, check, strategy, scenario, fake or probe.

Its exercise modules and notebooks never come from a copy a person may
have worked in: an instructor who solved the exercises in this checkout, or
ran its notebooks, must not hand the answers to every student. ``agstate/``
is made afresh from the master, ``solutions/agstate``, as the release makes
it (``grader.authoring.stubs``); the notebooks, which only nbgrader can
make, are taken only as released, else staging refuses, naming the file and
what to do (``grader.authoring.released_copies``).
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from grader.authoring.released_copies import NotReleased, refuse_unreleased_notebooks
from grader.authoring.stubs import ROOT, learner_package  # not release's: make students-env stages with no nbformat
from grader.catalog import NAMES
from grader.i18n import LANGUAGES

__all__ = ["KIT_MODULES", "NAME", "build", "stage"]

NAME = "agstate-lab-course-kit"

# Of grader/, what a student's kernel imports (tests/test_course_kit.py checks the closure of its imports).
KIT_MODULES = [
    "grader/__init__.py",
    "grader/caches.py",  # Hypothesis's files out of the workspace, in a notebook that uses it
    "grader/catalog.py",  # task names, points, notebooks: no rule
    "grader/i18n.py",  # the scorecard's and check()'s sentences in the learner's language (the .mo files: LOCALES)
    "grader/parts/__init__.py",
    "grader/parts/descriptor.py",
    *[f"grader/parts/{name}/__init__.py" for name in NAMES],  # each part's descriptor: titles, tasks, points
    "grader/notebook/__init__.py",
    "grader/notebook/check.py",
    "grader/notebook/kernel.py",
    "grader/notebook/remote_check.py",
    "grader/package_files.py",  # what check() sends: the service's own rules
    "grader/reports/__init__.py",
    "grader/reports/report.py",
    "grader/reports/safe.py",
    "grader/reports/scorecard.py",
    "grader/course/__init__.py",  # the students' nbgrader configuration names the lab's exchange classes:
    "grader/course/exchange.py",  # fetch_feedback (the summary page) and list (the score), which need these
    "grader/course/inbound.py",
    "grader/course/inspection.py",
    "grader/course/configs.py",  # agstate-course config student, run from the students' environment
    "grader/course/cli.py",
    "grader/course/hub_layout.py",
    "grader/exposure.py",
    "grader/child/__init__.py",
    "grader/child/guard.py",
    "grader/child/lockstep.py",  # the race notebooks' run_in_lockstep: a scheduler, it judges nothing
]


def stage(folder: Path, root: Path = ROOT) -> Path:
    """The course kit's project in ``folder`` from the checkout ``root``: its pyproject, ``agstate/`` made from
    ``solutions/agstate``, the notebooks as released (else ``NotReleased``) and ``KIT_MODULES``."""
    refuse_unreleased_notebooks(root)
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    optional = project["optional-dependencies"]
    for name in KIT_MODULES:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, folder / name)
    for relative, text in learner_package(root).items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    notebooks = folder / "grader" / "learner_notebooks"
    notebooks.mkdir()
    (notebooks / "__init__.py").write_text("")
    for notebook in sorted((root / "notebooks").glob("*.ipynb")):
        shutil.copy2(notebook, notebooks / notebook.name)
    for lang in LANGUAGES[1:]:  # the notebooks in each language (agstate-workspace --lang), as released too
        for notebook in sorted((root / "notebooks" / lang).glob("*.ipynb")):
            (notebooks / lang).mkdir(exist_ok=True)
            shutil.copy2(notebook, notebooks / lang / notebook.name)
    for compiled in sorted((root / "grader" / "locale").glob("*/LC_MESSAGES/*.mo")):
        (folder / compiled.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(compiled, folder / compiled.relative_to(root))
    packages = sorted({str(Path(name).parent).replace("/", ".") for name in KIT_MODULES} | {"agstate",
                                                                                           "grader.learner_notebooks"})
    dependencies = ",\n    ".join(json.dumps(dependency) for dependency in project["dependencies"])
    (folder / "pyproject.toml").write_text(f'''\
[build-system]
requires = ["setuptools>=77", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "{NAME}"
version = "{project["version"]}"
description = "agstate lab for a graded course: notebooks, stubs and check(), which the course's grading service answers"
requires-python = "{project["requires-python"]}"
license = "{project["license"]}"
dependencies = [
    {dependencies},
]

[project.optional-dependencies]
hub = {json.dumps(optional["hub"])}

[project.scripts]
agstate-course = "grader.course.cli:main"

[tool.setuptools]
packages = {json.dumps(packages)}

[tool.setuptools.package-data]
"grader.learner_notebooks" = ["*.ipynb", "*/*.ipynb"]
"grader" = ["locale/*/LC_MESSAGES/*.mo"]
''')
    return folder


def build(outdir: Path) -> Path:
    """Build the course kit's wheel into ``outdir``; its path."""
    outdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="agstate-course-kit-") as folder:
        stage(Path(folder))
        done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(outdir.resolve()), folder],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"building the course kit failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
    (wheel,) = sorted(outdir.glob(f"{NAME.replace('-', '_')}-*.whl"))[-1:]
    return wheel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.authoring.course_kit", description=__doc__.splitlines()[0])
    parser.add_argument("--outdir", type=Path, default=ROOT / "dist", help="where the wheel goes (default dist/)")
    parser.add_argument("--stage", type=Path, metavar="DIR", help="only write the kit's project into DIR, to pip install")
    args = parser.parse_args(argv)
    try:
        print(stage(args.stage) if args.stage else build(args.outdir))
    except NotReleased as refused:
        print(f"{parser.prog}: {refused}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
