"""Part E's documented sentences (solutions/agstate/messages.py) and the grader rule that checks each."""
from doc_rules import checked, explains

# The rules' sentences, once each: several documented sentences are checked by the same rule.
UPSERT_APPENDS = "budgeted(n) appends a message with a new id and replaces a message whose id is stored, in place"
UPSERT_REMOVES = ("budgeted(n) removes the messages named by RemoveMessage; RemoveMessage(id=REMOVE_ALL_MESSAGES) "
                  "clears the history")
UPSERT_RESENT = "a re-sent write (the same messages, the same ids) changes nothing"
UPSERT_PURE = "budgeted(n) never mutates its arguments: a message without an id gets one in the result only"
UPSERT_NONE = "old may be None: nothing stored yet"
UPSERT_UNKNOWN = "removing an id the history does not hold raises ValueError, as add_messages does"
BAD_BUDGET = "budgeted(n) raises ValueError at once when n is not an int >= 4"
TRIM_BAD_BUDGET = "trim_removals(messages, n) raises ValueError at once when n is not an int >= 4"
TRIM_SHAPE = "trim_removals returns [] when the history fits, else RemoveMessages of its ids in history order"
TRIM_KEEPS = "the system message, the latest human message and everything after it are never removed"
TRIM_VALID = "the removals leave a valid history: no tool result without its call, starting with a human turn"
TRIM_SHORTEST = "the shortest such prefix is removed: at most max_messages remain whenever the rules allow it"
TRIM_PURE = "trim_removals never mutates its arguments"
CHAT_STATE = "ChatState has exactly messages, merged by budgeted(MAX_MESSAGES), and summary, overwritten"
BUDGET_GRAPH = ("through a graph, messages holds after every step what budgeted(MAX_MESSAGES) keeps: valid, within the "
                "budget, and no turn removed that still fits")
BUDGET_SHORTER = "a node returning a shorter list or [] to messages changes nothing: only RemoveMessage removes"
SUMMARY_KEEPS = ("summarize_removals keeps the system message and the last keep_last messages, the cut moved earlier "
                 "to a human message")
SUMMARY_WORDS = ("the summary names every removed message as role: text [id] (calls NAME, … for an AI message with no "
                 "text, only tool calls), in order, joined by '; '")
SUMMARY_NOTHING = "nothing to remove gives ('', [])"
SUMMARY_STRICT = "summarize_removals raises ValueError unless keep_last is an int >= 0, and never mutates its arguments"
GRAPH_RECEIVED = ("the model always receives the history budgeted(max_messages) keeps: valid, at most max_messages "
                  "messages, over scripted multi-turn runs")
GRAPH_ANSWERS = ("each turn ends with the script's answer; each tool call gets a ToolMessage with str(result) and its "
                 "tool_call_id")
GRAPH_ERRORS = "an unknown or raising tool gives a ToolMessage with status='error' that names the error"
GRAPH_CHECKPOINT = "the checkpoint holds the history budgeted(max_messages) keeps, and summary is never written"
GRAPH_REINVOKE = "re-invoking an answered turn with the same ids changes nothing and does not call the model"
GRAPH_STATELESS = "without a checkpointer, each turn sending the previous messages on gives the same answers"
DECISIONS_KEYS = "DECISIONS has exactly the keys of ChatState"
DECISIONS_WHY = "each decision names its merge rule (budgeted/add_messages, or overwrite) and why"

UPSERT, TRIM, BUDGET = "messages.upsert", "messages.trim", "messages.budget"
SUMMARY, GRAPH, DECISIONS = "messages.summary", "messages.graph", "messages.decisions"

