"""The judging part E's rules share: histories shown the way a learner reads them, and what a held history must be.

The notation (notebook 28 explains it): a message is its role, its id and its
text in quotes, then what it calls or answers: ``human h1 'hi'``,
``ai a2 'let me look' calls lookup_order (c1)`` (an AI message with no text
shows only its calls), ``tool t3 'shipped' for c1``, ``remove h1``.
"""

from grader.engine.checking import Abort, Counterexample, Failure
from grader.engine.showing import show
from grader.i18n import _
from grader.parts.messages.model import fits, model_add, model_trim, problems

__all__ = ["brief", "briefs", "contrast_briefs", "ids", "expect_history", "expect_messages", "how_many_kept", "trim_blamed"]

WINDOW = 8  # messages shown of a long history: those around the first difference


def brief(message) -> str:
    """``human h1 'hi'``, ``ai a2 'hi' calls lookup_order (c1)``, ``tool t3 'ok' for c1``: a message in a few words."""
    if not isinstance(message, dict) or "id" not in message:
        return show(message)
    kind, words = message["type"], [message["type"], str(message["id"])]
    calls = message.get("tool_calls") if kind == "ai" else None
    if kind != "remove" and (message.get("content") or not calls):
        words.append(show(message.get("content")))
    if calls:
        words.append("calls " + ", ".join(f"{c['name']} ({c['id']})" for c in calls))
    elif kind == "tool":
        words.append(f"for {message.get('tool_call_id')}")
    return " ".join(words)


def briefs(history) -> str:
    """A history in brief: ``[human h1 'hi', ai a2 'hello']``."""
    if not isinstance(history, list):
        return show(history)
    return "[" + ", ".join(brief(m) for m in history) + "]"


def contrast_briefs(got, expected) -> tuple[str, str]:
    """Both histories in brief; when one is longer than ``WINDOW`` messages, both show the same messages around
    their first difference, whole, and say how many are left out before and after."""
    if not isinstance(got, list) or not isinstance(expected, list):
        return briefs(got), briefs(expected)
    got_words, expected_words = [brief(m) for m in got], [brief(m) for m in expected]
    if len(got_words) <= WINDOW and len(expected_words) <= WINDOW:
        return briefs(got), briefs(expected)
    at = next((i for i, (a, b) in enumerate(zip(got_words, expected_words)) if a != b),
              min(len(got_words), len(expected_words)))
    start = max(0, at - 2)

    def window(words: list) -> str:
        shown = words[start:start + WINDOW]
        before = [f"… {start} earlier"] if start else []
        after = [f"… {len(words) - start - WINDOW} later"] if len(words) > start + WINDOW else []
        return "[" + ", ".join(before + shown + after) + "]"

    return window(got_words), window(expected_words)


def ids(history) -> list:
    return [m.get("id") if isinstance(m, dict) else m for m in history] if isinstance(history, list) else history


def expect_history(what: str, got, budget: int, example: Counterexample, over: str = "", holds: str = "holds") -> None:
    """A history held or sent to the model: a list of messages, valid, no longer than the budget allows.

    ``over``: why it may be over the budget, said only when it is (the caller has seen the cause); ``holds``: the
    verb for ``what`` having it ("received" for a model call)."""
    if not isinstance(got, list) or any("id" not in m for m in got):
        raise Failure(_("{what} gave {got}; expected a list of messages").format(what=what, got=show(got)), example)
    found = problems(got)
    if found:
        raise Failure(_("{what} gave the history {briefs}, which a chat API refuses: {found}").format(
                          what=what, briefs=briefs(got), found=found[0]), example)
    if not fits(got, budget):
        raise Failure(_("{what} {holds} {count} messages, {briefs}; the budget is {budget}, and the oldest turns could have "
                        "been removed{over}").format(
                          what=what, holds=holds, count=len(got), briefs=briefs(got), budget=budget, over=over), example)


def how_many_kept(got: list, expected: list, budget: int) -> str:
    """Why ``got`` is not ``expected`` when it holds other messages: kept too many, or too few, for ``budget``."""
    if not isinstance(got, list) or ids(got) == ids(expected):
        return ""
    if len(got) > len(expected):
        return _(" ({count} messages where budgeted({budget}) keeps {count2})").format(count=len(got), budget=budget, count2=len(expected))
    if len(got) < len(expected) and ids(got) == ids(expected)[len(expected) - len(got):]:
        return (_(" ({count} messages where budgeted({budget}) keeps {count2}: a turn that fits the budget was removed)").format(
                    count=len(got), budget=budget, count2=len(expected)))
    return ""


def expect_messages(what: str, got, expected: list, example: Counterexample, cause: str = "") -> None:
    """``got`` is exactly the messages ``expected``, in order (ids, roles, texts, tool calls); ``cause``: what the
    caller found made the difference, said after it."""
    if got != expected:
        if isinstance(got, list) and ids(got) == ids(expected):
            changed = next(i for i, (a, b) in enumerate(zip(got, expected)) if a != b)
            # In brief when that shows the difference; else every field (a tool call's arguments, a status)
            said = brief if brief(got[changed]) != brief(expected[changed]) else show
            raise Failure(_("{what} gave the right ids but message {changed} is {said}; expected {said2}").format(
                              what=what, changed=changed, said=said(got[changed]), said2=said(expected[changed])), example)
        shown_got, shown_expected = contrast_briefs(got, expected)
        raise Failure(_("{what} gave {shown_got}; expected {shown_expected}{cause}").format(
                          what=what, shown_got=shown_got, shown_expected=shown_expected, cause=cause), example)


def merged_before_trim(old: list, new: list):
    """What ``add_messages`` alone gives (None when the write is one it refuses): the history a trim starts from."""
    try:
        return model_add(old, new)
    except ValueError:
        return None


def trim_blamed(check, added: list, budget: int) -> str:
    """When the learner's own trim_removals (which budgeted applies) trims ``added`` wrong: the words that say so."""
    try:
        trimmed = check.probe("trim", added, budget)
    except Abort:  # trim_removals not written yet, or stuck: the merge rule's own feedback is enough
        return ""
    removals = trimmed.get("removals") if isinstance(trimmed, dict) else None
    if not isinstance(removals, list) or ids(removals) == model_trim(added, budget):
        return ""
    return (_(": budgeted applies your trim_removals, which removes {some} of these {count}, where it should "
              "remove {some2} (messages.trim says why)").format(
                some=_some(ids(removals)), count=len(added), some2=_some(model_trim(added, budget))))


def _some(removed: list) -> str:
    """Removed ids in a few words: a long list by its count, first and last."""
    if not removed:
        return "none"
    if len(removed) <= 4:
        return str(removed)
    return _("{count} messages ({removed} to {removed2})").format(count=len(removed), removed=repr(removed[0]), removed2=repr(removed[-1]))
