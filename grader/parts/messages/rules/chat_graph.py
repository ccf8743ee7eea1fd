"""Notebook 32, messages.graph and messages.decisions: the chat agent over scripted runs, and why each key merges so."""

from grader.engine.checking import Abort, Counterexample, Failure, no_raise
from grader.engine.expectations import expect_decision_keys
from grader.engine.registry import task
from grader.engine.showing import counted, show
from grader.i18n import N_, _
from grader.parts.messages import strategies as gen
from grader.parts.messages.checks import brief, briefs, expect_history, trim_blamed
from grader.parts.messages.model import comparable, in_rounds, simulate_chat

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


def named(turn: dict) -> str:
    """A turn in feedback: its text and its human message's id, ``'and 42?' (u2)``."""
    return f"{turn['text']!r} ({turn['id']})"


def expected_run(case, checkpointed=True, before_trim=None):
    """The histories a correct graph gives the model, and holds after each invocation (grader.parts.messages.model)."""
    order = [*range(len(case["turns"])), *([len(case["turns"]) - 1] if checkpointed else [])]
    return simulate_chat(case["script"], case["turns"], order, case["budget"], _RESULTS, before_trim)


def scenario(case, checkpointed=True) -> str:
    """What the run sends, in the learner's words: every rule's feedback starts with it."""
    texts = [turn["text"] for turn in case["turns"]]
    if checkpointed:
        return (_("build_chat_graph(model, tools, checkpointer, max_messages={budget}) over the turns {texts}, then "
                  "{named} sent again with the same id").format(budget=case['budget'], texts=texts, named=named(case['turns'][-1])))
    return (_("build_chat_graph(model, tools, max_messages={budget}) without a checkpointer, over the turns "
              "{texts}, each sending the previous output's messages and the new question").format(budget=case['budget'], texts=texts))


def run(check, case, checkpointed=True, resend_judged=False):
    """The run's answers; a raise fails the rule, except one while re-sending, which only the re-send rule judges."""
    resend = [len(case["turns"]) - 1] if checkpointed else []
    what = scenario(case, checkpointed)
    got = no_raise(check.probe("chat_run", case["script"], case["turns"], case["budget"], checkpointed, resend,
                               limit=10.0), what)
    sent = [case["turns"][index]["id"] for index in [*range(len(case["turns"])), *resend]]
    example = Counterexample("build_chat_graph", [case["script"], case["turns"], case["budget"], sent], None, None)
    resending = len(got["turns"]) >= len(case["turns"])
    if got["raised"] is not None and (resend_judged or not resending):
        turn = case["turns"][got["at"]]
        no_raise(got["raised"], f"{what}: {f'sending {named(turn)} again' if resending else f'turn {named(turn)}'}")
    return what, got, example


def graph_rule(sentence):
    def register(judge):
        @graph_task.rule(sentence)
        def rule(check):
            check.each([(case,) for case in FIXED])(lambda case: judge(check, case))
            check.forall(gen.scripts(), examples=check.budget("run"))(lambda case: judge(check, case))
        return rule
    return register


def trimmed_too_much(check, got: list, wanted: list, before: list, budget: int) -> str:
    """When the model got fewer messages than budgeted keeps and the learner's own trim_removals, on what the last
    write merged (``before``), removes other messages than the rules do: the words that name it; else nothing."""
    if not isinstance(got, list) or len(got) >= len(wanted):
        return ""
    # A failing tool's text is the learner's to write: any text stands for it here.
    return trim_blamed(check, [{**m, "content": m["content"] if m["content"] is not None else "error"} for m in before],
                       budget)


def before_the_resend(case, got) -> tuple[list, list]:
    """The turns up to the re-send, and the histories the model got over them: the re-send rule judges the rest."""
    turns = got["turns"][:len(case["turns"])]
    return turns, got["received"][:sum(done["model_calls"] for done in turns)]


@graph_rule(N_("the model always receives the history budgeted(max_messages) keeps: valid, at most max_messages "
            "messages, over scripted multi-turn runs"))
