"""What a class got wrong, from a batch's log alone: the data of ``agstate-grade report`` (``grader.reports.class_page`` draws it).

Every score comes from named rules with shrunk counterexamples, so the log
(``--out FILE`` writes ``FILE.jsonl``) already says which mistakes a class
makes. A failure's *shape* is its call and the kind of difference between
what was expected and what came back ("append: a string split into
characters"), never the values themselves: forty students who keep the last
duplicate each shrink to a different example, and share one shape.

Counts are over the students whose part was graded: a student who has not
started it (every task ``not_implemented``) or whose module did not load
(every task an error without a rule checked) is listed apart, not counted
as failing each of its rules; a task not written yet is counted apart from
the failing ones, and its rules are not mistakes. Shapes never carry what a
submission wrote: an exception of its own is "an exception of its own", a
description the grader did not write is "a different value".
"""

import builtins
import json
import re
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from grader.catalog import PARTS, TASKS
from grader.i18n import _, english, source
from grader.reports.report import Report, points
from grader.reports.students import student_of

__all__ = ["ClassSummary", "RuleFailures", "Shape", "TaskMistakes", "summarize", "shape_of", "difference"]

# Statuses that say the learner's process died or ran over, or the grader itself failed: not a wrong answer.
_DOWN = ("crashed", "timeout", "grader_error")


@dataclass
class Shape:
    """One kind of failure of a rule: how many students share it and the shortest example of it (no name)."""

    text: str
    students: int = 0
    example: str = ""


@dataclass
class RuleFailures:
    task: str
    rule: str
    failing: int  # students who started the part and fail this rule
    started: int  # students who started the part
    shapes: list = field(default_factory=list)  # Shape, most shared first


@dataclass
class TaskMistakes:
    """A task's failing students and the shapes of their failures, each student counted once per shape."""

    task: str
    failing: int
    started: int
    shapes: list = field(default_factory=list)  # Shape, most shared first


@dataclass
class ClassSummary:
    students: int
    seeds: list  # the distinct seeds graded with (one per student with --seed-per-student)
    batch_seeds: list  # the batch seeds (--seed-per-student's; else the same as seeds)
    graded_by: list  # the grader versions the log records
    graded_at: tuple  # (first, last) time a record of the log was written, or ("", "")
    regraded: list  # (student, when)
    parts: list  # part names graded, in the lab's order
    scores: dict  # part -> [percent of the part's points, per student who started it]
    medians: dict  # part -> median percent over the students who started it, "total" -> over everyone
    not_started: dict  # part -> [student ids]
    not_loaded: dict  # part -> [(student id, the first line of the feedback)]: every task an error, no rule checked
    down: list  # (student, task id, status, feedback): crashed, timed out, the grader failed, or an error before any rule
    tasks: list  # (task id, failing, not written yet, started), worst first
    rules: list  # RuleFailures, worst first
    mistakes: list  # TaskMistakes, worst first
    total_scores: list = field(default_factory=list)  # percent of the whole, per student


