"""What the grader writes is safe whatever the learner's code sent: strict JSON, printable text, bounded size.

A report carries data from the learner's process: return values in
counterexamples, exception messages, printed output, and the submission's
own folder name. ``clean`` makes a report safe to write anywhere: lone
surrogates (not encodable as UTF-8) become visible escapes, NaN and
infinities become strings (strict JSON has neither), and long strings and
containers are cut with a marker saying how much was left out (clean each
report on its own: a class's list of reports is never cut).
``for_terminal`` escapes control characters (ANSI escape codes, bidi
overrides) so a scorecard cannot rewrite the terminal it prints to.
``atomic_write`` writes a file (a gradebook, an LMS file, a class page) so
that nobody reads half of it and no link planted at its path is followed.
"""

import contextlib
import math
import os
import tempfile
import unicodedata
from pathlib import Path

from grader.i18n import LANGUAGES, N_, _, ngettext, translation

__all__ = ["clean", "for_terminal", "display_path", "further_failing", "same_cause", "shared_sentence", "other_causes",
           "also_sentence", "first_cause", "atomic_write", "ALSO", "MAX_TEXT", "MAX_ITEMS"]

# In a failing task's feedback, what follows its first failing rule: the other failing rules' sentences. A report
# speaks its learner's language: the scorecard cuts the feedback there in any of them (first_cause).
_ALSO_SAID = N_("Also not passing: {rules}.")
ALSO = " " + _ALSO_SAID.split("{rules}", 1)[0]  # the English words that begin it: " Also not passing: "


def further_failing(rules: list[dict]) -> list[dict]:
    """A task's failing rules after the first (its feedback shows that one in full), stubs left out: numbered from 2.

    The one list the report's feedback, the scorecard and ``check()`` all show.
    """
    broken = [rule for rule in rules if rule["status"] != "passed"]
    return [rule for rule in broken[1:] if rule["status"] != "not_implemented"]


def same_cause(rules: list[dict]) -> list[bool]:
    """For each of ``further_failing(rules)``: whether it broke with the first failing rule's own feedback and
    counterexample, one cause breaking several rules (a run that never pauses fails every rule judged on it)."""
    broken = [rule for rule in rules if rule["status"] != "passed"]
    if not broken:
        return []
    first = broken[0]
    return [rule.get("feedback") == first.get("feedback") and rule.get("counterexample") == first.get("counterexample")
            for rule in further_failing(rules)]


def shared_sentence(rules: list[dict]) -> str:
    """``" The same failure breaks 3 more rules: (2) ...; (3) ...; (4) ...."`` for the rules ``same_cause`` finds, or ""."""
    alike = [(number, rule) for (number, rule), same in zip(enumerate(further_failing(rules), 2), same_cause(rules)) if same]
    if not alike:
        return ""
    named = "; ".join(f"({number}) {rule['rule']}" for number, rule in alike)
    return " " + ngettext("The same failure breaks {count} more rule: {rules}.", "The same failure breaks {count} more rules: {rules}.",
                          len(alike)).format(count=len(alike), rules=named)


def also_sentence(numbered: list[tuple[int, dict]]) -> str:
    """``" Also not passing: (2) ...; (3) ...."`` for ``other_causes``' rules, in the learner's language."""
    return " " + _(_ALSO_SAID).format(rules="; ".join(f"({number}) {rule['rule']}" for number, rule in numbered))


def first_cause(feedback: str) -> str:
    """A task's feedback without its list of other failing rules (``also_sentence``), whichever language said it: a
    report read later (a class page, another learner's scorecard) may be in another language than the reader's."""
    for lang in LANGUAGES:
        feedback = feedback.split(" " + translation(lang).gettext(_ALSO_SAID).split("{rules}", 1)[0])[0]
    return feedback


def other_causes(rules: list[dict]) -> list[tuple[int, dict]]:
    """The further failing rules, numbered from 2, that broke for a cause of their own (not ``same_cause``)."""
    return [(number, rule) for (number, rule), same in zip(enumerate(further_failing(rules), 2), same_cause(rules))
            if not same]

