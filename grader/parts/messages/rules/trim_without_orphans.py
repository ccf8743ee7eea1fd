"""Notebook 29, messages.trim: ``trim_removals`` removes the oldest turns whole, and leaves a history a chat API accepts."""

from grader.checking import Counterexample, Failure, no_raise
from grader.expectations import expect_value_error
from grader.parts.messages import strategies as gen
from grader.parts.messages.checks import briefs, ids
from grader.parts.messages.model import model_add, model_trim, problems
from grader.tasks import task

trim = task("messages.trim")


def removals(check, history, budget):
    """``trim_removals(history, budget)``'s answer, which must be a list of RemoveMessages of the history's ids."""
    what = f"trim_removals({briefs(history)}, {budget})"
    got = no_raise(check.probe("trim", history, budget), what)
    removed = got["removals"]
    expected = model_trim(history, budget)
    example = Counterexample("trim_removals", [history, budget], expected, ids(removed))
    if not isinstance(removed, list) or any(m.get("type") != "remove" for m in removed):
        raise Failure(f"{what} returned {briefs(removed)}; expected a list of RemoveMessage(id=...) (the messages to "
                      "remove, not the ones to keep)", example)
    held = ids(history)
    if any(i not in held for i in ids(removed)) or ids(removed) != [i for i in held if i in ids(removed)]:
        raise Failure(f"{what} removes the ids {ids(removed)}; expected ids of the history, in history order", example)
    return what, got, removed, expected, example


@trim.rule("trim_removals returns [] when the history fits, else RemoveMessages of its ids in history order")
def shape(check):
    @check.forall(gen.trim_cases)
    def trimmed(case):  # one name in every rule: they share examples, and the child answers each once
        history, budget = case
        what, _, removed, expected, example = removals(check, *case)
        if len(history) <= budget and removed:
            raise Failure(f"{what} removes {ids(removed)}, but the history's {len(history)} messages fit the budget; "
                          "expected []", example)


@trim.rule("the system message, the latest human message and everything after it are never removed")
def keeps(check):
    @check.forall(gen.trim_cases)
    def trimmed(case):  # one name in every rule: they share examples, and the child answers each once
        history, _ = case
        what, _, removed, _, example = removals(check, *case)
        latest = max(i for i, m in enumerate(history) if m["type"] == "human")
        protected = [m for i, m in enumerate(history) if i >= latest or m["type"] == "system"]
        lost = [m["id"] for m in protected if m["id"] in ids(removed)]
        if lost:
            raise Failure(f"{what} removes {lost}: the system message, the latest human message and what follows it "
                          "are always kept", example)


@trim.rule("the removals leave a valid history: no tool result without its call, starting with a human turn")
def valid(check):
    @check.forall(gen.trim_cases)
    def trimmed(case):  # one name in every rule: they share examples, and the child answers each once
        history, _ = case
        what, _, removed, _, example = removals(check, *case)
        left = model_add(history, removed)
        found = problems(left)
        if found:
            raise Failure(f"{what} leaves {briefs(left)}, which a chat API refuses: {found[0]}; remove a tool-calling "
                          "AI message and its tool results together, and cut before a human message", example)


@trim.rule("the shortest such prefix is removed: at most max_messages remain whenever the rules allow it")
def shortest(check):
    @check.forall(gen.trim_cases)
    def trimmed(case):  # one name in every rule: they share examples, and the child answers each once
        history, budget = case
        what, _, removed, expected, example = removals(check, *case)
        if ids(removed) != expected:
            left = len(history) - len(removed)
            why = (f"{left} messages remain, over the budget of {budget}" if left > budget and len(expected) > len(removed)
                   else "more than needed is removed" if len(removed) > len(expected) else "the cut is elsewhere")
            raise Failure(f"{what} removes {ids(removed)}; expected {expected} ({why}: remove the oldest turns, "
                          "whole, until the rest fits)", example)


@trim.rule("trim_removals never mutates its arguments")
def untouched(check):
    @check.forall(gen.trim_cases)
    def trimmed(case):  # one name in every rule: they share examples, and the child answers each once
        what, got, _, _, example = removals(check, *case)
        if not got["unchanged"]:
            raise Failure(f"{what} changed its argument messages; return removals and leave the history as it is",
                          example)


@trim.rule("trim_removals(messages, n) raises ValueError at once when n is not an int >= 4")
def bad_budget(check):
    @check.forall(gen.bad_budgets)
    def rejects(n):
        expect_value_error(check, "trim_removals", [[], n])
