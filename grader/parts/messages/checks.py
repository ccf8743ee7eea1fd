"""The judging part E's rules share: histories shown the way a learner reads them, and what a held history must be."""

from grader.checking import Counterexample, Failure, contrast, show
from grader.parts.messages.model import fits, problems

__all__ = ["brief", "briefs", "ids", "expect_history", "expect_messages"]


def brief(message) -> str:
    """``human h1 'hi'``, ``ai a2 calls lookup_order``, ``tool t3 for c1``: a message in a few words."""
    if not isinstance(message, dict) or "id" not in message:
        return show(message)
    kind, words = message["type"], [message["type"], str(message["id"])]
    if kind == "ai" and message.get("tool_calls"):
        words.append("calls " + ", ".join(f"{c['name']} ({c['id']})" for c in message["tool_calls"]))
    elif kind == "tool":
        words.append(f"for {message.get('tool_call_id')}")
    elif kind != "remove":
        words.append(show(message.get("content")))
    return " ".join(words)


def briefs(history) -> str:
    """A history in brief: ``[human h1 'hi', ai a2 'hello']``."""
    if not isinstance(history, list):
        return show(history)
    return "[" + ", ".join(brief(m) for m in history) + "]"


def ids(history) -> list:
    return [m.get("id") if isinstance(m, dict) else m for m in history] if isinstance(history, list) else history


def expect_history(what: str, got, budget: int, example: Counterexample) -> None:
    """A history held or sent to the model: a list of messages, valid, no longer than the budget allows."""
    if not isinstance(got, list) or any("id" not in m for m in got):
        raise Failure(f"{what} gave {show(got)}; expected a list of messages", example)
    found = problems(got)
    if found:
        raise Failure(f"{what} gave the history {briefs(got)}, which a chat API refuses: {found[0]}", example)
    if not fits(got, budget):
        raise Failure(f"{what} holds {len(got)} messages, {briefs(got)}; the budget is {budget}, and the oldest turns "
                      "could have been removed", example)


def expect_messages(what: str, got, expected: list, example: Counterexample) -> None:
    """``got`` is exactly the messages ``expected``, in order (ids, roles, texts, tool calls)."""
    if got != expected:
        # Both in brief, cut to the same window around their first difference when long (contrast quotes a str).
        shown_got, shown_expected = (text.strip('"') for text in contrast(briefs(got), briefs(expected), width=160))
        if isinstance(got, list) and ids(got) == ids(expected):
            changed = next(i for i, (a, b) in enumerate(zip(got, expected)) if a != b)
            raise Failure(f"{what} gave the right ids but message {changed} is {show(got[changed])}; expected "
                          f"{show(expected[changed])}", example)
        raise Failure(f"{what} gave {shown_got}; expected {shown_expected}", example)
