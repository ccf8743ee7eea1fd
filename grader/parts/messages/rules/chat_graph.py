"""Notebook 32, messages.graph and messages.decisions: the chat agent over scripted runs, and why each key merges so."""

from grader.checking import Abort, Counterexample, Failure, no_raise, show
from grader.expectations import expect_decision_keys
from grader.parts.messages import strategies as gen
from grader.parts.messages.checks import briefs, expect_history
from grader.parts.messages.model import comparable, in_rounds, simulate_chat
from grader.tasks import task

graph_task = task("messages.graph")
decisions = task("messages.decisions")

# Hand-picked first: a small talk turn, a tool round, a failing tool and an unknown one; each turn within the budget,
# and the budget room for the turn before the last (so trimming too much shows).
FIXED = [{"script": {"hi": ["hello"], "where is 17?": [[("lookup_order", {"order_id": "17"})], "it shipped"],
                     "and 42?": [[("shipping_eta", {"order_id": "42"}), ("unknown_tool", {"order_id": "42"})], "soon"]},
          "turns": [{"text": "hi", "id": "u0"}, {"text": "where is 17?", "id": "u1"}, {"text": "and 42?", "id": "u2"}],
          "budget": 8}]
_RESULTS = {"lookup_order": lambda args: f"order {args['order_id']}: shipped"}  # the probe's tools, as they answer
_ERRORS = {"shipping_eta": ("RuntimeError", "carrier down"), "unknown_tool": ("KeyError", "unknown_tool")}


def expected_run(case, checkpointed=True):
    """The histories a correct graph gives the model, and holds after each invocation (grader.parts.messages.model)."""
    order = [*range(len(case["turns"])), *([len(case["turns"]) - 1] if checkpointed else [])]
    return simulate_chat(case["script"], case["turns"], order, case["budget"], _RESULTS)


def run(check, case, checkpointed=True):
    resend = [len(case["turns"]) - 1] if checkpointed else []
    what = f"build_chat_graph(model, tools, max_messages={case['budget']}) over the turns {[t['text'] for t in case['turns']]}"
    got = no_raise(check.probe("chat_run", case["script"], case["turns"], case["budget"], checkpointed, resend,
                               limit=10.0), what)
    example = Counterexample("build_chat_graph", [case["script"], case["turns"], case["budget"]], None, None)
    if got["raised"] is not None:
        no_raise(got["raised"], f"{what}, turn {got['at']}")
    return what, got, example


def graph_rule(sentence):
    def register(judge):
        @graph_task.rule(sentence)
        def rule(check):
            check.each([(case,) for case in FIXED])(lambda case: judge(check, case))
            check.forall(gen.scripts(), examples=check.budget("run"))(lambda case: judge(check, case))
        return rule
    return register


@graph_rule("the model always receives the history budgeted(max_messages) keeps: valid, at most max_messages "
            "messages, over scripted multi-turn runs")
def received(check, case):
    what, got, example = run(check, case)
    for number, history in enumerate(got["received"], 1):
        expect_history(f"{what}: model call {number}", history, case["budget"], example)
        if len(history) > case["budget"]:
            raise Failure(f"{what}: model call {number} received {len(history)} messages, {briefs(history)}; "
                          f"the budget is {case['budget']}", example)
    calls, _ = expected_run(case)
    for number, (history, wanted) in enumerate(zip(got["received"], calls), 1):
        if in_rounds([comparable(m) for m in history]) != in_rounds(wanted):
            raise Failure(f"{what}: model call {number} received {briefs(history)}; expected the "
                          f"{len(wanted)} messages budgeted({case['budget']}) keeps: the oldest whole turns removed, "
                          "no more", example)
    if len(got["received"]) != len(calls):
        raise Failure(f"{what}: the model was called {len(got['received'])} times; expected {len(calls)}, one per "
                      "step of the script (the model is called while the last message asks for tools)", example)


@graph_rule("each turn ends with the script's answer; each tool call gets a ToolMessage with str(result) and its tool_call_id")
def answers(check, case):
    what, got, example = run(check, case)
    for done in got["turns"][:len(case["turns"])]:
        turn = case["turns"][done["turn"]]
        final = case["script"][turn["text"]][-1]
        output = done["output"]
        last = output[-1] if isinstance(output, list) and output else None
        if not isinstance(last, dict) or last.get("type") != "ai" or last.get("content") != final:
            raise Failure(f"{what}: turn {done['turn']} ended with {show(last)}; expected the AI answer {final!r}", example)
        expect_tool_results(what, output, example)


