"""Mutants of part E: realistic buggy variants of ``solutions/agstate/messages.py``.

Each ``Mutant`` is one mistake, written as exact text edits of the reference;
``breaks`` is the set of part-E task ids the grader must fail for it, and
every other part-E task must keep full marks. When one mistake breaks
several tasks (``budgeted`` trims with ``trim_removals``, and the chat graph
and ``ChatState`` merge with ``budgeted``), all are listed and ``why`` says so.
"""

from support.corpus import Mutant
from support.corpus import mutant as _m

__all__ = ["MUTANTS", "EXAMPLES", "MIN_MUTANTS"]

UPSERT = "messages.upsert"
TRIM = "messages.trim"
BUDGET = "messages.budget"
SUMMARY = "messages.summary"
GRAPH = "messages.graph"
DECISIONS = "messages.decisions"

EXAMPLES = 20  # random examples per rule when the corpus is graded
MIN_MUTANTS = 30


CUT = "    cut = fitting[0] if fitting else cuts[-1]\n"
CUTS = "    cuts = [k for k, message in enumerate(rest) if isinstance(message, HumanMessage)]\n"
MERGE = "        merged = add_messages(held, copies)\n"
APPLY = "        return add_messages(merged, removals) if removals else merged\n"
COPIES = "        copies = [m.model_copy() if isinstance(m, BaseMessage) else m for m in writes]\n"
DECIDED = ('    "messages": "budgeted(MAX_MESSAGES), add_messages within a budget: merged by id so a retried turn is not stored "\n'
           '                "twice and messages can be edited or removed, and trimmed in the state definition so no node can "\n'
           '                "forget the budget or orphan a tool result.",\n'
           '    "summary": "overwrite (no reducer): the text of the turns trimmed away; each summary replaces the last, because it "\n'
           '               "already covers them.",\n')