def received(check, case):
    what, got, example = run(check, case)
    turns, histories = before_the_resend(case, got)
    turn_of = [case["turns"][done["turn"]] for done in turns for _call in range(done["model_calls"])]
    for number, (history, turn) in enumerate(zip(histories, turn_of), 1):
        where = _("{what}: model call {number} (turn {named})").format(what=what, number=number, named=named(turn))
        expect_history(where, history, case["budget"], example, holds="received")
        if len(history) > case["budget"]:
            raise Failure(_("{where} received {count} messages, {briefs}; the budget is {budget}").format(
                              where=where, count=len(history), briefs=briefs(history), budget=case['budget']), example)
    merged = []
    calls = expected_run(case, before_trim=merged)[0]
    for number, (history, wanted, turn, before) in enumerate(zip(histories, calls, turn_of, merged), 1):
        if in_rounds([comparable(m) for m in history]) != in_rounds(wanted):
            raise Failure(_("{what}: model call {number} (turn {named}) received {counted}, {briefs}; expected the {count} "
                            "messages budgeted({budget}) keeps: the oldest whole turns removed, no more{trimmed_too_much}").format(
                              what=what, number=number, named=named(turn), counted=counted(len(history), 'message'),
                              briefs=briefs(history), count=len(wanted), budget=case['budget'],
                              trimmed_too_much=trimmed_too_much(check, history, wanted, before, case['budget'])), example)
    if len(histories) != len(calls):
        raise Failure(_("{what}: over the {count} turns the model was called {count2} times; expected {count3}, one per step "
                        "of the script (the model is called while the last message asks for tools)").format(
                          what=what, count=len(case['turns']), count2=len(histories), count3=len(calls)), example)


@graph_rule(N_("each turn ends with the script's answer; each tool call gets a ToolMessage with str(result) and its tool_call_id"))
def answers(check, case):
    what, got, example = run(check, case)
    for done in got["turns"][:len(case["turns"])]:
        turn = case["turns"][done["turn"]]
        final = case["script"][turn["text"]][-1]
        output = done["output"]
        last = output[-1] if isinstance(output, list) and output else None
        if not isinstance(last, dict) or last.get("type") != "ai" or last.get("content") != final:
            raise Failure(_("{what}: turn {named} ended with {last}; expected the AI answer {final}").format(
                              what=what, named=named(turn), last=brief(last), final=repr(final)), example)
        expect_tool_results(what, output, example)


def expect_tool_results(what, output, example, errors=False):
    answered = {m.get("tool_call_id"): m for m in output if m.get("type") == "tool"}
    for message in output:
        for call in message.get("tool_calls") or []:
            result = answered.get(call["id"])
            if result is None:
                raise Failure(_("{what}: the tool call {id} ({name}) got no ToolMessage").format(
                                  what=what, id=call['id'], name=call['name']), example)
            if call["name"] in _RESULTS and not errors:
                wanted = _RESULTS[call["name"]](call["args"])
                if result.get("content") != wanted or result.get("status") != "success":
                    raise Failure(_("{what}: the tool call {id} got {get} (status {get2}); expected {wanted}, str() of what the tool "
                                    "returned").format(what=what, id=call['id'], get=show(result.get('content')), get2=result.get('status'),
                                      wanted=repr(wanted)), example)
            if call["name"] in _ERRORS and errors:
                kind, words = _ERRORS[call["name"]]
                if result.get("status") != "error" or not (kind in result.get("content", "") or words in result.get("content", "")):
                    raise Failure(_("{what}: the {name} call {id}, whose tool raised {kind}, got {get} (status {get2}); expected "
                                    "status='error' and a content naming the error").format(
                                      what=what, name=call['name'], id=call['id'], kind=kind, get=show(result.get('content')),
                                      get2=result.get('status')), example)


@graph_rule(N_("an unknown or raising tool gives a ToolMessage with status='error' that names the error"))
def tool_errors(check, case):
    what, got, example = run(check, case)
    for done in got["turns"]:
        expect_tool_results(what, done["output"], example, errors=True)