def summarize(reports: list[Report]) -> ClassSummary:
    """The class's figures from its reports (the log's last record per submission)."""
    order = {part.name: index for index, part in enumerate(PARTS)}
    parts = sorted({task["part"] for report in reports for task in report["tasks"]}, key=lambda p: order.get(p, 99))
    scores, not_started, not_loaded, down = defaultdict(list), defaultdict(list), defaultdict(list), []
    task_counts, unwritten, rule_counts, started_counts = Counter(), Counter(), Counter(), Counter()
    shapes: dict = defaultdict(dict)  # (task, rule) -> shape text -> Shape
    by_task: dict = defaultdict(dict)  # task -> shape text -> Shape, a student once per shape
    rule_order: dict = {}
    for report in sorted(reports, key=lambda r: r["submission"]):
        student = student_of(report)
        for part in parts:
            mine = [task for task in report["tasks"] if task["part"] == part]
            if not mine:
                continue
            if all(task["status"] == "not_implemented" for task in mine):
                not_started[part].append(student)
                continue
            if all(task["status"] in ("error", *_DOWN) and not task.get("rules") for task in mine):
                not_loaded[part].append((student, mine[0].get("feedback", "").split(". ")[0]))
                continue
            started_counts[part] += 1
            score, top = points(mine)
            scores[part].append(100.0 * score / top if top else 0.0)
            for task in mine:
                unwritten[task["id"]] += task["status"] == "not_implemented"
                task_counts[task["id"]] += task["status"] not in ("passed", "not_implemented", "grader_error")
                if task["status"] in _DOWN or (task["status"] == "error" and not task.get("rules")):
                    down.append((student, task["id"], task["status"], task.get("feedback", "")))
                mine_shapes = set()
                for rule in task.get("rules", []):
                    # A rule is named by its sentence in the language the student was graded in: keyed by its English
                    # (its catalogs' msgid), one rule whatever the language of each student's report.
                    key = (task["id"], source(rule["rule"]))
                    rule_order.setdefault(key, len(rule_order))
                    if rule["status"] in ("passed", "not_implemented", "grader_error"):  # no mistake of the student's
                        continue
                    rule_counts[key] += 1
                    text = shape_of(rule)
                    _add(shapes[key], text, rule.get("feedback", ""))
                    if text not in mine_shapes:
                        mine_shapes.add(text)
                        _add(by_task[task["id"]], text, rule.get("feedback", ""))
    totals = [100.0 * report["score"] / report["max_score"] if report["max_score"] else 0.0 for report in reports]
    medians = {part: statistics.median(scores[part]) for part in parts if scores[part]}
    if totals:
        medians["total"] = statistics.median(totals)
    task_ids = [task_id for task_id in TASKS if task_id in task_counts] + sorted(set(task_counts) - set(TASKS))
    started = {task_id: started_counts[_part_of(task_id, reports)] for task_id in task_ids}
    tasks = [(task_id, task_counts[task_id], unwritten[task_id], started[task_id]) for task_id in task_ids]
    tasks.sort(key=lambda row: (-_share(row[1], row[3]), task_ids.index(row[0])))
    keys = sorted((key for key in rule_order if rule_counts[key]),
                  key=lambda key: (-_share(rule_counts[key], started[key[0]]), rule_order[key]))
    rules = [RuleFailures(task_id, _(rule), rule_counts[(task_id, rule)], started[task_id],  # in the reader's language
                          sorted(shapes[(task_id, rule)].values(), key=lambda s: (-s.students, s.text)))
             for (task_id, rule) in keys]
    mistakes = [TaskMistakes(task_id, failing, started[task_id],
                             sorted(by_task[task_id].values(), key=lambda s: (-s.students, s.text)))
                for task_id, failing, _unwritten, _started in tasks if by_task.get(task_id)]
    logged = [report.get("logged") or {} for report in reports]
    times = sorted(entry["at"] for entry in logged if isinstance(entry.get("at"), str))
    return ClassSummary(
        students=len(reports),
        seeds=sorted({report["seed"] for report in reports}),
        batch_seeds=sorted({report.get("batch_seed", report["seed"]) for report in reports}),
        graded_by=sorted({entry["by"] for entry in logged if isinstance(entry.get("by"), str)}),
        graded_at=(times[0], times[-1]) if times else ("", ""),
        regraded=sorted((student_of(report), entry["at"])
                        for report, entry in zip(reports, logged) if entry.get("regraded") and isinstance(entry.get("at"), str)),
        parts=parts, scores=dict(scores), medians=medians, not_started=dict(not_started), not_loaded=dict(not_loaded),
        down=down, tasks=tasks, rules=rules, mistakes=mistakes, total_scores=totals)


def _add(shapes: dict, text: str, example: str) -> None:
    """One more student of the shape ``text``; the shortest example is kept (ties: the first in text order)."""
    found = shapes.setdefault(text, Shape(text))
    found.students += 1
    if not found.example or (len(example), example) < (len(found.example), found.example):
        found.example = example


def _part_of(task_id: str, reports: list[Report]) -> str:
    if task_id in TASKS:
        return TASKS[task_id].part
    return next(task["part"] for report in reports for task in report["tasks"] if task["id"] == task_id)


def _share(failing: int, started: int) -> float:
    return failing / started if started else 0.0