MUTANTS: list[Mutant] = [
    _m("slice_trim", {TRIM, BUDGET, GRAPH},
       [(CUTS, "    cuts = list(range(len(rest)))\n")],
       "trims by slicing, at any message: a tool result loses its call and the provider refuses the history"),
    _m("drops_system_message", {TRIM, BUDGET},
       [("    start = 1 if messages and isinstance(messages[0], SystemMessage) else 0\n    rest = list(messages[start:])\n"
         "    # A cut", "    start = 0\n    rest = list(messages)\n    # A cut")],
       "the system message is trimmed with the oldest turn (it is first): the agent forgets its instructions "
       "(the graded chat runs send no system message, so the graph keeps its marks)"),
    _m("keeps_too_much", {TRIM, BUDGET, GRAPH},
       [(CUT, "    cut = cuts[0]\n")],
       "never removes anything once the history is over the budget: the checkpoint grows without bound"),
    _m("removes_too_much", {TRIM, BUDGET, GRAPH},
       [(CUT, "    cut = cuts[-1]\n")],
       "always cuts at the latest human message: earlier turns that would fit are lost"),
    _m("returns_kept_messages", {TRIM, BUDGET, GRAPH},
       [("    return [RemoveMessage(id=message.id) for message in rest[:cut]]\n", "    return rest[cut:]\n")],
       "returns the trimmed list instead of removals: re-sent to add_messages it changes nothing"),
    _m("operator_add", {UPSERT, BUDGET, GRAPH},
       [(MERGE, "        merged = list(held) + [m for m in copies if not isinstance(m, RemoveMessage)]\n")],
       "appends like operator.add: a retried message is stored twice and nothing can be edited or removed"),
    _m("mutates_new", {UPSERT},
       [(COPIES, "        copies = list(writes)\n")],
       "hands the caller's messages to add_messages, which writes fresh ids into them"),
    _m("no_budget_check", {UPSERT, TRIM},
       [("    if type(max_messages) is not int or max_messages < 4:\n",
         "    if max_messages is None:\n")],
       "the budget check budgeted and trim_removals share accepts 2, or '8': the failure comes later, inside a run"),
    _m("remove_by_position", {UPSERT, BUDGET},
       [(APPLY, "        return merged[len(removals):]\n"),
        (MERGE, "        merged = [m for m in add_messages(held, [m for m in copies if not isinstance(m, RemoveMessage)])]\n")],
       "removes by position instead of by id: RemoveMessage in a write is ignored (the trim's removals, a prefix, "
       "still work, so the graph keeps its marks)"),
    _m("chat_state_no_reducer", {BUDGET},
       [("    messages: Annotated[list[AnyMessage], budgeted(MAX_MESSAGES)]\n    summary: str\n    ### STUB",
         "    messages: list[AnyMessage]\n    summary: str\n    ### STUB")],
       "ChatState.messages has no merge rule: each write replaces the whole history"),
    _m("summary_appends", {BUDGET},
       [("    messages: Annotated[list[AnyMessage], budgeted(MAX_MESSAGES)]\n    summary: str\n    ### STUB",
         "    messages: Annotated[list[AnyMessage], budgeted(MAX_MESSAGES)]\n    summary: Annotated[str, operator.add]\n"
         "    ### STUB"),
        ("from collections.abc import Callable\n", "import operator\nfrom collections.abc import Callable\n")],
       "summary concatenates every summary ever written instead of replacing the last"),
    _m("summary_cut_not_moved", {SUMMARY},
       [("    while cut > 0 and not isinstance(rest[cut], HumanMessage):\n        cut -= 1\n", "")],
       "keeps exactly the last keep_last messages: the kept part can start with a tool result"),
    _m("summary_without_ids", {SUMMARY},
       [('    return f"{message.type}: {text} [{message.id}]"\n', '    return f"{message.type}: {text}"\n')],
       "the summary does not say which messages it replaced"),
    _m("summary_keeps_no_human", {SUMMARY},
       [("    cut = min(len(rest) - keep_last, len(rest) - 1) if rest else 0\n",
         "    cut = len(rest) - keep_last if rest else 0\n"),
        ("    while cut > 0 and not isinstance(rest[cut], HumanMessage):\n",
         "    while 0 < cut < len(rest) and not isinstance(rest[cut], HumanMessage):\n")],
       "keep_last=0 removes the latest human turn too: the model answers a question it cannot see"),
    _m("model_called_again", {GRAPH},
       [("        return END if isinstance(last, AIMessage) and not last.tool_calls else \"agent\"\n",
         "        return \"agent\"\n")],
       "re-invoking an answered turn calls the model again: a retried request costs a second completion",
       says=("sent again with the same id: sending", "again, after it was answered, called the model 1 time",
             "Rule: re-invoking an answered turn")),
    _m("tool_errors_raise", {GRAPH},
       [("            except Exception as exc:  # an unknown tool (KeyError) or one that raised: the model reads what failed\n"
         "                content, status = f\"error: {type(exc).__name__}: {exc}\", \"error\"\n",
         "            finally:\n                pass\n")],
       "a failing or unknown tool crashes the run instead of telling the model what failed"),
    _m("graph_writes_summary", {GRAPH},
       [('        return {"messages": [model.invoke(state["messages"])]}\n',
         '        return {"messages": [model.invoke(state["messages"])], "summary": ""}\n')],
       "the agent node resets summary on every call"),
    _m("graph_without_budget", {GRAPH},
       [("        messages: Annotated[list[AnyMessage], budgeted(max_messages)]\n        summary: str\n\n    def agent",
         "        messages: Annotated[list[AnyMessage], add_messages]\n        summary: str\n\n    def agent")],
       "the graph's state uses add_messages without the budget: the checkpoint and the model's input grow every turn"),
    _m("budget_too_big_to_matter", {BUDGET},
       [("MAX_MESSAGES = 8  # any int >= 4\n", "MAX_MESSAGES = 40  # any int >= 4\n"),
        ("    messages: Annotated[list[AnyMessage], budgeted(MAX_MESSAGES)]\n    summary: str\n    ### STUB",
         "    messages: Annotated[list[AnyMessage], add_messages]\n    summary: str\n    ### STUB")],
       "ChatState merges with add_messages alone, and a budget of 40 hides it on short histories"),
    _m("graph_budget_fixed", {GRAPH},
       [("        messages: Annotated[list[AnyMessage], budgeted(max_messages)]\n        summary: str\n\n    def agent",
         "        messages: Annotated[list[AnyMessage], budgeted(4)]\n        summary: str\n\n    def agent")],
       "the graph ignores max_messages and keeps 4: earlier turns the budget allows are lost"),
    _m("removal_by_filter", {UPSERT},
       [(MERGE, "        gone = {m.id for m in copies if isinstance(m, RemoveMessage)}\n"
                "        kept = [m for m in copies if not isinstance(m, RemoveMessage)]\n"
                "        merged = [m for m in add_messages(held, kept) if m.id not in gone]\n")],
       "removes by filtering ids: a removal of an id not held passes silently, and REMOVE_ALL_MESSAGES does nothing"),
    _m("old_id_written", {UPSERT},
       [("        held = [m if not isinstance(m, BaseMessage) or m.id else m.model_copy() for m in (old or [])]\n",
         "        held = list(old or [])\n")],
       "hands the stored messages to add_messages as they are: one stored without an id gets it written in",
       says=("changed its argument old: add_messages wrote an id into old's message",
             "hand it copies of every message, old's and new's")),
    _m("summary_calls_hide_text", {SUMMARY},
       [("    text = message.content if message.content or not calls else f\"calls {', '.join(call['name'] for call in "
         "calls)}\"\n", "    text = f\"calls {', '.join(call['name'] for call in calls)}\" if calls else message.content\n")],
       "an AI message that says something and calls tools is summarized by its calls alone",
       says=("' calls ", "has the text", "calls NAME, … is only for an AI message with no text, only tool calls")),
    _m("decisions_missing_summary", {DECISIONS},
       [('    "summary": "overwrite (no reducer): the text of the turns trimmed away; each summary replaces the last, because it "\n'
         '               "already covers them.",\n', "")],
       "DECISIONS says nothing about summary"),
    # -- the wrong versions a learner wrote (reviews/learner-E.md), each with the words that fix it in one try
    _m("hurried_reducer", {UPSERT},
       [("    ### BEGIN SOLUTION messages.upsert messages.budget\n    _check_budget(max_messages)\n",
         "    ### BEGIN SOLUTION messages.upsert messages.budget\n"),
        (MERGE, "        merged = add_messages(old or [], new)\n")],
       "no budget check and no copies: add_messages writes ids into the id-less messages of old and new, and "
       "budgeted(0) is accepted",
       says=("changed its arguments old and new", "hand it copies of every message, old's and new's")),
    _m("trim_cut_forward", {TRIM},
       [("    ### BEGIN SOLUTION messages.trim\n    _check_budget(max_messages)\n", "    ### BEGIN SOLUTION messages.trim\n"),
        ("    fitting = [k for k in cuts if start + len(rest) - k <= max_messages]\n" + CUT,
         "    cut = len(messages) - max_messages\n"
         "    while cut < len(rest) and not isinstance(rest[cut], HumanMessage):\n        cut += 1\n")],
       "cuts the excess and pushes the cut forward to the next human message, past the latest one when the budget "
       "cannot be met, and checks no budget (budgeted checks its own, and graded turns fit: only the trim loses)",
       says=("are always kept; here they are",
             "when the budget cannot be met, remove every turn before the latest human message")),
    _m("chat_state_add_messages", {BUDGET},
       [("    messages: Annotated[list[AnyMessage], budgeted(MAX_MESSAGES)]\n    summary: str\n    ### STUB",
         "    messages: Annotated[list[AnyMessage], add_messages]\n    summary: str\n    ### STUB")],
       "ChatState merges with add_messages alone: the history in the state has no budget",
       says=("it kept every message, as add_messages alone does", "merge with budgeted(MAX_MESSAGES)")),
    _m("chat_state_budget_fixed", {BUDGET},
       [("    messages: Annotated[list[AnyMessage], budgeted(MAX_MESSAGES)]\n    summary: str\n    ### STUB",
         "    messages: Annotated[list[AnyMessage], budgeted(6)]\n    summary: str\n    ### STUB")],
       "ChatState hard-codes budgeted(6) instead of budgeted(MAX_MESSAGES): it keeps fewer messages than it should",
       says=("it keeps what budgeted(6) keeps", "MAX_MESSAGES is 8")),
    _m("summary_index_error", {SUMMARY},
       [("    if type(keep_last) is not int or keep_last < 0:\n        raise ValueError(f\"keep_last is an int >= 0, not "
         "{keep_last!r}\")\n    start = 1 if messages and isinstance(messages[0], SystemMessage) else 0\n"
         "    rest = list(messages[start:])\n    cut = min(len(rest) - keep_last, len(rest) - 1) if rest else 0\n"
         "    while cut > 0 and not isinstance(rest[cut], HumanMessage):\n        cut -= 1\n"
         "    removed = rest[:max(cut, 0)]\n",
         "    start = 1 if isinstance(messages[0], SystemMessage) else 0\n    cut = len(messages) - keep_last\n"
         "    while cut > start and not isinstance(messages[cut], HumanMessage):\n        cut -= 1\n"
         "    removed = messages[start:cut]\n")],
       "indexes one past the end when keep_last=0, and checks neither keep_last nor an empty history",
       says=("summarize_removals(", "raised IndexError", "keep_last=0 keeps the latest human turn")),
    _m("decisions_terse", {DECISIONS},
       [(DECIDED, '    "messages": "budgeted(MAX_MESSAGES): add_messages within a budget.",\n    "summary": "overwrite.",\n')],
       "a terse phrase per key: the merge rule without why",
       says=("which name the merge rule but not why", "says why")),
    _m("trim_ignores_system", {TRIM, BUDGET},
       [("    fitting = [k for k in cuts if start + len(rest) - k <= max_messages]\n",
         "    fitting = [k for k in cuts if len(rest) - k <= max_messages]\n")],
       "leaves the system message out of the budget's count: with a system message one message too many is kept, "
       "so ChatState holds MAX_MESSAGES + 1 (budgeted applies trim_removals: messages.budget fails too, naming it; "
       "the graded chat runs send no system message, so the graph keeps its marks)",
       says=("trim_removals(", "max_messages counts every message, the system message included")),
    _m("trim_one_short", {TRIM, BUDGET, GRAPH},
       [("    fitting = [k for k in cuts if start + len(rest) - k <= max_messages]\n",
         "    fitting = [k for k in cuts if start + len(rest) - k < max_messages]\n")],
       "keeps one message fewer than the budget allows: a turn that exactly fits is removed (budgeted applies "
       "trim_removals, and ChatState and the chat graph merge with budgeted: they keep too little as well)",
       says=("trim_removals(", "exactly the budget of", "a history of max_messages messages fits")),
    _m("graph_trims_only_model_input", {GRAPH},
       [("        messages: Annotated[list[AnyMessage], budgeted(max_messages)]\n        summary: str\n\n    def agent(state):\n"
         "        return {\"messages\": [model.invoke(state[\"messages\"])]}\n",
         "        messages: Annotated[list[AnyMessage], add_messages]\n        summary: str\n\n    def agent(state):\n"
         "        seen = add_messages(state[\"messages\"], trim_removals(state[\"messages\"], max_messages))\n"
         "        return {\"messages\": [model.invoke(seen)]}\n")],
       "trims only what the model sees: the model's input stays within the budget, the checkpoint grows every turn",
       says=("the checkpoint after turn", "trimming only what the model sees is not enough")),
]