@graph_rule(N_("the checkpoint holds the history budgeted(max_messages) keeps, and summary is never written"))
def stored(check, case):
    what, got, example = run(check, case)
    _skip, after = expected_run(case)
    turns, histories = before_the_resend(case, got)
    budget = case["budget"]
    # The one cause of a checkpoint over the budget the grader can see: the model was given a trimmed history.
    trimmed_for_the_model = (_(" (the model received at most {budget} messages: trimming only what the model sees is not enough; "
                               "merge messages with budgeted(max_messages) in the graph's state)").format(budget=budget)
                             if histories and all(len(history) <= budget for history in histories) else "")
    for done, wanted in zip(turns, after):
        where = _("{what}: the checkpoint after turn {named}").format(what=what, named=named(case['turns'][done['turn']]))
        expect_history(where, done["stored"], budget, example, over=trimmed_for_the_model)
        if in_rounds([comparable(m) for m in done["stored"]]) != in_rounds(wanted):
            held = len(done["stored"])
            raise Failure(_("{where} holds {briefs}; expected the {count} messages budgeted({budget}) keeps{value}").format(
                              where=where, briefs=briefs(done['stored']), count=len(wanted), budget=budget,
                              value=f', not {held}' if held != len(wanted) else ''), example)
    for done in got["turns"]:
        if "summary" in done["stored_keys"] or "summary" in done["keys"]:
            raise Failure(_("{what}: the graph wrote summary; it never does (summarizing is another node's job)").format(
                              what=what), example)


@graph_rule(N_("re-invoking an answered turn with the same ids changes nothing and does not call the model"))
def reinvoked(check, case):
    what, got, example = run(check, case, resend_judged=True)
    before, again = got["turns"][len(case["turns"]) - 1], got["turns"][-1]
    if again["model_calls"] or again["stored"] != before["stored"]:
        held = {m.get("id") for m in before["stored"]}
        added = [m for m in again["stored"] if m.get("id") not in held]
        did = [_("called the model {counted}").format(counted=counted(again["model_calls"], "time"))] if again["model_calls"] \
            else []
        did += [_("appended {messages}").format(messages=briefs(added))] if added else \
            [_("left {briefs} (before: {briefs2})").format(briefs=briefs(again["stored"]), briefs2=briefs(before["stored"]))] \
            if again["stored"] != before["stored"] else []
        raise Failure(_("{what}: sending {named} again, after it was answered, {join}; expected no model call and no change: "
                        "a turn already answered ends at once (its last message is the AI answer)").format(
                          what=what, named=named(case['turns'][-1]), join=_(" and ").join(did)), example)


@graph_rule(N_("without a checkpointer, each turn sending the previous messages on gives the same answers"))
def no_checkpointer(check, case):
    what, got, example = run(check, case, checkpointed=False)
    for done in got["turns"]:
        turn = case["turns"][done["turn"]]
        final = case["script"][turn["text"]][-1]
        last = done["output"][-1] if isinstance(done["output"], list) and done["output"] else None
        if not isinstance(last, dict) or last.get("content") != final:
            raise Failure(_("{what}: turn {named} ended with {last}; expected {final}").format(
                              what=what, named=named(turn), last=brief(last), final=repr(final)), example)
        expect_history(_("{what}: the output of turn {named}").format(what=what, named=named(turn)), done["output"],
                       case["budget"], example)


@decisions.rule(N_("DECISIONS has exactly the keys of ChatState"))
def decision_keys(check):
    expect_decision_keys(check, "ChatState", ["messages", "summary"])


_RULES = {"messages": ("budgeted", "add_messages"), "summary": ("overwrite",)}  # each key's merge rule, in words
_SENTENCE = 8  # words: fewer name a merge rule, not why


@decisions.rule(N_("each decision names its merge rule (budgeted/add_messages, or overwrite) and why"))
def decision_sentences(check):
    table = check.probe("attr", "DECISIONS")
    if type(table) is not dict or not table:
        raise Abort("not_implemented", _("DECISIONS is empty: write one sentence per ChatState key"))
    for key, words in _RULES.items():
        text = table.get(key)
        rule = " or ".join(words)
        if type(text) is not str:
            raise Failure(_("DECISIONS[{key}] is {text}; expected a sentence (a str) that names {key2}'s merge rule ({rule}) and "
                            "says why").format(key=repr(key), text=show(text), key2=key, rule=rule))
        if not any(word in text.lower() for word in words):
            raise Failure(_("DECISIONS[{key}] is {text}; expected it to name {key2}'s merge rule ({rule}), and say why").format(
                              key=repr(key), text=show(text), key2=key, rule=rule))
        if len(text.split()) < _SENTENCE:
            raise Failure(_("DECISIONS[{key}] is {text}: {counted}, which name the merge rule but not why; expected a sentence "
                            "that also says why {key2} merges so (what goes wrong with another rule)").format(
                              key=repr(key), text=show(text), counted=counted(len(text.split()), 'word'), key2=key))