TABLE = {
    # -- the module ---------------------------------------------------------------------------
    ("module", "Part E — the messages key: upsert by id, remove by id, trim without breaking the conversation."):
        explains("the part's title and motto; each clause is a function's promise, checked there (budgeted, "
                 "trim_removals)"),
    ("module", "Every chat agent's state has ``messages``."):
        explains("context: why the part exists"),
    ("module", "With no merge rule it keeps only the last turn; with ``operator.add`` a retried model call is appended "
               "twice and nothing can be edited or removed."):
        explains("what LangGraph does with the two wrong merge rules (notebook 28 runs both), not a promise of the "
                 "learner's code"),
    ("module", "LangGraph's ``add_messages`` merges by message id instead, and removes with ``RemoveMessage``."):
        explains("what LangGraph's add_messages does (notebook 28 runs it); the learner's reducer built on it is "
                 "checked in budgeted's sentences"),
    ("module", "Keeping the history short is then a matter of removals that leave a conversation a chat API still "
               "accepts (``conversation_problems`` says what it checks)."):
        checked(TRIM, TRIM_VALID),  # the rule judges the history left with the same checks as conversation_problems
    ("module", "Rules every function here follows:"):
        explains("introduces the list of rules that follows; each item is checked on its own"),
    # "counts every message, the system message included": the model's trim counts it (TRIM_SHORTEST's expected
    #   removals), and so does the graph rules' budget (GRAPH_RECEIVED).
    ("module", "- a budget (``max_messages``) is an int, not a bool, of at least 4; it counts every message, the system "
               "message included;"):
        checked(UPSERT, BAD_BUDGET),
    # also: UPSERT_PURE, and SUMMARY_STRICT for summarize_removals; "in history order": TRIM_SHAPE
    ("module", "- inputs are never mutated; removals are ``RemoveMessage`` s, in history order."):
        checked(TRIM, TRIM_PURE),
    ("module", "Notebooks: 28_upsert_by_id … 32_chat_graph."):
        explains("a pointer to the part's notebooks"),
    ("module", 'Check with ``check("messages")``.'):
        explains("how to run the grader on this part"),
    # -- trim_removals ----------------------------------------------------------------------------
    ("trim_removals", "The removals that bring a valid history to at most ``max_messages`` messages, oldest first."):
        checked(TRIM, TRIM_SHORTEST),  # "oldest first": the expected removals are a prefix, in history order
    ("trim_removals", "The leading system message is never removed."):
        checked(TRIM, TRIM_KEEPS),
    ("trim_removals", "The latest human message and everything after it are kept."):
        checked(TRIM, TRIM_KEEPS),
    ("trim_removals", "An AI message with tool calls and the tool messages answering it go together or not at all."):
        checked(TRIM, TRIM_VALID),
    ("trim_removals", "The first message kept after the system message is a human message."):
        checked(TRIM, TRIM_VALID),
    ("trim_removals", "The shortest such prefix is removed; when none meets the budget, the longest the rules allow."):
        checked(TRIM, TRIM_SHORTEST),  # both halves: the model's expected removals, compared id by id
    ("trim_removals", "``[]`` when nothing needs removing."):
        checked(TRIM, TRIM_SHAPE),
    ("trim_removals", "Raises ``ValueError`` for a bad budget."):
        checked(TRIM, TRIM_BAD_BUDGET),
    # -- budgeted -----------------------------------------------------------------------------------
    # also: the add_messages half, UPSERT_APPENDS and UPSERT_REMOVES (judged against add_messages' model)
    ("budgeted", "A reducer: ``add_messages(old, new)``, then the removals of ``trim_removals`` applied."):
        checked(BUDGET, BUDGET_GRAPH),
    # also: "removes by RemoveMessage": UPSERT_REMOVES; "never holds more than the trim rules allow": BUDGET_GRAPH
    ("budgeted", "It upserts by id (a message with a stored id replaces it in place), removes by ``RemoveMessage``, and "
                 "never holds more than the trim rules allow."):
        checked(UPSERT, UPSERT_APPENDS),
    ("budgeted", "A re-sent write (the same messages, the same ids) changes nothing."):
        checked(UPSERT, UPSERT_RESENT),
    ("budgeted", "Merge by id cannot dedupe what it already removed: a re-sent message the trim took out is new again."):
        explains("the limit of the re-send promise above (add_messages appends an id it no longer holds): the grader's "
                 "model merges so, and notebook 32 runs a trimmed turn re-sent"),
    ("budgeted", "Removing an id it does not hold raises ``ValueError``, as ``add_messages`` does."):
        checked(UPSERT, UPSERT_UNKNOWN),
    ("budgeted", "It never mutates its arguments: a message without an id gets one in the result only."):
        checked(UPSERT, UPSERT_PURE),
    ("budgeted", "``old`` may be None."):
        checked(UPSERT, UPSERT_NONE),
    ("budgeted", "Raises ``ValueError`` at once for a bad budget."):
        checked(UPSERT, BAD_BUDGET),
    # -- ChatState ----------------------------------------------------------------------------------
    ("ChatState", "A chat agent's state: ``messages`` merged by id within a budget, ``summary`` overwritten."):
        checked(BUDGET, CHAT_STATE),
    ("ChatState", "``messages`` uses ``budgeted(MAX_MESSAGES)``; ``summary`` (the text of turns summarized away) has no "
                  "merge rule."):
        checked(BUDGET, CHAT_STATE),  # what summary holds is the summarizing node's business (notebook 31)
    # -- summarize_removals ---------------------------------------------------------------------------
    # also: the removals, SUMMARY_KEEPS
    ("summarize_removals", "A summary of the old messages, and the removals that take them out of the history."):
        checked(SUMMARY, SUMMARY_WORDS),
    ("summarize_removals", "Keeps the system message and the last ``keep_last`` other messages; the cut moves earlier "
                           "to the nearest human message, so no tool call is split from its results and the kept part "
                           "starts with a human turn (``keep_last=0`` keeps the latest human turn)."):
        checked(SUMMARY, SUMMARY_KEEPS),  # keep_lasts draws 0 too
    ("summarize_removals", 'The summary names every removed message as ``role: text [id]`` (``calls NAME, …`` for an '
                           'AI message with no text, only tool calls), in history order, joined by ``"; "``; '
                           '``_named`` below writes one message so.'):
        checked(SUMMARY, SUMMARY_WORDS),
    ("_named", "``role: text [id]``, one removed message as the summary names it (``calls NAME, …`` for an AI message "
               "with no text, only tool calls)."):
        checked(SUMMARY, SUMMARY_WORDS),  # a provided helper: the rule judges the summary it writes
    ("summarize_removals", 'Nothing removed gives ``("", [])``.'):
        checked(SUMMARY, SUMMARY_NOTHING),
    ("summarize_removals", "Raises ``ValueError`` unless ``keep_last`` is an int >= 0."):
        checked(SUMMARY, SUMMARY_STRICT),
    # -- build_chat_graph -------------------------------------------------------------------------------
    ("build_chat_graph", "A chat agent: ``agent`` calls ``model.invoke(messages)``; ``tools`` answers every tool call "
                         "it asks for."):
        checked(GRAPH, GRAPH_ANSWERS),
    # also: budgeted(max_messages) through the runs: GRAPH_RECEIVED (the model's histories within max_messages)
    ("build_chat_graph", "The state has ``ChatState``'s keys, ``messages`` merged by ``budgeted(max_messages)``; the "
                         "graph never writes ``summary``."):
        checked(GRAPH, GRAPH_CHECKPOINT),
    # also: the error half, GRAPH_ERRORS
    ("build_chat_graph", "Each tool call runs ``tools[name](**args)`` and gives a ``ToolMessage`` with content "
                         "``str(result)`` and the call's ``tool_call_id``; an unknown or raising tool gives one with "
                         '``status="error"`` naming the error.'):
        checked(GRAPH, GRAPH_ANSWERS),
    ("build_chat_graph", "The loop ends when the AI message has no tool calls."):
        checked(GRAPH, GRAPH_ANSWERS),  # each turn ends with the script's answer, the AI message without calls
    ("build_chat_graph", "A turn already answered (invoked again with the same message ids) changes nothing and does "
                         "not call the model."):
        checked(GRAPH, GRAPH_REINVOKE),
    ("build_chat_graph", "A turn the budget has already trimmed away is answered again: merge by id cannot dedupe what "
                         "it already removed."):
        explains("the limit of the promise above, run in notebook 32; the graded runs re-send only a turn still held"),
}

