"""What a correct answer does in Part F, written from docs/reference/part-f.md: the grading side's own copy.

The form, the releases and the tags reducer are the grader's, never read
from the learner's ``agstate/approvals.py``: a learner who edits theirs
changes nothing the grader expects.
"""

import copy

from grader.i18n import _, ngettext

__all__ = ["FORM", "VERSIONS", "NAMES", "CURRENT", "REDUCED", "merge_tags", "meant", "misfit", "model_upgrade", "model_migrate",
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
    held, why = _edited(key, current, edit)
    return why is None, held


def misfit(key: str, current, edit) -> str | None:
    """Why the edit does not fit ``key``, in the learner's words (None when it fits)."""
    return _edited(key, current, edit)[1]


def _kind_of(value) -> str:
    return _("a {type}").format(type=type(value).__name__)


def _edited(key: str, current, edit) -> tuple[object, str | None]:
    """What ``key`` holds after ``edit``, and None; or None and why the edit does not fit."""
    if key not in ("draft", "notes", "tags"):
        return None, _("{key} is not a key of ReviewState (draft, notes, tags)").format(key=repr(key))
    if not isinstance(edit, (tuple, list)) or not edit:
        return None, _("{edit} is not an edit: an edit is a tuple such as ('replace', value)").format(edit=repr(edit))
    kind, args = edit[0], list(edit[1:])
    if kind not in ("replace", "correct", "remove"):
        return None, _("{kind} is not a kind of edit (replace, correct, remove)").format(kind=repr(kind))
    if kind != "replace" and key == "draft":
        return None, _("draft holds a str: ({kind}, ...) is an edit of a list key").format(kind=repr(kind))
    parts = {"replace": 1, "correct": 2, "remove": 1}[kind]
    if len(args) != parts:
        return None, ngettext("a {kind} edit has {parts} part after its kind, not {count}",
                              "a {kind} edit has {parts} parts after its kind, not {count}", parts).format(
                         kind=repr(kind), parts=parts, count=len(args))
    if kind == "replace":
        value = args[0]
        if key == "draft":
            return (value, None) if isinstance(value, str) else (None, _("draft holds a str, and {value} is {kind_of}").format(
                                                                           value=repr(value), kind_of=_kind_of(value)))
        if not isinstance(value, list):
            return None, _("{key} holds a list of str, and {value} is {kind_of}, not a list").format(
                             key=key, value=repr(value), kind_of=_kind_of(value))
        wrong = next((item for item in value if not isinstance(item, str)), None)
        return (value, None) if wrong is None else (None, _("{key} holds a list of str, and {wrong} in it is {kind_of}").format(
                                                              key=key, wrong=repr(wrong), kind_of=_kind_of(wrong)))
    index = args[0]
    if isinstance(index, bool):
        return None, _("{index} is a bool, not an index; a bool passes isinstance(index, int), so refuse it first").format(
                         index=repr(index))
    if type(index) is not int:
        return None, _("{index} is {kind_of}, not an int index").format(index=repr(index), kind_of=_kind_of(index))
    if not 0 <= index < len(current):
        return None, _("{index} is not an index of its {count} items (0 to {value})").format(
                         index=index, count=len(current), value=len(current) - 1)
    result = list(current)
    if kind == "remove":
        del result[index]
        return result, None
    if not isinstance(args[1], str):
        return None, _("{key} holds str items, and {args} is {kind_of}").format(key=key, args=repr(args[1]), kind_of=_kind_of(args[1]))
    result[index] = args[1]
    return result, None


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
