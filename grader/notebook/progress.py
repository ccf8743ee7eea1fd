"""The progress view, ``check()`` with no target, without grading what cannot have changed.

Grading the whole lab takes about a minute the first time in a kernel (every
task of six parts, each in a sandboxed process, its examples drawn). Most of
it is spent where nothing is new:

- a part whose module is still the stub as released is not started: its
  tasks are shown so ("not started: begin with notebook …") without a
  learner process;
- a part whose every task was checked before, from a kernel of this
  environment, on exactly the files of ``agstate/`` there are now, is shown
  with those results (``remember`` keeps each check's results, per
  workspace, in the user's cache: ``grader.caches.cache_home``), when they
  were said in the language the learner reads now.

Only the other parts are graded, as ``check("<part>")`` grades them. It is
the learner's own view of their progress: the instructor's grading never
reads this cache. The kernel side: no engine, no Hypothesis.
"""

import hashlib
import json
import os
from pathlib import Path

from grader.caches import cache_home
from grader.catalog import MODULES, PARTS, TASKS
from grader.i18n import _, language
from grader.reports.report import Report

__all__ = ["plan", "remember", "assemble", "not_started"]

_VERSION = 2  # of the cache's shape: a change forgets what older checks kept (2: each result's language)


def _digest(workspace: Path) -> str:
    """The files of ``agstate/`` as a check grades them: their names and bytes."""
    found = hashlib.sha256()
    package = workspace / "agstate"
    for path in sorted(package.rglob("*.py")) if package.is_dir() else []:
        found.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes() + b"\0")
    return found.hexdigest()


def _grader_digest() -> str:
    """What the results depend on besides the files: the catalog of tasks, and this grader's own files' times."""
    grader = Path(__file__).resolve().parent.parent
    stamp = [f"{path.relative_to(grader)}:{path.stat().st_mtime_ns}" for path in sorted(grader.rglob("*.py"))]
    catalog = [(task.id, task.max_score) for task in TASKS.values()]
    return hashlib.sha256(json.dumps([_VERSION, catalog, stamp]).encode()).hexdigest()


def _cache_file(workspace: Path) -> Path:
    return cache_home() / "checks" / (hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:32] + ".json")


def _load(workspace: Path) -> dict:
    try:
        kept = json.loads(_cache_file(workspace).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) and kept.get("grader") == _grader_digest() else {}


def remember(workspace: Path, report: Report) -> None:
    """Keep each task result of ``report`` (a local check of ``workspace``) against the files it was graded on."""
    kept = _load(workspace)
    tasks = kept.get("tasks") if isinstance(kept.get("tasks"), dict) else {}
    files = _digest(workspace)
    for task in report.get("tasks", []):
        tasks[task["id"]] = {"files": files, "lang": language(), "result": task, "seed": report.get("seed"),
                             "sandbox": report.get("sandbox"), "integrity": report.get("integrity")}
    path = _cache_file(workspace)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"grader": _grader_digest(), "tasks": tasks}), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass  # no cache: the next progress view grades again


def _released_stub(module: str) -> bytes | None:
    """The exercise module as the kit released it (``agstate/`` beside the installed grader), or None."""
    path = Path(__file__).resolve().parent.parent.parent / "agstate" / f"{module}.py"
    try:
        return path.read_bytes()
    except OSError:
        return None


def not_started(part: str) -> list[dict]:
    """The results of an untouched part's tasks, as a grading of its stub gives them, said as not started."""
    first = next(p.first_notebook for p in PARTS if p.name == part)
    return [{"id": task.id, "part": part, "lab": part, "score": 0.0, "max_score": float(task.max_score), "cases": 0,
             "status": "not_implemented", "integrity": "calls", "counterexample": None,
             "feedback": _("not started: agstate/{module}.py is as released; begin with notebook {notebook}").format(
                 module=MODULES[part], notebook=first)}
            for task in TASKS.values() if task.part == part]


def plan(workspace: Path) -> tuple[list[str], dict[str, dict]]:
    """The parts to grade, and what is known of the others' tasks without grading (task id -> a kept entry)."""
    kept = _load(workspace).get("tasks") or {}
    files = _digest(workspace)
    to_grade, known = [], {}
    for part in MODULES:
        module = workspace / "agstate" / f"{MODULES[part]}.py"
        stub = _released_stub(MODULES[part])
        try:
            untouched = stub is not None and module.read_bytes() == stub
        except OSError:
            untouched = False  # no module: graded, so the report says what is missing
        if untouched:
            known.update({task["id"]: {"result": task} for task in not_started(part)})
            continue
        ids = [task_id for task_id in TASKS if TASKS[task_id].part == part]
        # A result kept in another language is graded again: its sentences would not be the learner's now.
        if all(isinstance(kept.get(task_id), dict) and kept[task_id].get("files") == files
               and kept[task_id].get("lang") == language() for task_id in ids):
            known.update({task_id: kept[task_id] for task_id in ids})
        else:
            to_grade.append(part)
    return to_grade, known


def assemble(workspace: Path, known: dict[str, dict], graded: dict | None) -> dict:
    """One report of the whole lab, in the catalog's order: the graded parts' results, the others' as known."""
    results = {task["id"]: task for task in (graded or {}).get("tasks", [])}
    tasks = [results.get(task_id) or known[task_id]["result"] for task_id in TASKS]
    kept = [entry for entry in known.values() if "seed" in entry]
    seed = (graded or {}).get("seed", kept[0]["seed"] if kept else 0)
    sandbox = (graded or {}).get("sandbox") or next((entry["sandbox"] for entry in kept if entry.get("sandbox")), "bubblewrap")
    return {"submission": (graded or {}).get("submission", str(workspace)), "seed": seed,
            "score": round(sum(task["score"] for task in tasks), 2), "max_score": float(sum(t["max_score"] for t in tasks)),
            "sandbox": sandbox, "integrity": "calls" if all(t.get("integrity", "calls") == "calls" for t in tasks) else "probes",
            "tasks": tasks}
