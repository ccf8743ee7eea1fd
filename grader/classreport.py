"""What a class got wrong, from a batch's log alone: the data of ``agstate-grade report`` (``grader.reportpage`` draws it).

Every score comes from named rules with shrunk counterexamples, so the log
(``--out FILE`` writes ``FILE.jsonl``) already says which mistakes a class
makes. A failure's *shape* is its call and the kind of difference between
what was expected and what came back ("append: a string split into
characters"), never the values themselves: forty students who keep the last
duplicate each shrink to a different example, and share one shape.

Counts are over the students who started the part: a student who has not
(every task of it ``not_implemented``) is listed apart, not counted as
failing each of its rules.
"""

import json
import re
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from grader.students import student_id
from grader.tasks import PARTS, TASKS

__all__ = ["ClassSummary", "RuleFailures", "Shape", "summarize", "shape_of", "difference"]

_DOWN = ("crashed", "timeout")  # statuses that say the learner's process died or ran over, not a wrong answer


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
    down: list  # (student, task id, status, feedback): crashed or timed-out tasks
    tasks: list  # (task id, failing, started), worst first
    rules: list  # RuleFailures, worst first
    total_scores: list = field(default_factory=list)  # percent of the whole, per student


def summarize(reports: list[dict]) -> ClassSummary:
    """The class's figures from its reports (the log's last record per submission)."""
    order = {part.name: index for index, part in enumerate(PARTS)}
    parts = sorted({task["part"] for report in reports for task in report["tasks"]}, key=lambda p: order.get(p, 99))
    scores, not_started, down = defaultdict(list), defaultdict(list), []
    task_counts, rule_counts = Counter(), Counter()
    started_counts = Counter()
    shapes: dict = defaultdict(dict)  # (task, rule) -> shape text -> Shape
    rule_order: dict = {}
    for report in sorted(reports, key=lambda r: r["submission"]):
        student = student_id(report["submission"])
        for part in parts:
            mine = [task for task in report["tasks"] if task["part"] == part]
            if not mine:
                continue
            if all(task["status"] == "not_implemented" for task in mine):
                not_started[part].append(student)
                continue
            started_counts[part] += 1
            points = sum(task["max_score"] for task in mine)
            scores[part].append(100.0 * sum(task["score"] for task in mine) / points if points else 0.0)
            for task in mine:
                task_counts[task["id"]] += task["status"] != "passed"
                if task["status"] in _DOWN:
                    down.append((student, task["id"], task["status"], task.get("feedback", "")))
                for rule in task.get("rules", []):
                    key = (task["id"], rule["rule"])
                    rule_order.setdefault(key, len(rule_order))
                    if rule["status"] == "passed":
                        continue
                    rule_counts[key] += 1
                    text = shape_of(rule)
                    found = shapes[key].setdefault(text, Shape(text))
                    found.students += 1
                    example = rule.get("feedback", "")
                    if not found.example or (len(example), example) < (len(found.example), found.example):
                        found.example = example
    total_points = [sum(task["max_score"] for task in report["tasks"]) for report in reports]
    totals = [100.0 * report["score"] / points if points else 0.0 for report, points in zip(reports, total_points)]
    medians = {part: statistics.median(scores[part]) for part in parts if scores[part]}
    if totals:
        medians["total"] = statistics.median(totals)
    task_ids = [task_id for task_id in TASKS if task_id in task_counts] + sorted(set(task_counts) - set(TASKS))
    tasks = [(task_id, task_counts[task_id], started_counts[_part_of(task_id, reports)]) for task_id in task_ids]
    tasks.sort(key=lambda row: (-_share(row[1], row[2]), task_ids.index(row[0])))
    rules = [RuleFailures(task_id, rule, rule_counts[(task_id, rule)], started_counts[_part_of(task_id, reports)],
                          sorted(shapes[(task_id, rule)].values(), key=lambda s: (-s.students, s.text)))
             for (task_id, rule) in rule_order if rule_counts[(task_id, rule)]]
    rules.sort(key=lambda r: (-_share(r.failing, r.started), rule_order[(r.task, r.rule)]))
    logged = [report.get("logged") or {} for report in reports]
    times = sorted(entry["at"] for entry in logged if isinstance(entry.get("at"), str))
    return ClassSummary(
        students=len(reports),
        seeds=sorted({report["seed"] for report in reports}),
        batch_seeds=sorted({report.get("batch_seed", report["seed"]) for report in reports}),
        graded_by=sorted({entry["by"] for entry in logged if isinstance(entry.get("by"), str)}),
        graded_at=(times[0], times[-1]) if times else ("", ""),
        regraded=sorted((student_id(report["submission"]), entry["at"]) for report, entry in zip(reports, logged)
                        if entry.get("regraded") and isinstance(entry.get("at"), str)),
        parts=parts, scores=dict(scores), medians=medians, not_started=dict(not_started), down=down,
        tasks=tasks, rules=rules, total_scores=totals)


def _part_of(task_id: str, reports: list[dict]) -> str:
    if task_id in TASKS:
        return TASKS[task_id].part
    return next(task["part"] for report in reports for task in report["tasks"] if task["id"] == task_id)


def _share(failing: int, started: int) -> float:
    return failing / started if started else 0.0


def shape_of(rule: dict) -> str:
    """A failing rule's shape: its call and kind of difference, or, with no counterexample, its feedback's wording."""
    example = rule.get("counterexample")
    if isinstance(example, dict) and "call" in example:
        if "never mutate" in rule.get("feedback", ""):  # the rules' one wording for a changed argument
            return f"{_generic(str(example['call']))}: changed its argument"
        return f"{_generic(str(example['call']))}: {difference(example.get('expected'), example.get('got'))}"
    if rule["status"] in ("error", *_DOWN) and not rule.get("feedback"):
        return rule["status"]
    return _wording(rule.get("feedback", "") or rule["status"])


def _generic(call: str) -> str:
    return re.sub(r"-?\d+(\.\d+)?", "n", call)  # windowed(1) and windowed(7) are one call


def _wording(feedback: str) -> str:
    """The feedback without its values: strings, numbers and bracketed contents replaced, so the same mistake reads
    the same for every student."""
    text = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "'…'", feedback)
    for _ in range(3):  # innermost brackets first
        text = re.sub(r"\[[^\[\]]*\]", "[…]", text)
        text = re.sub(r"\{[^{}]*\}", "{…}", text)
    text = re.sub(r"-?\d+(\.\d+)?", "n", text)
    return text if len(text) <= 160 else text[:157] + "..."


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
        return got.split(":")[0]  # "raised TypeError"
    if isinstance(expected, str) and isinstance(got, str) and " " in expected and " " in got:
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
