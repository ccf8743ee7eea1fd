"""What a correct answer does in Part F, written from docs/reference/part-f.md: the grading side's own copy.

The form, the releases and the tags reducer are the grader's, never read
from the learner's ``agstate/approvals.py``: a learner who edits theirs
changes nothing the grader expects.
"""

import copy

__all__ = ["FORM", "VERSIONS", "NAMES", "CURRENT", "REDUCED", "merge_tags", "meant", "model_upgrade", "model_migrate",
           "release_keys", "lines_key", "new_line", "total_of"]

FORM = ["size", "colour", "gift_wrap", "engraving", "delivery_day"]
VERSIONS = {
    1: {"version": "last", "items": "append", "total": "last"},
    2: {"version": "last", "lines": "append", "total": "last"},
    3: {"version": "last", "lines": "append", "total": "last", "currency": "last", "archive": "last"},
}
CURRENT = 3
NAMES = {key for keys in VERSIONS.values() for key in keys}  # a key no release has is none of these
REDUCED = {"notes", "tags"}  # ReviewState's keys with a reducer; draft keeps the last write


def merge_tags(old, new):
    """The provided tags reducer: union, first-seen order."""
    merged = list(old or [])
    for tag in new:
        if tag not in merged:
            merged.append(tag)
    return merged


def meant(key: str, current, edit) -> tuple[bool, object]:
    """(whether the edit fits ``key``, what ``key`` then holds)."""
    if key not in ("draft", "notes", "tags") or not isinstance(edit, (tuple, list)) or not edit:
        return False, None
    kind, args = edit[0], list(edit[1:])
    if kind == "replace" and len(args) == 1:
        value = args[0]
        if key == "draft":
            return isinstance(value, str), value
        return isinstance(value, list) and all(isinstance(v, str) for v in value), value
    if kind not in ("correct", "remove") or key == "draft" or not args:
        return False, None
    index = args[0]
    if type(index) is not int or not 0 <= index < len(current):
        return False, None
    result = list(current)
    if kind == "remove" and len(args) == 1:
        del result[index]
        return True, result
    if kind == "correct" and len(args) == 2 and isinstance(args[1], str):
        result[index] = args[1]
        return True, result
    return False, None


def model_upgrade(values: dict, version: int) -> dict:
    values = copy.deepcopy(values)
    if version == 1:
        return {**{("lines" if key == "items" else key): value for key, value in values.items()}, "version": 2}
    kept = {key: value for key, value in values.items() if key in NAMES}
    if "lines" in kept:
        kept["lines"] = [{"text": line, "qty": 1} for line in kept["lines"]]
    return {**kept, "version": 3, "currency": "EUR", "archive": {k: v for k, v in values.items() if k not in NAMES}}


def model_migrate(values: dict, version: int) -> dict:
    for release in range(version, CURRENT):
        values = model_upgrade(values, release)
    return copy.deepcopy(values)


def release_keys(version: int) -> list[str]:
    return list(VERSIONS[version])


def lines_key(version: int) -> str:
    return "items" if version == 1 else "lines"


def new_line(version: int):
    """The line each release's ``add`` appends."""
    return {"text": "x", "qty": 1} if version == CURRENT else "x"


def total_of(lines: list, version: int) -> int:
    return sum(line["qty"] for line in lines) if version == CURRENT else len(lines)
