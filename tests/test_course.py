"""The instructor's pipeline with the real nbgrader CLI: init, release, collect, autograde, feedback, export.

Every student's exported score must equal ``agstate-grade``'s score for the
same submission, seed and settings, whatever the submission does in the
notebook kernel.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import requests

from conftest import ROOT
from grader.assignment import check_target, lab_of, source_notebook
from grader.tasks import TASKS, tasks_of
from lab_server import running_lab
from mutants.state_mutants import MUTANTS, mutant_source

BIN = Path(sys.executable).parent
ASSIGNMENT = "agstate-lab"
SEED, EXAMPLES, TIMEOUT = 4242, 20, 10

# Code a hostile student appends to a correct state.py. Inside the notebook
# kernel it replaces check() with one that claims full marks and writes to
# stderr (which zeroes an nbgrader cell); everywhere, merge_sources returns a
# list subclass that equals anything.
PATCH_THE_KERNEL = '''
import sys as _sys
if "ipykernel" in _sys.modules:
    import grader as _grader
    import grader.notebook as _notebook
    _grader.check = _notebook.check = lambda *args, **kwargs: 100.0
    print("warning: nothing to see here", file=_sys.stderr)


class _EqualsAnything(list):
    def __eq__(self, other):
        return True


_merge_sources = merge_sources


def merge_sources(old, new):
    return _EqualsAnything(_merge_sources(old, new))
'''
# A correct state.py that kills any notebook kernel importing it.
KILL_THE_KERNEL = '''
import os as _os
import sys as _sys
if "ipykernel" in _sys.modules:
    _os._exit(1)
'''


def run(*args, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}  # nbgrader needs alembic on PATH
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert "Exception while loading config file" not in done.stderr, done.stderr[-3000:]
    return done


def init(directory: Path, *extra: str) -> subprocess.CompletedProcess:
    return run(BIN / "agstate-course", "init", directory, *extra, cwd=ROOT)


def test_every_master_notebook_names_its_part():
    for master in sorted((ROOT / "solutions" / "notebooks").glob("[0-9][0-9]_*.py")):
        lab = lab_of(source_notebook(master))  # raises when the header has no agstate: {lab: ...}
        checked = {task.lab for task in TASKS.values() if task.notebook == f"{master.stem}.ipynb"}
        assert checked <= {lab}, f"{master.name} says part {lab!r} but checks tasks of {sorted(checked)}"


# -- init --------------------------------------------------------------------------------------
def test_init_refuses_a_directory_that_is_not_empty_unless_forced(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / "notes.txt").write_text("mine")
    refused = init(course)
    assert refused.returncode == 2
    assert refused.stderr.startswith("agstate-course: ") and "is not empty" in refused.stderr and "--force" in refused.stderr
    assert sorted(p.name for p in course.iterdir()) == ["notes.txt"]
    forced = init(course, "--force", "--lab", "state", "--seed", "7")
    assert forced.returncode == 0, forced.stderr
    assert (course / "notes.txt").read_text() == "mine"
    assert (course / "source" / ASSIGNMENT / "01_overwrite.ipynb").is_file()


def test_init_names_a_bad_part_or_assignment(tmp_path):
    unknown = init(tmp_path / "a", "--lab", "nope")
    assert unknown.returncode == 2 and "unknown part 'nope'" in unknown.stderr
    slash = init(tmp_path / "b", "--assignment", "lab/1")
    assert slash.returncode == 2 and "assignment name 'lab/1'" in slash.stderr


def test_init_writes_the_config_nbgrader_needs(tmp_path):
    course = tmp_path / "course"
    assert init(course, "--lab", "state", "--seed", "99").returncode == 0
    config = {}
    exec((course / "nbgrader_config.py").read_text(), {"get_config": lambda: _Config(config)})
    assert config["CourseDirectory.root"] == str(course.resolve())
    assert config["CourseDirectory.db_url"] == f"sqlite:///{course.resolve() / 'gradebook.db'}"
    assert config["Exchange.root"] == str(course.resolve() / "exchange")
    assert config["Autograde.exclude_overwriting"] == {ASSIGNMENT: ["agstate/state.py"]}
    assert config["GradedExecute.seed"] == 99 and config["GradedExecute.labs"] == ["state"]
    assert config["GradedExecute.timeout"] > 0
    source = course / "source" / ASSIGNMENT
    graded = {}
    for path in sorted(source.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade") and cell.cell_type == "code":
                graded[check_target(cell)] = meta["points"]
    assert graded == {task.id: task.max_score for task in tasks_of("state")}
    assert sum(graded.values()) == 100


class _Config:
    """Collects ``c.Section.name = value`` assignments of a config file."""

    def __init__(self, values: dict, prefix: str = ""):
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, name):
        return _Config(self._values, f"{self._prefix}{name}.")

    def __setattr__(self, name, value):
        self._values[f"{self._prefix}{name}"] = value


# -- release -----------------------------------------------------------------------------------
@pytest.mark.slow
def test_generate_assignment_releases_the_repositorys_learner_copies(tmp_path):
    course = tmp_path / "course"
    assert init(course).returncode == 0
    done = run(BIN / "nbgrader", "generate_assignment", ASSIGNMENT, cwd=course)
    assert done.returncode == 0, done.stderr[-3000:]
    release = course / "release" / ASSIGNMENT
    for folder, pattern in (("", "*.ipynb"), ("agstate", "*")):
        released = sorted(p.name for p in (release / folder).glob(pattern) if p.name != "__pycache__")
        repo = ROOT / (folder or "notebooks")
        assert released == sorted(p.name for p in repo.glob("*.ipynb" if not folder else "*.py")), folder
        for name in released:
            assert (release / folder / name).read_bytes() == (repo / name).read_bytes(), f"{folder}/{name} differs"
    assert sorted(p.name for p in release.iterdir() if p.is_dir()) == ["agstate"]


def place_students(course: Path, release: Path) -> list[str]:
    """Submissions under ``submitted/<student>/``: two mutants, the stub, two hostile ones, no package."""
    mutants = {m.name: m for m in MUTANTS}
    reference = (ROOT / "solutions" / "agstate" / "state.py").read_text()
    students = {
        "ben": mutant_source(mutants["keep_max_zero_is_absent"]),
        "cy": mutant_source(mutants["output_leaks_notes"]),
        "dee": None,  # the untouched stub
        "eve": reference + PATCH_THE_KERNEL,
        "fay": reference + KILL_THE_KERNEL,
    }
    for student, source in students.items():
        submission = course / "submitted" / student / ASSIGNMENT
        shutil.copytree(release, submission)
        if source is not None:
            (submission / "agstate" / "state.py").write_text(source)
    answered = course / "submitted" / "ben" / ASSIGNMENT / "01_overwrite.ipynb"
    notebook = nbformat.read(answered, as_version=4)
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("prediction"):
            cell.source = "Only the last write, ['finish']: there is no reducer."
    nbformat.write(notebook, answered)
    shutil.copytree(release, course / "submitted" / "gus" / ASSIGNMENT, ignore=shutil.ignore_patterns("agstate"))
    return [*students, "gus"]


# -- the whole flow ----------------------------------------------------------------------------
@pytest.mark.slow
def test_autograde_scores_equal_agstate_grade(tmp_path):
    course = tmp_path / "course"
    made = init(course, "--lab", "state", "--seed", str(SEED), "--examples", str(EXAMPLES), "--timeout", str(TIMEOUT))
    assert made.returncode == 0, made.stderr
    assert run(BIN / "nbgrader", "generate_assignment", ASSIGNMENT, cwd=course).returncode == 0
    release = course / "release" / ASSIGNMENT

    # One student goes through the exchange: release, fetch, submit, collect.
    assert run(BIN / "nbgrader", "release_assignment", ASSIGNMENT, cwd=course).returncode == 0
    home = tmp_path / "home"
    home.mkdir()
    exchange = [f"--course={course.name}", f"--Exchange.root={course / 'exchange'}"]
    assert run(BIN / "nbgrader", "fetch_assignment", ASSIGNMENT, *exchange, cwd=home).returncode == 0
    shutil.copy(ROOT / "solutions" / "agstate" / "state.py", home / ASSIGNMENT / "agstate" / "state.py")
    assert run(BIN / "nbgrader", "submit", ASSIGNMENT, *exchange, cwd=home).returncode == 0
    collected = run(BIN / "nbgrader", "collect", ASSIGNMENT, cwd=course)
    assert collected.returncode == 0, collected.stderr[-2000:]
    [by_exchange] = [p.name for p in (course / "submitted").iterdir()]

    students = place_students(course, release)  # the others by hand, as after a collection from an LMS

    graded = run(BIN / "nbgrader", "autograde", ASSIGNMENT, "--force", cwd=course)
    assert graded.returncode == 0, graded.stderr[-4000:]
    assert run(BIN / "nbgrader", "generate_feedback", ASSIGNMENT, "--force", cwd=course).returncode == 0
    assert run(BIN / "nbgrader", "export", "--to", course / "grades.csv", cwd=course).returncode == 0
    exported = {row["student_id"]: float(row["score"]) for row in csv.DictReader((course / "grades.csv").open())}

    everyone = [by_exchange, *students]
    paths = [course / "submitted" / student / ASSIGNMENT for student in everyone]
    ours = run(sys.executable, "-m", "grader", *paths, "--json", "--lab", "state", "--seed", SEED,
               "--examples", EXAMPLES, "--timeout", TIMEOUT, cwd=ROOT)
    reports = dict(zip(everyone, json.loads(ours.stdout)))
    assert set(exported) == set(everyone)
    for student in everyone:
        assert exported[student] == pytest.approx(reports[student]["score"]), (student, reports[student])

    # The scores themselves: the reference, each mutant and the hostile ones lose what they deserve.
    by_task = {student: {t["id"]: t["score"] for t in report["tasks"]} for student, report in reports.items()}
    assert exported[by_exchange] == 100 and exported["fay"] == 100
    assert exported["dee"] == 0 and exported["gus"] == 0
    assert by_task["ben"]["state.keep_max"] < TASKS["state.keep_max"].max_score and exported["ben"] < 100
    assert by_task["cy"]["state.schemas"] < TASKS["state.schemas"].max_score and exported["cy"] < 100
    assert by_task["eve"]["state.dedupe"] < TASKS["state.dedupe"].max_score and exported["eve"] < 100

    # Feedback: the grader's own words, never a grader traceback.
    feedback = course / "feedback"
    for student in everyone:
        pages = list((feedback / student / ASSIGNMENT).glob("*.html"))
        assert len(pages) == len(list(release.glob("*.ipynb"))), student
        text = "\n".join(page.read_text() for page in pages)
        assert not [leak for leak in ("grader/checking.py", "grader/runner.py", "site-packages/hypothesis") if leak in text]
    gus = (feedback / "gus" / ASSIGNMENT / "03_dedupe.html").read_text()
    assert "missing: the submission has no agstate/state.py" in gus
    dee = (feedback / "dee" / ASSIGNMENT / "03_dedupe.html").read_text()
    assert "merge_sources() is not written yet" in dee

    # Manual grading in the formgrader: the instructor scores a written prediction.
    with running_lab(course, tmp_path) as lab:
        base, auth = lab.base, lab.auth
        assert requests.get(f"{base}/formgrader", headers=auth, timeout=30).status_code == 200
        assignments = requests.get(f"{base}/formgrader/api/assignments", headers=auth, timeout=30).json()
        [listed] = [a for a in assignments if a["name"] == ASSIGNMENT]
        assert listed["num_submissions"] == len(everyone)
        notebooks = requests.get(f"{base}/formgrader/api/submitted_notebooks/{ASSIGNMENT}/01_overwrite",
                                 headers=auth, timeout=30).json()
        [ben] = [n for n in notebooks if n["student"] == "ben"]
        grades = requests.get(f"{base}/formgrader/api/grades", params={"submission_id": ben["id"]},
                              headers=auth, timeout=30).json()
        [prediction] = [g for g in grades if g["name"].startswith("prediction")]
        assert prediction["needs_manual_grade"] and prediction["max_score"] == 1
        answer = requests.put(f"{base}/formgrader/api/grade/{prediction['id']}", json={"manual_score": 1},
                              headers=auth, timeout=30)
        assert answer.ok and answer.json()["manual_score"] == 1
    assert run(BIN / "nbgrader", "export", "--to", course / "after.csv", cwd=course).returncode == 0
    after = {row["student_id"]: float(row["score"]) for row in csv.DictReader((course / "after.csv").open())}
    assert after["ben"] == pytest.approx(exported["ben"] + 1)
