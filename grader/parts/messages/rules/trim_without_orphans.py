"""Notebook 29, messages.trim: ``trim_removals`` removes the oldest turns whole, and leaves a history a chat API accepts."""

import re

from grader.engine.checking import Counterexample, Failure, no_raise
from grader.engine.expectations import expect_value_error
from grader.engine.registry import task
from grader.i18n import N_, _
from grader.parts.messages import strategies as gen
from grader.parts.messages.checks import briefs, ids
from grader.parts.messages.model import model_add, model_trim, problems

trim = task("messages.trim")


def _turns(system: bool, pairs: int) -> list:
    history = [{"type": "system", "id": "s", "content": "be brief"}] if system else []
    return history + [message for n in range(1, pairs + 1) for message in (
        {"type": "human", "id": f"h{n}", "content": "hi"}, {"type": "ai", "id": f"a{n}", "content": "hello"})]


# Hand-picked, checked on every seed after the random examples: a budget that a cut meets only when the system
# message counts, one that a cut meets exactly (an off-by-one trim keeps one turn fewer), and one no cut can meet (the
# latest turn alone is five messages: a trim that pushes its cut on removes that turn too; some seeds draw none).
_LONG_LAST_TURN = _turns(False, 2) + [{"type": "ai", "id": f"a2-{n}", "content": "more"} for n in range(1, 4)]
EDGES = [(_turns(True, 3), 6), (_turns(True, 3), 5), (_turns(False, 3), 4), (_LONG_LAST_TURN, 4)]


def trim_rule(sentence):
    """A rule judged on the random trim cases (shrunk when one fails), then on the hand-picked ``EDGES``."""
    def register(judge):
        @trim.rule(sentence)
        def rule(check):
            def trimmed(case):  # one name in every rule: they share examples, and the child answers each once
                judge(check, *case)

            check.forall(gen.trim_cases())(trimmed)
            check.each([(case,) for case in EDGES])(trimmed)
        return rule
    return register


def removals(check, history, budget):
    """``trim_removals(history, budget)``'s answer, which must be a list of RemoveMessages of the history's ids."""
    what = f"trim_removals({briefs(history)}, {budget})"
    got = no_raise(check.probe("trim", history, budget), what)
    removed = got["removals"]
    expected = model_trim(history, budget)
    example = Counterexample("trim_removals", [history, budget], expected, ids(removed))
    if not isinstance(removed, list) or any(m.get("type") != "remove" for m in removed):
        raise Failure(_("{what} returned {briefs}; expected a list of RemoveMessage(id=...) (the messages to remove, not the "
                        "ones to keep)").format(what=what, briefs=briefs(removed)), example)
    held = ids(history)
    if any(i not in held for i in ids(removed)) or ids(removed) != [i for i in held if i in ids(removed)]:
        raise Failure(_("{what} removes the ids {ids}; expected ids of the history, in history order").format(
                          what=what, ids=ids(removed)), example)
    return what, got, removed, expected, example


def _protected(history: list) -> list:
    latest = max(i for i, m in enumerate(history) if m["type"] == "human")
    return [m for i, m in enumerate(history) if i >= latest or m["type"] == "system"]


@trim_rule(N_("trim_removals returns [] when the history fits, else RemoveMessages of its ids in history order"))
def shape(check, history, budget):
    what, _skip, removed, expected, example = removals(check, history, budget)
    if len(history) <= budget and removed:
        exactly = _(" (a history of exactly max_messages messages fits)") if len(history) == budget else ""
        raise Failure(_("{what} removes {ids}, but the history's {count} messages fit the budget; expected []{exactly}").format(
                          what=what, ids=ids(removed), count=len(history), exactly=exactly), example)


@trim_rule(N_("the system message, the latest human message and everything after it are never removed"))
def keeps(check, history, budget):
    what, _skip, removed, _skip, example = removals(check, history, budget)
    protected = _protected(history)
    lost = [m["id"] for m in protected if m["id"] in ids(removed)]
    if lost:
        short = (_("; here they are {count} messages, over the budget of {budget}: when the budget cannot be met, "
                   "remove every turn before the latest human message, and stop there").format(count=len(protected), budget=budget)
                 if len(protected) > budget else "")
        raise Failure(_("{what} removes {lost}: the system message, the latest human message and what follows it are always "
                        "kept{short}").format(what=what, lost=lost, short=short), example)


