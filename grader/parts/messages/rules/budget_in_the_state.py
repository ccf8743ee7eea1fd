"""Notebook 30, messages.budget: ChatState keeps its budget in the state definition; a graph's writes never exceed it."""

from grader.checking import Abort, Counterexample, Failure, no_raise, show
from grader.parts.messages import strategies as gen
from grader.parts.messages.checks import briefs, expect_history, expect_messages
from grader.parts.messages.model import model_reduce
from grader.tasks import task

budget_task = task("messages.budget")

# A valid history over any budget >= 4 the learner may choose, and a turn to add to it.
_LONG = [{"type": "system", "id": "s", "content": "be brief"}] + [
    message for n in range(8) for message in (
        {"type": "human", "id": f"h{n}", "content": f"question {n}"},
        {"type": "ai", "id": f"a{n}", "content": "", "tool_calls": [{"name": "lookup_order", "args": {"order_id": str(n)},
                                                                      "id": f"c{n}"}]},
        {"type": "tool", "id": f"t{n}", "content": "shipped", "tool_call_id": f"c{n}", "status": "success"},
        {"type": "ai", "id": f"r{n}", "content": f"answer {n}"})]
_NEXT = [{"type": "human", "id": "h9", "content": "and now?"}]


def learner_budget(check) -> int:
    got = no_raise(check.probe("chat_channels", _LONG, _NEXT), "StateGraph(ChatState)")
    if not got["keys"]:
        raise Abort("not_implemented", "ChatState has no keys yet (notebook 30_budget_in_the_state.ipynb)")
    budget = got["max_messages"]
    if type(budget) is not int or budget < 4:
        raise Abort("error", f"MAX_MESSAGES is {show(budget)}; it must be an int >= 4")
    return budget


@budget_task.rule("ChatState has exactly messages, merged by budgeted(MAX_MESSAGES), and summary, overwritten")
def chat_state(check):
    got = no_raise(check.probe("chat_channels", _LONG, _NEXT), "StateGraph(ChatState)")
    budget = learner_budget(check)
    if not got["keys"]:
        raise Abort("not_implemented", "ChatState has no keys yet: declare them as its docstring in "
                                       "agstate/messages.py says (notebook 30_budget_in_the_state.ipynb)")
    if got["keys"] != ["messages", "summary"]:
        raise Failure(f"ChatState has the keys {got['keys']}; expected exactly ['messages', 'summary']",
                      Counterexample("ChatState", [], ["messages", "summary"], got["keys"]))
    if got["channels"].get("summary") != "LastValue":
        raise Failure("ChatState.summary has a merge rule; expected none: each summary replaces the last")
    if got["merged"] is None:
        raise Failure("ChatState.messages has no merge rule; expected Annotated[list[AnyMessage], budgeted(MAX_MESSAGES)]")
    expected = model_reduce(_LONG, _NEXT, budget)
    merged = no_raise(got["merged"], "ChatState.messages' merge rule")
    expect_messages(f"ChatState.messages' merge rule on {len(_LONG)} messages and a new question (MAX_MESSAGES={budget})",
                    merged, expected, Counterexample("ChatState.messages", [_LONG, _NEXT], expected, merged))


@budget_task.rule("through a graph, messages never holds more than the budget allows and stays valid after every step")
def through_a_graph(check):
    budget = learner_budget(check)

    @check.forall(gen.graph_turns(4), examples=check.budget("graph"))
    def steps(writes):
        judged(check, writes, budget)


@budget_task.rule("a node returning a shorter list or [] to messages changes nothing: only RemoveMessage removes")
def shorter_changes_nothing(check):
    budget = learner_budget(check)

    @check.forall(gen.graph_turns(4), examples=check.budget("graph"))
    def steps(writes):
        judged(check, [*writes, [], writes[0][:1]], budget)


def judged(check, writes, budget):
    got = no_raise(check.probe("budget_graph", writes), lambda: f"a chain of nodes writing {briefs(writes)} to ChatState")
    held = []
    for number, (write, state) in enumerate(zip(writes, got["states"]), 1):
        expected = model_reduce(held, write, budget)
        what = f"after step {number} of a graph whose nodes write {' then '.join(briefs(w) for w in writes[:number])}, " \
               "ChatState.messages"
        example = Counterexample("ChatState graph", [writes[:number]], expected, state)
        expect_history(what, state, budget, example)
        if not write and len(state) < len(held):
            raise Failure(f"{what} lost messages when a node returned []: returning a shorter list or [] to an "
                          "add_messages key changes nothing", example)
        expect_messages(what, state, expected, example)
        held = expected
