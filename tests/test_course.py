"""The instructor's pipeline with the real nbgrader CLI: init, release, collect, autograde, feedback, export.

Every student's exported score must equal ``agstate-grade``'s score for the
same submission, seed and settings, whatever the submission does in the
notebook kernel.
"""

import csv
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import requests
from support.corpus import Corpus
from support.lab_server import running_lab
from support.paths import ROOT

from grader.authoring.assignment import check_target, part_of, source_notebook
from grader.engine.registry import TASKS, tasks_of

pytestmark = pytest.mark.part

BIN = Path(sys.executable).parent
ASSIGNMENT = "agstate-lab"
SEED, EXAMPLES, TIMEOUT = 4242, 20, 10

# Code a hostile student appends to a correct state.py: merge_sources returns
# a list subclass that equals anything. It must lose state.dedupe's marks.
EQUALS_ANYTHING = '''

class _EqualsAnything(list):
    def __eq__(self, other):
        return True


_merge_sources = merge_sources


def merge_sources(old, new):
    return _EqualsAnything(_merge_sources(old, new))
'''
# Appended to a correct state.py: at import (which runs in the grader's
# sandbox) it tries to reach the course; if it can, the module fails to load
# and the student loses everything, so full marks prove that it could not.
PROBE_THE_COURSE = '''
def _reach_the_course(course):
    import os
    reached = []
    for path, mode in ((course + "/gradebook.db", "r+b"), (course + "/nbgrader_config.py", "r"),
                       (course + "/source/agstate-lab/agstate/state.py", "r"),
                       (course + "/release/agstate-lab/03_dedupe.ipynb", "r"),
                       (course + "/submitted/ada/agstate-lab/agstate/state.py", "r"),
                       (course + "/probe-was-here", "w")):
        try:
            with open(path, mode):
                reached.append(path)
        except OSError:
            pass
    if os.path.exists(course):
        reached.append(course)
    if reached:
        raise RuntimeError("reached " + ", ".join(reached))


_reach_the_course(@COURSE@)
'''
# HTML a student writes into a markdown answer: it reaches the instructor's browser in the formgrader.
SCRIPT_IN_MARKDOWN = """ <script>alert('ben-md')</script><img src="x" onerror="alert('ben-img')">"""
LIVE_HTML = re.compile(r"<script>alert\('ben-md'\)|<img[^>]*onerror")
# Notebook cells a tamperer adds. Autograde must never run them: each leaves
# a mark if it does, and each would change grades.
WRITE_THE_GRADEBOOK = '''
import sqlite3, subprocess, sys
db = sqlite3.connect(@COURSE@ + "/gradebook.db")
db.execute("UPDATE grade SET extra_credit = 50, manual_score = 1000")
db.commit()
open(@COURSE@ + "/tampered-by-gina", "w").close()
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], start_new_session=True)
'''
SWAP_THE_GRADER = '''
import os
os.makedirs(@COURSE@ + "/grader", exist_ok=True)
with open(@COURSE@ + "/grader/__main__.py", "w") as fake:
    fake.write("print('{\\"tasks\\": []}')")
open(@COURSE@ + "/tampered-by-hal", "w").close()
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
        part = part_of(source_notebook(master))  # raises when the header has no agstate: {part: ...}
        checked = {task.part for task in TASKS.values() if task.notebook == f"{master.stem}.ipynb"}
        assert checked <= {part}, f"{master.name} says part {part!r} but checks tasks of {sorted(checked)}"


# -- init --------------------------------------------------------------------------------------
def test_init_refuses_a_directory_that_is_not_empty_unless_forced(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / "notes.txt").write_text("mine")
    refused = init(course)
    assert refused.returncode == 2
    assert refused.stderr.startswith("agstate-course: ") and "is not empty" in refused.stderr and "--force" in refused.stderr
    assert sorted(p.name for p in course.iterdir()) == ["notes.txt"]
    forced = init(course, "--force", "--part", "state", "--seed", "7")
    assert forced.returncode == 0, forced.stderr
    assert (course / "notes.txt").read_text() == "mine"
    assert (course / "source" / ASSIGNMENT / "01_overwrite.ipynb").is_file()


def test_init_names_a_bad_part_or_assignment(tmp_path):
    unknown = init(tmp_path / "a", "--part", "nope")
    assert unknown.returncode == 2 and "unknown part 'nope'" in unknown.stderr
    slash = init(tmp_path / "b", "--assignment", "lab/1")
    assert slash.returncode == 2 and "assignment name 'lab/1'" in slash.stderr


def test_init_writes_the_config_nbgrader_needs(tmp_path):
    course = tmp_path / "course"
    assert init(course, "--lab", "state", "--seed", "99").returncode == 0  # --lab: the old name of --part
    config = {}
    exec((course / "nbgrader_config.py").read_text(), {"get_config": lambda: _Config(config)})
    assert config["CourseDirectory.root"] == str(course.resolve())
    assert config["CourseDirectory.db_url"] == f"sqlite:///{course.resolve() / 'gradebook.db'}"
    assert config["Exchange.root"] == str(course.resolve() / "exchange")
    source = course / "source" / ASSIGNMENT
    package = sorted(f"agstate/{p.name}" for p in (source / "agstate").glob("*.py"))
    assert "agstate/state.py" in package and "agstate/events.py" not in package
    assert config["Autograde.exclude_overwriting"] == {ASSIGNMENT: package}  # the student's package, all of it
    assert config["ScoreChecks.seed"] == 99 and config["ScoreChecks.parts"] == ["state"]
    assert config["ScoreChecks.seed_per_student"] is False
    assert "Execute" not in {step.__name__ for step in config["Autograde.autograde_preprocessors"]}
    assert "ClearOutput" not in {step.__name__ for step in config["Autograde.sanitize_preprocessors"]}
    graded = {}
    for path in sorted(source.glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade") and cell.cell_type == "code":
                graded[check_target(cell)] = meta["points"]
    assert graded == {task.id: task.max_score for task in tasks_of("state")}
    assert sum(graded.values()) == 100


def test_init_can_give_each_student_a_variant_for_autograde(tmp_path):
    """--seed-per-student reaches autograde's batch and its audit."""
    from traitlets.config import Config

    from grader.course.autograde import ScoreChecks

    course = tmp_path / "course"
    assert init(course, "--part", "state", "--seed", "99", "--seed-per-student").returncode == 0
    config = {}
    exec((course / "nbgrader_config.py").read_text(), {"get_config": lambda: _Config(config)})
    assert config["ScoreChecks.seed_per_student"] is True
    assert "--seed 99 --examples 80 --timeout 20 --seed-per-student" in (course / "nbgrader_config.py").read_text()
    scoring = ScoreChecks(config=Config({"ScoreChecks": {"seed": 99, "seed_per_student": True}}))
    assert scoring.settings()[-1] == "--seed-per-student"


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


def _edit(notebook_path: Path, change) -> None:
    notebook = nbformat.read(notebook_path, as_version=4)
    change(notebook)
    nbformat.write(notebook, notebook_path)


def _graded_cell(notebook, grade_id: str):
    return next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _tamper_with_checks(notebook) -> None:
    """Edit one check cell, give a copy of it 1,000 points."""
    cell = _graded_cell(notebook, "check-state-dedupe")
    cell.source = "15.0"
    copy = nbformat.from_dict(json.loads(json.dumps(cell)))
    copy.metadata.nbgrader["points"] = 1000
    notebook.cells.append(copy)


def _delete_a_check(notebook) -> None:
    notebook.cells = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "check-state-keep_max"]


def _saved_outputs(notebook) -> None:
    """What the student's own run left in an ungraded cell: text, and HTML with a script."""
    cell = next(c for c in notebook.cells if c.cell_type == "code" and "nbgrader" not in c.metadata)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="ben's own run printed this\n"),
                    nbformat.v4.new_output("display_data", data={"text/html": "<script>alert('ben')</script>",
                                                                 "text/plain": "ben's own display"})]


def _code_cell(source: str):
    cell = nbformat.v4.new_code_cell(source)
    del cell["id"]  # the released notebooks are nbformat 4.4, which has no cell ids
    return cell


def place_students(course: Path, release: Path) -> dict[str, str]:
    """Submissions under ``submitted/<student>/``, as after a collection from an LMS; who each one is."""
    state = Corpus("state")
    reference = (ROOT / "solutions" / "agstate" / "state.py").read_text()
    course_literal = repr(str(course))
    students = {  # student: (state.py or None for the stub, notebook changes, what they are)
        "ben": (state.mutant_source("keep_max_zero_is_absent"), {"01_overwrite.ipynb": _saved_outputs}, "buggy"),
        "cy": (state.mutant_source("output_leaks_notes"), {}, "buggy"),
        "dee": (None, {}, "the untouched stub"),
        "eve": (reference + EQUALS_ANYTHING, {}, "a value that equals anything"),
        "ivy": (reference + PROBE_THE_COURSE.replace("@COURSE@", course_literal), {}, "probes the course from her module"),
        "gina": (reference, {"02_append_and_budget.ipynb": WRITE_THE_GRADEBOOK}, "writes the gradebook from a cell"),
        "hal": (None, {"00_welcome.ipynb": SWAP_THE_GRADER}, "swaps the grader from a cell"),
        "jo": (None, {"03_dedupe.ipynb": _tamper_with_checks, "04_keep_max.ipynb": _delete_a_check}, "edits check cells"),
    }
    for student, (source, changes, _) in students.items():
        submission = course / "submitted" / student / ASSIGNMENT
        shutil.copytree(release, submission)
        if source is not None:
            (submission / "agstate" / "state.py").write_text(source)
        for name, change in changes.items():
            if isinstance(change, str):  # a code cell the tamperer added
                code = change.replace("@COURSE@", course_literal)
                change = lambda notebook, code=code: notebook.cells.append(_code_cell(code))  # noqa: E731
            _edit(submission / name, change)
    def answer(notebook):
        for cell in notebook.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("prediction"):
                cell.source = "Only the last write, ['finish']: there is no reducer." + SCRIPT_IN_MARKDOWN
    _edit(course / "submitted" / "ben" / ASSIGNMENT / "01_overwrite.ipynb", answer)
    # A page that release_feedback would hand back: a link to the gradebook, followed by nbgrader's copy.
    (course / "submitted" / "cy" / ASSIGNMENT / "stolen.html").symlink_to(course / "gradebook.db")
    shutil.copytree(release, course / "submitted" / "gus" / ASSIGNMENT, ignore=shutil.ignore_patterns("agstate"))
    return {**{student: what for student, (_, _, what) in students.items()}, "gus": "no agstate/ package"}


# -- the whole flow ----------------------------------------------------------------------------
def _gradebook_rows(course: Path) -> list[tuple]:
    with sqlite3.connect(course / "gradebook.db") as db:
        return db.execute("SELECT base_cell.name, grade.auto_score, grade.manual_score, grade.extra_credit "
                          "FROM grade JOIN base_cell ON base_cell.id = grade.cell_id").fetchall()


@pytest.mark.slow
def test_autograde_runs_no_student_cell_and_scores_equal_agstate_grade(tmp_path):
    course = tmp_path / "course"
    made = init(course, "--part", "state", "--seed", str(SEED), "--examples", str(EXAMPLES), "--timeout", str(TIMEOUT))
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
    everyone = [by_exchange, *students]

    graded = run(BIN / "nbgrader", "autograde", ASSIGNMENT, "--force", cwd=course)
    assert graded.returncode == 0, graded.stderr[-4000:]
    feedback_run = run(BIN / "nbgrader", "generate_feedback", ASSIGNMENT, "--force", cwd=course)
    assert feedback_run.returncode == 0, feedback_run.stderr[-3000:]
    assert run(BIN / "nbgrader", "export", "--to", course / "nbgrader-grades.csv", cwd=course).returncode == 0
    exported = {row["student_id"]: float(row["score"]) for row in csv.DictReader((course / "nbgrader-grades.csv").open())}

    # No student cell ran: nothing a tamperer's cell does happened, and the gradebook holds only autograde's scores.
    assert not [p.name for p in course.iterdir() if p.name.startswith(("tampered-", "probe-")) or p.name == "grader"]
    rows = _gradebook_rows(course)
    assert rows and all(manual is None and extra is None for _, _, manual, extra in rows), rows[:5]

    paths = [course / "submitted" / student / ASSIGNMENT for student in everyone]
    ours = run(sys.executable, "-m", "grader", *paths, "--json", "--part", "state", "--seed", SEED,
               "--examples", EXAMPLES, "--timeout", TIMEOUT, cwd=ROOT)
    reports = dict(zip(everyone, json.loads(ours.stdout)))
    assert set(exported) == set(everyone)
    for student in everyone:
        assert exported[student] == pytest.approx(reports[student]["score"]), (student, reports[student])

    # The scores themselves: each student loses exactly what they deserve, and tampering gains nothing.
    by_task = {student: {t["id"]: t["score"] for t in report["tasks"]} for student, report in reports.items()}
    lost = {student: sorted(t for t, score in tasks.items() if score < TASKS[t].max_score)
            for student, tasks in by_task.items()}
    assert exported[by_exchange] == exported["ivy"] == exported["gina"] == 100, exported
    assert exported["dee"] == exported["gus"] == exported["hal"] == exported["jo"] == 0, exported
    assert lost["ben"] == ["state.keep_max"] and lost["cy"] == ["state.schemas"] and lost["eve"] == ["state.dedupe"]

    # The log: each tampering named, per student; no other warning, no traceback, no kernel.
    log = graded.stderr
    assert "Traceback" not in log and "Kernel" not in log and "SAWarning" not in log, log[-3000:]
    tampering = [line for line in log.splitlines() if "Tampering by student" in line]
    assert {line.split("'")[1] for line in tampering} == {"jo"}
    for said in ("locked cell check-state-dedupe was edited", "grade id check-state-dedupe is on 2 cells",
                 "cell check-state-keep_max is missing"):
        assert any(said in line for line in tampering), (said, tampering)
    others = [line for line in log.splitlines() if "WARNING" in line and line not in tampering
              and "Removing existing assignment" not in line  # --force regrades what exists
              and "Permissions: " not in line  # this checkout's solutions/ may be readable by others (a clone in /tmp)
              and "is the reference solution, byte for byte" not in line]  # the class here is built from it
    # cy's link, which nbgrader's copy into autograded/ followed: named, and taken out before grading and feedback.
    removed = [line for line in others if "Submission of student 'cy': stolen.html is a symbolic link to" in line]
    others = [line for line in others if line not in removed]
    assert removed
    assert all("for cell check-state-dedupe has changed" in line for line in others), others

    # The audit: jo's changes and cy's link, nothing else; every gradebook score is the grader's.
    audit = run(BIN / "agstate-course", "audit", cwd=course)
    assert audit.returncode == 1, audit.stdout + audit.stderr
    listed = [line.strip() for line in audit.stdout.splitlines() if line.startswith("  ")]
    copies = {line.split(":")[0] for line in listed if line.endswith("agstate/state.py is the reference solution, byte for byte")}
    listed = [line for line in listed if "permissions:" not in line and "is the reference solution" not in line]
    assert f"cy: stolen.html is a symbolic link to {str(course / 'gradebook.db')!r}, which is never graded" in listed
    assert listed and all(line.startswith("jo: ") for line in listed if not line.startswith("cy: ")), audit.stdout
    assert f"{len(copies | {'jo', 'cy'})} of 10 submissions need a look" in audit.stdout
    dedupe = "cell_id IN (SELECT id FROM base_cell WHERE name = 'check-state-dedupe')"
    with sqlite3.connect(course / "gradebook.db") as db:  # a gradebook changed behind nbgrader's back
        db.execute(f"UPDATE grade SET extra_credit = 2 WHERE {dedupe}")
    changed = run(BIN / "agstate-course", "audit", cwd=course)
    assert changed.returncode == 1 and "10 of 10 submissions need a look" in changed.stdout
    assert f"  {by_exchange}: state.dedupe: the gradebook has 17 (extra credit 2), agstate-grade gives 15" in changed.stdout
    with sqlite3.connect(course / "gradebook.db") as db:
        db.execute(f"UPDATE grade SET extra_credit = NULL WHERE {dedupe}")

    # Feedback: one summary page per student linking each notebook's page; the student's own saved
    # outputs as text; never HTML or script from a submission, never a grader traceback.
    feedback = course / "feedback"
    notebooks = sorted(release.glob("*.ipynb"))
    for student in everyone:
        folder = feedback / student / ASSIGNMENT
        pages = [folder / f"{n.stem}.html" for n in notebooks]
        assert all(page.is_file() for page in pages), student
        summary = (folder / "index.html").read_text()
        assert f"{reports[student]['score']:g} / 100" in summary
        linked = {n.stem for n in notebooks if f"href='{n.stem}.html'" in summary}
        assert linked == {Path(task.notebook).stem for task in tasks_of("state")}, student
        text = "\n".join(page.read_text() for page in pages)
        assert not [leak for leak in ("grader/engine/checking.py", "grader/engine/runner.py", "site-packages/hypothesis") if leak in text]
    ben = (feedback / "ben" / ASSIGNMENT / "01_overwrite.html").read_text()
    assert "ben&#39;s own run printed this" in ben or "ben's own run printed this" in ben
    assert "alert(&#39;ben&#39;)" not in ben and "alert('ben')" not in ben
    assert "Only the last write" in ben and not LIVE_HTML.search(ben)  # shown as text, never as a live tag
    assert not (feedback / "cy" / ASSIGNMENT / "stolen.html").exists()
    gus = feedback / "gus" / ASSIGNMENT
    assert "missing: the submission has no agstate/__init__.py" in (gus / "03_dedupe.html").read_text()
    assert "missing" in (gus / "index.html").read_text()
    dee = (feedback / "dee" / ASSIGNMENT / "03_dedupe.html").read_text()
    assert "merge_sources() is not written yet" in dee
    jo = (feedback / "jo" / ASSIGNMENT / "index.html").read_text()
    assert "Changed graded cells" in jo and "check-state-keep_max is missing" in jo

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
        page = requests.get(f"{base}/formgrader/submissions/{ben['id']}", headers=auth, timeout=60)
        assert page.ok and "Only the last write" in page.text
        assert not LIVE_HTML.search(page.text)
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

    # A student checks a notebook with nbgrader validate: a missing package says so, not "Partial credit".
    validated = run(BIN / "nbgrader", "validate", "03_dedupe.ipynb", cwd=course / "submitted" / "gus" / ASSIGNMENT)
    assert "state.dedupe: 0 / 15 error: missing: the submission has no agstate/__init__.py" in validated.stdout, \
        validated.stdout[-2000:]