def shape_of(rule: dict) -> str:
    """A failing rule's shape: its call and kind of difference, or, with no counterexample, its feedback's wording."""
    example = rule.get("counterexample")
    feedback = rule.get("feedback", "")
    if feedback and source(rule.get("rule", "")) != rule.get("rule", ""):  # graded in another language: its English
        feedback = english(feedback)  # one shape whatever language each student was graded in
    if isinstance(example, dict) and "call" in example:
        if "never mutate" in feedback:  # the rules' one wording for a changed argument
            return f"{_generic(str(example['call']))}: changed its argument"
        return f"{_generic(str(example['call']))}: {difference(example.get('expected'), example.get('got'))}"
    if rule["status"] in ("error", *_DOWN) and not feedback:
        return rule["status"]
    return _wording(feedback or rule["status"])


def _generic(call: str) -> str:
    return re.sub(r"-?\d+(\.\d+)?", "n", call)  # windowed(1) and windowed(7) are one call


def _wording(feedback: str) -> str:
    """The feedback without its values: strings, numbers and bracketed contents replaced, so the same mistake reads
    the same for every student; what the learner's exception says is cut (its class named only if built in)."""
    feedback = re.sub(r"raised (\w+)(: [^;]*)?", lambda m: _raised(m.group(1)), feedback)
    text = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "'…'", feedback)
    for _round in range(3):  # innermost brackets first
        text = re.sub(r"\[[^\[\]]*\]", "[…]", text)
        text = re.sub(r"\{[^{}]*\}", "{…}", text)
    text = re.sub(r"-?\d+(\.\d+)?", "n", text)
    return text if len(text) <= 160 else text[:157] + "..."


# A description the grader writes ("the argument itself", "old unchanged"): a few lower-case words. A learner's
# value could look so too; it is then at most a short, escaped phrase, never markup.
_GRADERS_WORDS = re.compile(r"[a-z][a-z ]{2,38}")


def _raised(name: str) -> str:
    """``raised TypeError``; an exception class a submission made up is not named (its name is the learner's text)."""
    known = isinstance(getattr(builtins, name, None), type) and issubclass(getattr(builtins, name), BaseException)
    return f"raised {name}" if known else "raised an exception of its own"


def _kind(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, (int, float)):
        return "a number"
    return {str: "a string", list: "a list", dict: "a dict"}.get(type(value), type(value).__name__)


def _hashable(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def difference(expected, got) -> str:
    """The kind of difference between an expected value and what came back, in words, without the values."""
    if isinstance(got, str) and got.startswith("raised "):
        return _raised(got.split(":")[0].removeprefix("raised ").strip())
    if isinstance(expected, str) and isinstance(got, str) and _GRADERS_WORDS.fullmatch(expected) and \
            _GRADERS_WORDS.fullmatch(got):
        return f"{got} instead of {expected}"  # the grader's own words (e.g. "the argument itself")
    if _kind(expected) != _kind(got):
        return f"{_kind(got)} instead of {_kind(expected)}"
    if isinstance(expected, bool):
        return f"{got} instead of {expected}"
    if isinstance(expected, (int, float)):
        return "too small" if got < expected else "too large"
    if isinstance(expected, list):
        return _list_difference(expected, got)
    if isinstance(expected, dict):
        missing, extra = sorted(set(expected) - set(got)), set(got) - set(expected)
        if missing or extra:
            return f"keys {', '.join(map(str, missing)) or 'none'} missing" + (", extra keys" if extra else "")
        wrong = sorted(str(key) for key in expected if _hashable(expected[key]) != _hashable(got[key]))
        return f"a different {', '.join(wrong[:3])}" + (" and more" if len(wrong) > 3 else "")
    return "a different value"


def _list_difference(expected: list, got: list) -> str:
    want, have = Counter(map(_hashable, expected)), Counter(map(_hashable, got))
    if want == have:
        return "the right items in the wrong order"
    missing, extra = want - have, have - want
    if not got:
        return "an empty list"
    if set(want) == set(have) and not missing:
        return "items repeated (duplicates kept)"
    if extra and all(isinstance(item, str) and len(item) == 1 for item in got) and any(
            isinstance(item, str) and len(item) > 1 for item in expected):
        return "a string split into characters"
    if missing and not extra:
        return "items missing" + (" (the first ones kept)" if got == expected[:len(got)] else
                                  " (the last ones kept)" if got == expected[-len(got):] else "")
    if extra and not missing:
        return "extra items"
    return "different items"