MAX_TEXT = 2000  # characters of one string
MAX_ITEMS = 50  # items of one list or dict
MAX_DEPTH = 20
_SPENT = "…"  # a value past its budget (clean)


def display_path(path: str) -> str:
    """A path as text: bytes that are not UTF-8 (an LMS zip's folder names) shown as ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def clean(value, depth: int = 0, budget: list | None = None):
    """A copy of ``value`` (JSON data) that any JSON writer, log reader and terminal can take.

    Each string, list and dict is capped (``MAX_TEXT``, ``MAX_ITEMS``,
    ``MAX_DEPTH``). ``budget`` (``[characters]``, spent as strings are kept)
    caps the whole as well, for what the learner's code gave (a counterexample):
    once spent, each further value is one short marker, whatever its nesting;
    a dict's keys are always kept, so its shape stays. Cleaning a cleaned value
    with the same budget changes nothing.
    """
    if budget is not None and budget[0] <= 0 and isinstance(value, (dict, list, tuple)):
        return _SPENT
    if isinstance(value, str):
        text = value.encode("utf-8", "backslashreplace").decode("utf-8") if _has_surrogate(value) else value
        if budget is not None and budget[0] <= 0 and len(text) > 5:  # measured as kept: "\ud800" is six characters
            return _SPENT  # a short string stays (a float's "inf"): it cannot add up, and cleaning again keeps it
        if len(text) > MAX_TEXT:
            marker = f"… ({len(text) - MAX_TEXT + 40} more characters)"
            text = text[:MAX_TEXT - 40] + marker  # at most MAX_TEXT: cleaning it again changes nothing
        if budget is not None:
            budget[0] -= len(text)
        return text
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else clean(repr(value), depth, budget)
    if depth >= MAX_DEPTH:
        return clean("… (nested too deep to show)", depth, budget)
    # A cut container keeps MAX_ITEMS - 1 items and a marker: MAX_ITEMS in all, so cleaning is idempotent.
    if isinstance(value, dict):
        items = list(value.items())
        kept = items if len(items) <= MAX_ITEMS else items[:MAX_ITEMS - 1]
        out = {}
        for key, item in kept:
            name = clean(str(key), depth + 1)  # a key is never a marker: a budget spent leaves the dict its keys
            if budget is not None:
                budget[0] -= len(name)
            out[name] = clean(item, depth + 1, budget)
        if len(kept) < len(items):  # the marker counts as cleaning it again would count it
            if budget is not None:
                budget[0] -= 1
            out["…"] = clean(f"{len(items) - len(kept)} more keys", depth + 1, budget)
        return out
    if isinstance(value, (list, tuple)):
        kept = value if len(value) <= MAX_ITEMS else value[:MAX_ITEMS - 1]
        out = [clean(item, depth + 1, budget) for item in kept]
        if len(kept) < len(value):
            out.append(clean(f"… ({len(value) - len(kept)} more items)", depth + 1, budget))
        return out
    return clean(repr(value), depth, budget)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def for_terminal(text: str) -> str:
    """``text`` with control and format characters (ESC, CSI, bidi overrides) shown as escapes."""
    return "".join(char if char in "\n\t" or unicodedata.category(char) not in ("Cc", "Cf", "Cs", "Zl", "Zp")
                   else char.encode("unicode_escape").decode("ascii") for char in text)


@contextlib.contextmanager
def atomic_write(target, newline: str | None = None):
    """Write ``target`` in full or not at all: a text file opened beside it, moved over it once written.

    A reader never sees half a file, and a symbolic link planted at ``target``
    is replaced, never written through. ``newline``: as ``open`` takes it (the
    csv module wants ``""``).
    """
    target = Path(target)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}-", suffix=target.suffix)
    try:
        with os.fdopen(handle, "w", newline=newline, encoding="utf-8") as out:
            yield out
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