_TOGETHER = N_("remove an AI message that calls tools and its tool results together")
_BEFORE_HUMAN = N_("cut just before a human message, never past the latest one")
_FIXES = {  # model.problems' sentences (their catalog msgids) -> how a trim avoids it
    "{at} answers the tool call {get}, which no AI message just before it asked for (an orphaned tool result)": _TOGETHER,
    "{at} comes before the tool call(s) {open_calls} are answered": _TOGETHER,
    "it does not start with a human message": _BEFORE_HUMAN,
    "it has no human message": _BEFORE_HUMAN,
}


def _fix(problem: str) -> str:
    """How a trim avoids ``problem`` (one of model.problems' sentences, in the learner's language): its sentence is
    known by the longest fixed part of its template as the catalog says it."""
    for sentence, fix in _FIXES.items():
        fixed = max(re.split(r"\{\w+\}", _(sentence)), key=len)
        if fixed.strip() and fixed in problem:
            return _(fix)
    return _("cut just before a human message")


@trim_rule(N_("the removals leave a valid history: no tool result without its call, starting with a human turn"))
def valid(check, history, budget):
    what, _skip, removed, _skip, example = removals(check, history, budget)
    left = model_add(history, removed)
    found = problems(left)
    if found:
        fix = _fix(found[0])
        raise Failure(_("{what} leaves {briefs}, which a chat API refuses: {found}; {fix}").format(
                          what=what, briefs=briefs(left), found=found[0], fix=fix), example)


def _why(history: list, budget: int, removed: list, expected: list) -> str:
    """What made ``removed`` differ from ``expected``, as far as the grader can tell: said only when it is so."""
    left, kept = len(history) - len(removed), len(history) - len(expected)
    if history[0]["type"] == "system" and removed == model_trim(history, budget + 1):
        return (_("{left} messages remain, over the budget of {budget}: max_messages counts every message, the system "
                  "message included").format(left=left, budget=budget))
    if kept == budget and removed == model_trim(history, budget - 1):
        return (_("removing only {expected} leaves {kept} messages, exactly the budget of {budget}: a history of "
                  "max_messages messages fits").format(expected=expected, kept=kept, budget=budget))
    if kept > budget:
        return (_("the budget of {budget} cannot be met: the latest turn alone is {count} messages, the system message "
                  "included; remove every turn before the latest human message, and nothing more").format(
                    budget=budget, count=len(_protected(history))))
    if left > budget:
        return _("{left} messages remain, over the budget of {budget}: remove the oldest turns, whole, until the rest "
                 "fits").format(left=left, budget=budget)
    if len(removed) > len(expected):
        return _("more than needed is removed: removing only {expected} leaves {kept} messages, within the budget").format(
                   expected=expected, kept=kept)
    return _("the cut is elsewhere: remove the oldest turns, whole, until the rest fits")


@trim_rule(N_("the shortest such prefix is removed: at most max_messages remain whenever the rules allow it"))
def shortest(check, history, budget):
    what, _skip, removed, expected, example = removals(check, history, budget)
    if ids(removed) != expected:
        raise Failure(_("{what} removes {ids}; expected {expected} ({why})").format(
                          what=what, ids=ids(removed), expected=expected, why=_why(history, budget, ids(removed), expected)), example)


@trim_rule(N_("trim_removals never mutates its arguments"))
def untouched(check, history, budget):
    what, got, _skip, _skip, example = removals(check, history, budget)
    if not got["unchanged"]:
        raise Failure(_("{what} changed its argument messages; return removals and leave the history as it is").format(what=what), example)


@trim.rule(N_("trim_removals(messages, n) raises ValueError at once when n is not an int >= 4"))
def bad_budget(check):
    @check.forall(gen.bad_budgets)
    def rejects(n):
        expect_value_error(check, "trim_removals", [[], n])
