"""Notebook 30, messages.budget: ChatState keeps its budget in the state definition; a graph's writes never exceed it."""

from grader.engine.checking import Abort, Counterexample, Failure, no_raise
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.messages import strategies as gen
from grader.parts.messages.checks import (
    brief,
    briefs,
    expect_history,
    expect_messages,
    how_many_kept,
    merged_before_trim,
    trim_blamed,
)
from grader.parts.messages.model import model_add, model_reduce

budget_task = task("messages.budget")

_SYSTEM = {"type": "system", "id": "s", "content": "be brief"}
_NEXT = [{"type": "human", "id": "next", "content": "and now?"}]


def _filler(budget: int, prefix: str) -> list:
    """A valid history longer than ``budget`` + 4, whatever budget the learner chose: turns of four messages."""
    turns = budget // 4 + 3
    return [message for n in range(turns) for message in (
        {"type": "human", "id": f"{prefix}h{n}", "content": f"question {n}"},
        {"type": "ai", "id": f"{prefix}a{n}", "content": "", "tool_calls": [
            {"name": "lookup_order", "args": {"order_id": str(n)}, "id": f"{prefix}c{n}"}]},
        {"type": "tool", "id": f"{prefix}t{n}", "content": "shipped", "tool_call_id": f"{prefix}c{n}", "status": "success"},
        {"type": "ai", "id": f"{prefix}r{n}", "content": f"answer {n}"})]


def _pairs(budget: int) -> list:
    """Turns of two messages, longer than ``budget`` + 4: with and without a system message, every other budget
    keeps other messages from one of them than ``budget`` does (a wrong budget shows on every seed)."""
    return [message for n in range(budget // 2 + 3) for message in (
        {"type": "human", "id": f"p{n}", "content": f"question {n}"}, {"type": "ai", "id": f"q{n}", "content": f"answer {n}"})]


# A last turn of five messages (two tool calls): the kept part can then hold an even number of messages, so a trim
# that leaves the system message out of its count keeps one too many here, whatever the budget's parity.
_FIVE = [{"type": "human", "id": "w", "content": "where are 17 and 42?"},
         {"type": "ai", "id": "w-ai", "content": "", "tool_calls": [
             {"name": "lookup_order", "args": {"order_id": "17"}, "id": "w-c1"},
             {"name": "lookup_order", "args": {"order_id": "42"}, "id": "w-c2"}]},
         {"type": "tool", "id": "w-t1", "content": "shipped", "tool_call_id": "w-c1", "status": "success"},
         {"type": "tool", "id": "w-t2", "content": "packing", "tool_call_id": "w-c2", "status": "success"},
         {"type": "ai", "id": "w-r", "content": "17 shipped, 42 is packing"}]


def _histories(budget: int) -> list:
    return [[_SYSTEM, *_pairs(budget)], _pairs(budget), [_SYSTEM, *_pairs(budget), *_FIVE], [_SYSTEM, *_filler(budget, "")]]


def _described(history: list) -> str:
    system = _("a system message and ") if history[0]["type"] == "system" else ""
    sizes = [i for i, m in enumerate(history) if m["type"] == "human"] + [len(history)]
    turns = sorted({b - a for a, b in zip(sizes, sizes[1:])})
    return _("{system}{value} turns of {join} messages").format(system=system, value=len(sizes) - 1, join=' or '.join(map(str, turns)))


def learner_budget(check) -> int:
    """The submission's own MAX_MESSAGES, which ChatState's merge rule uses."""
    budget = check.probe("attr", "MAX_MESSAGES")
    if type(budget) is not int or budget < 4:
        raise Abort("error", _("MAX_MESSAGES is {budget}; it must be an int >= 4").format(budget=show(budget)))
    return budget


def channels(check, budget):
    histories = _histories(budget)
    got = no_raise(check.probe("chat_channels", histories, _NEXT), "StateGraph(ChatState)")
    if not got["keys"]:
        raise Abort("not_implemented", _("ChatState has no keys yet: declare them as its docstring in agstate/messages.py says (notebook "
                                         "30_budget_in_the_state.ipynb)"))
    return histories, got


