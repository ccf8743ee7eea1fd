"""Notebook 30, messages.budget: ChatState keeps its budget in the state definition; a graph's writes never exceed it."""

from grader.checking import Abort, Counterexample, Failure, no_raise, show
from grader.parts.messages import strategies as gen
from grader.parts.messages.checks import briefs, expect_history, expect_messages
from grader.parts.messages.model import model_reduce
from grader.tasks import task

budget_task = task("messages.budget")

def _filler(budget: int, prefix: str) -> list:
    """A valid history longer than ``budget`` + 4, whatever budget the learner chose: turns of four messages."""
    turns = budget // 4 + 3
    return [message for n in range(turns) for message in (
        {"type": "human", "id": f"{prefix}h{n}", "content": f"question {n}"},
        {"type": "ai", "id": f"{prefix}a{n}", "content": "", "tool_calls": [
            {"name": "lookup_order", "args": {"order_id": str(n)}, "id": f"{prefix}c{n}"}]},
        {"type": "tool", "id": f"{prefix}t{n}", "content": "shipped", "tool_call_id": f"{prefix}c{n}", "status": "success"},
        {"type": "ai", "id": f"{prefix}r{n}", "content": f"answer {n}"})]


_NEXT = [{"type": "human", "id": "next", "content": "and now?"}]


def learner_budget(check) -> int:
    """The submission's own MAX_MESSAGES, which ChatState's merge rule uses."""
    budget = check.probe("attr", "MAX_MESSAGES")
    if type(budget) is not int or budget < 4:
        raise Abort("error", f"MAX_MESSAGES is {show(budget)}; it must be an int >= 4")
    return budget


def channels(check, budget):
    history = [{"type": "system", "id": "s", "content": "be brief"}, *_filler(budget, "")]
    got = no_raise(check.probe("chat_channels", history, _NEXT), "StateGraph(ChatState)")
    if not got["keys"]:
        raise Abort("not_implemented", "ChatState has no keys yet: declare them as its docstring in "
                                       "agstate/messages.py says (notebook 30_budget_in_the_state.ipynb)")
    return history, got


@budget_task.rule("ChatState has exactly messages, merged by budgeted(MAX_MESSAGES), and summary, overwritten")
def chat_state(check):
    budget = learner_budget(check)
    history, got = channels(check, budget)
    if got["keys"] != ["messages", "summary"]:
        raise Failure(f"ChatState has the keys {got['keys']}; expected exactly ['messages', 'summary']",
                      Counterexample("ChatState", [], ["messages", "summary"], got["keys"]))
    if got["channels"].get("summary") != "LastValue":
        raise Failure("ChatState.summary has a merge rule; expected none: each summary replaces the last")
    if got["merged"] is None:
        raise Failure("ChatState.messages has no merge rule; expected Annotated[list[AnyMessage], budgeted(MAX_MESSAGES)]")
    expected = model_reduce(history, _NEXT, budget)
    merged = no_raise(got["merged"], "ChatState.messages' merge rule")
    expect_messages(f"ChatState.messages' merge rule on {len(history)} messages and a new question "
                    f"(MAX_MESSAGES={budget})", merged, expected,
                    Counterexample("ChatState.messages", [history, _NEXT], expected, merged))


@budget_task.rule("through a graph, messages never holds more than the budget allows and stays valid after every step")
def through_a_graph(check):
    budget = learner_budget(check)
    channels(check, budget)

    @check.forall(gen.graph_turns(4), examples=check.budget("graph"))
    def steps(writes):
        judged(check, [_filler(budget, "f-"), *writes], budget)


@budget_task.rule("a node returning a shorter list or [] to messages changes nothing: only RemoveMessage removes")
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


def judged(check, writes, budget):
    got = no_raise(check.probe("budget_graph", writes), lambda: f"a chain of nodes writing {briefs(writes)} to ChatState")
    if len(got["states"]) != len(writes):
        raise Failure(f"a chain of {len(writes)} nodes writing to ChatState.messages gave {len(got['states'])} states; "
                      "expected one after each node")
    held = []
    for number, (write, state) in enumerate(zip(writes, got["states"]), 1):
        expected = model_reduce(held, write, budget)
        what = f"after step {number} of a graph whose nodes write {' then '.join(briefs(w) for w in writes[:number])}, " \
               "ChatState.messages"
        example = Counterexample("ChatState graph", [writes[:number]], expected, state)
        expect_history(what, state, budget, example)
        resent = all(m["id"] in {h["id"] for h in held} for m in write)  # [] or messages held already
        if resent and isinstance(state, list) and len(state) < len(held):
            raise Failure(f"{what} lost messages when a node returned {briefs(write)}: returning a shorter list or [] "
                          "to an add_messages key changes nothing", example)
        expect_messages(what, state, expected, example)
        held = expected
