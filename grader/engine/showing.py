"""The words of feedback, apart from the rules' machinery: values shown short, two values contrasted, counts.

A rule's failure is the sentence the learner reads: ``show`` writes a value
as Python, cut between words when long; ``contrast`` writes two long values
cut to the same window around their first difference; ``counted`` writes a
count in English; ``jsonable`` makes a counterexample's values the report's
JSON. ``grader.engine.checking`` and every part's rules and checks use them.
"""

import builtins
import reprlib

from grader.i18n import ngettext

__all__ = ["show", "contrast", "counted", "jsonable"]


class _Short(reprlib.Repr):
    """``reprlib``'s short repr, except that a string is cut only when it is longer than ``maxstring`` characters,
    and then between words: the words shown are whole."""

    def repr_str(self, x, level):
        if len(x) <= self.maxstring:
            return builtins.repr(x)
        half = (self.maxstring - 3) // 2
        head, tail = x[:half], x[len(x) - half:]
        if not x[half].isspace() and " " in head.strip():  # the head ends mid-word: end it at its last space
            head = head[:head.rstrip().rindex(" ") + 1]
        if not x[len(x) - half - 1].isspace() and " " in tail.strip():  # the tail starts mid-word
            tail = tail[len(tail) - len(tail.lstrip()) + tail.lstrip().index(" "):]
        # Quoted and escaped as one string, the cut marked by a character no feedback holds.
        whole = builtins.repr(f"{head}\ue000{tail}")
        return whole.replace("\\ue000", self.fillvalue, 1) if whole.count("\\ue000") == 1 else super().repr_str(x, level)

    def repr_instance(self, x, level):
        # A wrapper a part's feedback writes as code (an ``Overwrite(...)``) shows its contents as any value's.
        if hasattr(x, "shown_as"):
            return x.shown_as(lambda inner: self.repr1(inner, level - 1))
        return super().repr_instance(x, level)


_short = _Short()
_short.maxstring = _short.maxother = 60
_short.maxlist = _short.maxtuple = 10
_short.maxdict = 8


def show(value) -> str:
    """A short Python-looking rendering of a value for feedback (a string of up to 60 characters is never cut)."""
    return _short.repr(value)


def counted(number: int, noun: str) -> str:
    """``"1 event"``, ``"3 events"``: a count in feedback, in the learner's language for the nouns the rules count
    (``_COUNTED``), in English for any other."""
    said = _COUNTED.get(noun)
    if said is not None:
        return said(number).format(count=number)
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


# Each noun a rule counts, with its plural forms marked for the catalogs (Russian has three).
_COUNTED = {
    "acknowledgement": lambda n: ngettext("{count} acknowledgement", "{count} acknowledgements", n),
    "different key": lambda n: ngettext("{count} different key", "{count} different keys", n),
    "event": lambda n: ngettext("{count} event", "{count} events", n),
    "invoke": lambda n: ngettext("{count} invoke", "{count} invokes", n),
    "message": lambda n: ngettext("{count} message", "{count} messages", n),
    "payment": lambda n: ngettext("{count} payment", "{count} payments", n),
    "time": lambda n: ngettext("{count} time", "{count} times", n),
    "word": lambda n: ngettext("{count} word", "{count} words", n),
}


def contrast(got, expected, width: int = 70) -> tuple[str, str]:
    """``got`` and ``expected`` rendered so that where they differ is shown, however long they are.

    ``show`` cuts a long value at its end; two long lists that differ near the
    end would both read ``[..., ...]``. Here both are written out and, when
    too long, cut to the same window around their first difference: it starts
    a third of ``width`` before it, and each ends past its differing part
    (up to twice ``width``), both cuts between words or items, never inside one.
    """
    full_got, full_expected = repr(got), repr(expected)
    if len(full_got) <= width and len(full_expected) <= width:
        return full_got, full_expected
    shorter = min(len(full_got), len(full_expected))
    at = next((i for i, (a, b) in enumerate(zip(full_got, full_expected)) if a != b), shorter)
    same_end = next((k for k in range(shorter - at) if full_got[-1 - k] != full_expected[-1 - k]), shorter - at)
    start = _boundary_before(full_got, max(0, at - width // 3))  # the texts are the same up to ``at``

    def window(text: str) -> str:
        differs_until = len(text) - same_end
        end = _boundary_after(text, min(max(start + width, differs_until + 1), start + 2 * width))
        return ("..." if start > 0 else "") + text[start:end] + ("..." if end < len(text) else "")

    return window(full_got), window(full_expected)


_REACH = 16  # how far a cut may move to fall between words or items (a longer word is cut where it is)


def _boundary_before(text: str, at: int) -> int:
    """Where a window may start, at or before ``at``: after a space (a word or an item starts there)."""
    for cut in range(at, max(0, at - _REACH) - 1, -1):
        if cut == 0 or text[cut - 1] == " ":
            return cut
    return at


def _boundary_after(text: str, at: int) -> int:
    """Where a window may end, at or after ``at``: before a space or a separator (the item before it whole)."""
    for cut in range(at, min(len(text), at + _REACH) + 1):
        if cut >= len(text):
            return len(text)
        if text[cut] in " ,;":
            return cut - 1 if text[cut] == " " and text[cut - 1] in ",;" else cut
    return at


def jsonable(value):
    """``value`` as JSON data for the report (tuples become lists, oddities their repr)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(item) for item in value), key=repr)
    return repr(value)