# The "Your exercise" sections of part E's notebooks (solutions/notebooks/28_upsert_by_id.py … 32_chat_graph.py).
NOTEBOOKS = {
    ('28_upsert_by_id',
     'In `agstate/messages.py`, write **`budgeted(max_messages)`**: it returns a reducer `(old, new)` that merges as '
     '`add_messages(old or [], new)` does, on copies of every message.'):
        checked(UPSERT, UPSERT_APPENDS),  # also: the bullets below, each checked on its own
    ('28_upsert_by_id', '- It appends a message with a new id and replaces a message whose id is stored, in place.'):
        checked(UPSERT, UPSERT_APPENDS),
    ('28_upsert_by_id',
     '- It removes the messages named by `RemoveMessage`; `RemoveMessage(id=REMOVE_ALL_MESSAGES)` clears the history.'):
        checked(UPSERT, UPSERT_REMOVES),
    ('28_upsert_by_id', '- A re-sent write (the same messages, the same ids) changes nothing.'):
        checked(UPSERT, UPSERT_RESENT),
    ('28_upsert_by_id',
     "- It never mutates its arguments: `add_messages` writes an id into every id-less message of both lists it is "
     "given, so hand it copies of every message, `old`'s and `new`'s (`message.model_copy()`); a message without an id "
     "gets one in the result only."):
        checked(UPSERT, UPSERT_PURE),
    ('28_upsert_by_id', '- `old` may be `None`: nothing stored yet.'):
        checked(UPSERT, UPSERT_NONE),
    ('28_upsert_by_id',
     '- `budgeted(n)` raises `ValueError` at once, at the call, when `n` is not an int >= 4 (`True` is a bool, not a '
     'budget).'):
        checked(UPSERT, BAD_BUDGET),  # bad_budgets draws True
    ('28_upsert_by_id',
     'Then the budget: when the merged history is longer than `max_messages`, apply the removals '
     '`trim_removals(merged, max_messages)` returns, which you write in the next notebook.'):
        checked(BUDGET, BUDGET_GRAPH),
    ('28_upsert_by_id',
     'Call it only then: a history within its budget needs no trim, so your `budgeted` works now, before '
     '`trim_removals` exists.'):
        explains("a hint on how to write it so that notebook 28's check passes before notebook 29's exercise; "
                 "the trim itself is BUDGET_GRAPH's"),
    ('28_upsert_by_id', 'The check below uses budgets large enough that nothing is trimmed.'):
        explains("how the check cell grades: the upsert rules use a budget no example reaches (strategies.BIG)"),
    ('29_trim_without_orphans',
     'In `agstate/messages.py`, write **`trim_removals(messages, max_messages=MAX_MESSAGES)`** as its docstring says.'):
        checked(TRIM, TRIM_SHORTEST),  # also: the docstring's rules, each in TABLE
    ('29_trim_without_orphans',
     'The grader draws random valid histories (with and without a system message, turns with no, one or several tool '
     'calls) and budgets, and applies your removals with `add_messages`:'):
        explains("how the check cell grades: the inputs its rules draw (strategies.trim_cases); introduces the list"),
    ('29_trim_without_orphans',
     '- `trim_removals` returns `[]` when the history fits, else `RemoveMessage`s of its ids in history order.'):
        checked(TRIM, TRIM_SHAPE),
    ('29_trim_without_orphans',
     '- The system message, the latest human message and everything after it are never removed.'):
        checked(TRIM, TRIM_KEEPS),
    ('29_trim_without_orphans',
     '- The removals leave a valid history: no tool result without its call, starting with a human turn.'):
        checked(TRIM, TRIM_VALID),
    ('29_trim_without_orphans',
     '- The shortest such prefix is removed: at most `max_messages` remain whenever the rules allow it.'):
        checked(TRIM, TRIM_SHORTEST),
    ('29_trim_without_orphans', '- It never mutates its arguments.'):
        checked(TRIM, TRIM_PURE),
    ('29_trim_without_orphans', '- It raises `ValueError` at once when the budget is not an int >= 4, as `budgeted` does.'):
        checked(TRIM, TRIM_BAD_BUDGET),
    ('30_budget_in_the_state',
     'In `agstate/messages.py`, complete **`ChatState`**: `messages` merged by `budgeted(MAX_MESSAGES)`, and '
     '`summary`, a `str` with no merge rule.'):
        checked(BUDGET, CHAT_STATE),
    ('30_budget_in_the_state',
     "Your `budgeted` must now apply `trim_removals` when a write takes the history over its budget (notebook 28's "
     "exercise, with notebook 29's trim)."):
        checked(BUDGET, BUDGET_GRAPH),
    ('30_budget_in_the_state', 'The grader checks:'):
        explains("introduces the list of rules that follows; each item is checked on its own"),
    ('30_budget_in_the_state',
     '- `ChatState` has exactly `messages`, merged by `budgeted(MAX_MESSAGES)`, and `summary`, overwritten.'):
        checked(BUDGET, CHAT_STATE),
    ('30_budget_in_the_state',
     '- Through a graph of random turns, `messages` holds after every step what `budgeted(MAX_MESSAGES)` keeps: '
     'valid, within the budget, and no turn removed that still fits.'):
        checked(BUDGET, BUDGET_GRAPH),
    ('30_budget_in_the_state',
     '- A node returning a shorter list or `[]` to `messages` changes nothing: only `RemoveMessage` removes.'):
        checked(BUDGET, BUDGET_SHORTER),
    ('31_summarize_old_turns',
     'In `agstate/messages.py`, write **`summarize_removals(messages, keep_last)`** as its docstring says.'):
        checked(SUMMARY, SUMMARY_KEEPS),  # also: the docstring's rules, each in TABLE
    # the summary names the removed messages only: a folded-in previous summary would break SUMMARY_WORDS
    ('31_summarize_old_turns',
     'It returns `(summary, removals)`; the node that writes `summary` folds in the previous one, not this function.'):
        checked(SUMMARY, SUMMARY_WORDS),
    ('31_summarize_old_turns',
     '- It keeps the system message and the last `keep_last` messages, the cut moved earlier to a human message.'):
        checked(SUMMARY, SUMMARY_KEEPS),
    ('31_summarize_old_turns',
     '- The summary names every removed message as `role: text [id]` (`calls NAME, …` for an AI message with no '
     'text, only tool calls), in order, joined by `"; "`: `_named(message)`, below `summarize_removals` in the module, '
     'writes one message so.'):
        checked(SUMMARY, SUMMARY_WORDS),
    ('31_summarize_old_turns', '- Nothing to remove gives `("", [])`.'):
        checked(SUMMARY, SUMMARY_NOTHING),
    ('31_summarize_old_turns',
     '- It raises `ValueError` unless `keep_last` is an int >= 0, and never mutates its arguments.'):
        checked(SUMMARY, SUMMARY_STRICT),
    ('32_chat_graph',
     'In `agstate/messages.py`, write **`build_chat_graph(model, tools, checkpointer=None, '
     'max_messages=MAX_MESSAGES)`** as its docstring says, and fill in **`DECISIONS`**.'):
        checked(GRAPH, GRAPH_ANSWERS),  # also: the bullets below, and DECISIONS' two rules
    ('32_chat_graph', 'The grader runs your graph on scripted multi-turn conversations, as the cells above do:'):
        explains("how the check cell grades (strategies.scripts); introduces the list of rules that follows"),
    ('32_chat_graph',
     '- The model always receives a valid history of at most `max_messages` messages, over scripted multi-turn runs.'):
        checked(GRAPH, GRAPH_RECEIVED),
    ('32_chat_graph',
     "- Each turn ends with the script's answer; each tool call gets a `ToolMessage` with `str(result)` and its "
     "`tool_call_id`."):
        checked(GRAPH, GRAPH_ANSWERS),
    ('32_chat_graph', '- An unknown or raising tool gives a `ToolMessage` with `status="error"` that names the error.'):
        checked(GRAPH, GRAPH_ERRORS),
    ('32_chat_graph',
     '- The checkpointed history never holds more than the budget allows, and `summary` is never written.'):
        checked(GRAPH, GRAPH_CHECKPOINT),
    ('32_chat_graph', '- Re-invoking an answered turn with the same ids changes nothing and does not call the model.'):
        checked(GRAPH, GRAPH_REINVOKE),
    ('32_chat_graph', '- Without a checkpointer, each turn sending the previous messages on gives the same answers.'):
        checked(GRAPH, GRAPH_STATELESS),
    ('32_chat_graph', 'For `DECISIONS`:'):
        explains("introduces the list of rules that follows; each item is checked on its own"),
    ('32_chat_graph', '- It has exactly the keys of `ChatState`.'):
        checked(DECISIONS, DECISIONS_KEYS),
    ('32_chat_graph',
     '- Each decision names its merge rule (`budgeted`/`add_messages`, or overwrite) and why.'):
        checked(DECISIONS, DECISIONS_WHY),
}
