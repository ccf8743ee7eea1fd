"""``agstate-course practice-log``: the grading service's log, as an instructor reads it, without root.

The service appends a JSON line per request to ``agstate-checks.jsonl`` in
its folder, which the instructors' group may read (``make grading-service``
makes it so; the service refuses to start where anyone else may). This
prints, per student, how many checks they asked for and how they ended,
their latest graded check, and every grader failure with the grader's own
message (``detail``), which students never see; ``--student`` lists one
student's lines. A line a crash cut short is passed over, as the service does.
"""

import datetime
import json
from collections import Counter, defaultdict
from pathlib import Path

from grader.course.configs import CourseError

__all__ = ["read_log", "render", "run"]


def read_log(path: Path) -> list[dict]:
    try:
        content = path.read_bytes()
    except PermissionError:
        raise CourseError(f"cannot read {path}: the service's log is for the instructors' group (sudo usermod -aG "
                          "agstate-instructors <you>, then log in again)") from None
    except OSError as error:
        raise CourseError(f"cannot read {path}: {error.strerror}") from None
    entries = []
    for line in content.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("student"), str):
            entries.append(entry)
    return entries


def _when(entry: dict) -> str:
    try:
        return f"{datetime.datetime.fromtimestamp(float(entry['time']), datetime.UTC):%Y-%m-%d %H:%M:%S} UTC"
    except (KeyError, TypeError, ValueError, OverflowError):
        return "(no time)"


def _line(entry: dict) -> str:
    said = f"{entry.get('target') or 'every part'}"
    if entry.get("outcome") == "graded":
        said += f": {entry.get('score', 0):g} / {entry.get('max_score', 0):g} in {entry.get('seconds', 0):g} s"
    elif entry.get("why"):
        said += f": {entry['why']}"
    return f"{_when(entry)}  {entry.get('outcome', '?'):<14} {said}"


def render(entries: list[dict], student: str | None = None) -> str:
    if student is not None:
        mine = [entry for entry in entries if entry["student"] == student]
        return "\n".join([f"{student}: {len(mine)} lines", *(f"  {_line(entry)}" for entry in mine)])
    by_student: dict[str, list[dict]] = defaultdict(list)
    for entry in entries:
        by_student[entry["student"]].append(entry)
    lines = [f"{len(by_student)} students, {len(entries)} lines"]
    for name in sorted(by_student):
        outcomes = Counter(entry.get("outcome", "?") for entry in by_student[name])
        graded = [entry for entry in by_student[name] if entry.get("outcome") == "graded"]
        latest = f"; latest graded: {_line(graded[-1])}" if graded else ""
        counted = ", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes.items()))
        lines.append(f"  {name}: {counted}{latest}")
    failures = [entry for entry in entries if entry.get("outcome") == "grader failure"]
    if failures:
        lines.append(f"grader failures (the grader's, not the students': tell the lab's maintainers): {len(failures)}")
        lines += [f"  {entry['student']} {_line(entry)}: {str(entry.get('detail', ''))[:500]}" for entry in failures]
    return "\n".join(lines)


def run(args) -> int:
    print(render(read_log(args.log), args.student))
    return 0