def expect_tool_results(what, output, example, errors=False):
    answered = {m.get("tool_call_id"): m for m in output if m.get("type") == "tool"}
    for message in output:
        for call in message.get("tool_calls") or []:
            result = answered.get(call["id"])
            if result is None:
                raise Failure(f"{what}: the tool call {call['id']} ({call['name']}) got no ToolMessage", example)
            if call["name"] in _RESULTS and not errors:
                wanted = _RESULTS[call["name"]](call["args"])
                if result.get("content") != wanted or result.get("status") != "success":
                    raise Failure(f"{what}: the tool call {call['id']} got {show(result.get('content'))} (status "
                                  f"{result.get('status')}); expected {wanted!r}, str() of what the tool returned", example)
            if call["name"] in _ERRORS and errors:
                kind, words = _ERRORS[call["name"]]
                if result.get("status") != "error" or not (kind in result.get("content", "") or words in result.get("content", "")):
                    raise Failure(f"{what}: the {call['name']} call {call['id']}, whose tool raised {kind}, got "
                                  f"{show(result.get('content'))} (status {result.get('status')}); expected status='error' "
                                  f"and a content naming the error", example)


@graph_rule("an unknown or raising tool gives a ToolMessage with status='error' that names the error")
def tool_errors(check, case):
    what, got, example = run(check, case)
    for done in got["turns"]:
        expect_tool_results(what, done["output"], example, errors=True)


@graph_rule("the checkpoint holds the history budgeted(max_messages) keeps, and summary is never written")
def stored(check, case):
    what, got, example = run(check, case)
    _, after = expected_run(case)
    for done, wanted in zip(got["turns"], after):
        where = f"{what}: the checkpoint after turn {done['turn']}"
        expect_history(where, done["stored"], case["budget"], example)
        if in_rounds([comparable(m) for m in done["stored"]]) != in_rounds(wanted):
            raise Failure(f"{where} holds {briefs(done['stored'])}; expected the {len(wanted)} messages "
                          f"budgeted({case['budget']}) keeps (trimming only what the model sees is not enough)", example)
        if "summary" in done["stored_keys"] or "summary" in done["keys"]:
            raise Failure(f"{what}: the graph wrote summary; it never does (summarizing is another node's job)", example)


@graph_rule("re-invoking an answered turn with the same ids changes nothing and does not call the model")
def reinvoked(check, case):
    what, got, example = run(check, case)
    before, again = got["turns"][len(case["turns"]) - 1], got["turns"][-1]
    if again["model_calls"] or again["stored"] != before["stored"]:
        raise Failure(f"{what}: invoking turn {again['turn']} again with the same id called the model "
                      f"{again['model_calls']} time(s) and left {briefs(again['stored'])} (before: "
                      f"{briefs(before['stored'])}); expected no change and no model call: end at once when the last "
                      "message answers the turn", example)


@graph_rule("without a checkpointer, each turn sending the previous messages on gives the same answers")
def no_checkpointer(check, case):
    what, got, example = run(check, case, checkpointed=False)
    for done in got["turns"]:
        final = case["script"][case["turns"][done["turn"]]["text"]][-1]
        last = done["output"][-1] if isinstance(done["output"], list) and done["output"] else None
        if not isinstance(last, dict) or last.get("content") != final:
            raise Failure(f"{what}, without a checkpointer: turn {done['turn']} ended with {show(last)}; expected "
                          f"{final!r}", example)
        expect_history(f"{what}, without a checkpointer: the output of turn {done['turn']}", done["output"],
                       case["budget"], example)


@decisions.rule("DECISIONS has exactly the keys of ChatState")
def decision_keys(check):
    expect_decision_keys(check, "ChatState", ["messages", "summary"])


@decisions.rule("each decision names its merge rule (budgeted/add_messages, or overwrite), visible or internal, and why")
def decision_sentences(check):
    table = check.probe("attr", "DECISIONS")
    if type(table) is not dict or not table:
        raise Abort("not_implemented", "DECISIONS is empty: write one sentence per ChatState key")
    rules = {"messages": ("budgeted", "add_messages"), "summary": ("overwrite",)}
    for key, words in rules.items():
        text = table.get(key)
        if type(text) is not str or len(text.split()) < 6:
            raise Failure(f"DECISIONS[{key!r}] is {show(text)}; expected a sentence: the merge rule, visible or internal, "
                          "and why")
        lowered = text.lower()
        if not any(word in lowered for word in words) or not ("visible" in lowered or "internal" in lowered):
            raise Failure(f"DECISIONS[{key!r}] is {show(text)}; expected it to name its merge rule "
                          f"({' or '.join(words)}) and say whether the key is visible or internal")