def _cause(check, histories: list, merged: list, budget: int) -> str:
    """Why ChatState's merge rule kept other messages, when the grader can tell: no budget, the learner's own
    trim_removals (which budgeted applies), or another budget than MAX_MESSAGES."""
    if all(result == model_add(history, _NEXT) for history, result in zip(histories, merged)):
        return (_(": it kept every message, as add_messages alone does; merge with budgeted(MAX_MESSAGES), which keeps "
                  "at most MAX_MESSAGES ({budget})").format(budget=budget))
    wrong = [(history, result) for history, result in zip(histories, merged) if result != model_reduce(history, _NEXT, budget)]
    blamed = trim_blamed(check, model_add(wrong[0][0], _NEXT), budget)
    if blamed:
        return blamed
    longest = max(map(len, histories)) + 1
    like = [n for n in range(4, longest) if all(result == model_reduce(history, _NEXT, n)
                                                for history, result in zip(histories, merged))]
    if len(like) == 1:
        return (_(": it keeps what budgeted({like}) keeps; merge with budgeted(MAX_MESSAGES), and MAX_MESSAGES is "
                  "{budget}").format(like=like[0], budget=budget))
    return how_many_kept(wrong[0][1], model_reduce(wrong[0][0], _NEXT, budget), budget)


@budget_task.rule(N_("ChatState has exactly messages, merged by budgeted(MAX_MESSAGES), and summary, overwritten"))
def chat_state(check):
    budget = learner_budget(check)
    histories, got = channels(check, budget)
    if got["keys"] != ["messages", "summary"]:
        raise Failure(_("ChatState has the keys {keys}; expected exactly ['messages', 'summary']").format(keys=got['keys']),
                      Counterexample("ChatState", [], ["messages", "summary"], got["keys"]))
    if got["channels"].get("summary") != "LastValue":
        raise Failure(_("ChatState.summary has a merge rule; expected none: each summary replaces the last"))
    if got["merged"] is None:
        raise Failure(_("ChatState.messages has no merge rule; expected Annotated[list[AnyMessage], budgeted(MAX_MESSAGES)]"))
    merged = [no_raise(result, _("ChatState.messages' merge rule on {described} and a new question").format(described=_described(history)))
              for history, result in zip(histories, got["merged"])]
    for history, result in zip(histories, merged):
        expected = model_reduce(history, _NEXT, budget)
        if result != expected:
            expect_messages(_("ChatState.messages' merge rule on {described} and a new question (MAX_MESSAGES={budget})").format(
                                described=_described(history), budget=budget), result, expected,
                            Counterexample("ChatState.messages", [history, _NEXT], expected, result),
                            _cause(check, histories, merged, budget))


@budget_task.rule(N_("through a graph, messages holds after every step what budgeted(MAX_MESSAGES) keeps: valid, "
                  "within the budget, and no turn removed that still fits"))
def through_a_graph(check):
    budget = learner_budget(check)
    channels(check, budget)

    @check.forall(gen.graph_turns(4), examples=check.budget("graph"))
    def steps(writes):
        judged(check, [_filler(budget, "f-"), *writes], budget)


@budget_task.rule(N_("a node returning a shorter list or [] to messages changes nothing: only RemoveMessage removes"))
def shorter_changes_nothing(check):
    budget = learner_budget(check)
    channels(check, budget)

    @check.forall(gen.graph_turns(4), examples=check.budget("graph"))
    def steps(writes):
        writes = [_filler(budget, "f-"), *writes]
        held = []
        for write in writes:
            held = model_reduce(held, write, budget)
        judged(check, [*writes, [], held[-2:]], budget)  # nothing, then a message still held, re-sent


def _written(write: list) -> str:
    """A node's write in brief; a long one by its first and last messages (the counterexample has it whole)."""
    if len(write) <= 6:
        return briefs(write)
    return f"[{brief(write[0])}, … {len(write) - 2} more, {brief(write[-1])}]"


def judged(check, writes, budget):
    got = no_raise(check.probe("budget_graph", writes), lambda: _("a chain of nodes writing {briefs} to ChatState").format(
                                                                    briefs=briefs(writes)))
    if len(got["states"]) != len(writes):
        raise Failure(_("a chain of {count} nodes writing to ChatState.messages gave {count2} states; expected one after "
                        "each node").format(count=len(writes), count2=len(got['states'])))
    held = []
    for number, (write, state) in enumerate(zip(writes, got["states"]), 1):
        expected = model_reduce(held, write, budget)
        what = _("after step {number} of a graph whose nodes write {join}, ChatState.messages").format(
                   number=number, join=' then '.join(_written(w) for w in writes[:number]))
        example = Counterexample("ChatState graph", [writes[:number]], expected, state)
        expect_history(what, state, budget, example)
        resent = all(m["id"] in {h["id"] for h in held} for m in write)  # [] or messages held already
        if resent and isinstance(state, list) and len(state) < len(held):
            raise Failure(_("{what} lost messages when a node returned {briefs}: returning a shorter list or [] to an "
                            "add_messages key changes nothing").format(what=what, briefs=briefs(write)), example)
        if state != expected and isinstance(state, list):
            before_trim = merged_before_trim(held, write)
            cause = trim_blamed(check, before_trim, budget) if before_trim is not None else ""
            expect_messages(what, state, expected, example, cause or how_many_kept(state, expected, budget))
        held = expected
