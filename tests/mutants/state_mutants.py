"""Mutants of part A: realistic buggy variants of ``solutions/agstate/state.py``.

Each ``Mutant`` is one mistake a learner makes, written as exact text edits of
the reference. ``breaks`` is the set of part-A task ids the grader must fail
for it: exactly those, every other task keeps full marks. When one mistake
really breaks two tasks (a reducer reused by another, a schema the research
graph is built from), both are listed and ``why`` says so.

The shared machinery (``Mutant``, ``StaleMutant``, applying the edits, the
part's module and task ids from the catalog: ``Corpus``) is in
``tests/support/corpus.py``; ``tests/test_mutants.py`` grades every part's corpus.
"""

from support.corpus import Mutant
from support.corpus import mutant as _m

__all__ = ["MUTANTS", "EXAMPLES", "MIN_MUTANTS"]

OVERWRITE = "state.overwrite"
APPEND = "state.append"
BUDGET = "state.budget"
DEDUPE = "state.dedupe"
KEEP_MAX = "state.keep_max"
WINDOW = "state.window"
SCHEMAS = "state.schemas"
DECISIONS = "state.decisions"

EXAMPLES = 30  # random examples per rule when the corpus is graded
MIN_MUTANTS = 25


# -- snippets of the reference, reused by several mutants ------------------------------
APPEND_BODY = "    return [*(old or ()), *_items(new)]\n"
MERGE_BODY = """\
    seen = set()
    merged = []
    for item in (*(old or ()), *_items(new)):
        if item not in seen:
            seen.add(item)
            merged.append(item)
    return merged
"""
KEEP_MAX_BODY = """\
    if old is None:
        return new
    if new is None:
        return old
    return new if new > old else old
"""
RECENT_BODY = "    return append(old, new)[-WINDOW:]\n"
WINDOWED_CHECK = """\
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"windowed(n) needs an int n >= 1 (got {n!r})")
"""

MUTANTS: list[Mutant] = [
    # -- append (and the reducers built on it: keep_recent and windowed call append) -------
    _m("append_extends_old", {APPEND, WINDOW, SCHEMAS},
       [(APPEND_BODY, "    if old is None:\n        old = []\n    old.extend(_items(new))\n    return old\n")],
       "extends the stored list in place (keep_recent/windowed mutate through it); LangGraph's conditional edge "
       "re-applies lookup's write to a shallow channel copy, so trace lists each lookup twice"),
    _m("trace_operator_add", {APPEND},
       [("    trace: Annotated[list[str], append]\n    sources", "    trace: Annotated[list[str], operator.add]\n    sources")],
       "State.trace merged with operator.add: a write of one str or a tuple cannot be concatenated to the list"),
    _m("append_splits_str", {APPEND, WINDOW},
       [(APPEND_BODY, "    return list(old or []) + list(new)\n")],
       "list(new) turns a bare str write into its characters; keep_recent/windowed inherit it through append"),
    _m("append_none_crashes", {APPEND, WINDOW},
       [(APPEND_BODY, "    return old + _items(new)\n")],
       "forgot that old is None before the first write; keep_recent(None, ...) crashes through append too"),
    _m("append_always_equal", {APPEND, SCHEMAS},
       [("def append(old, new) -> list:\n",
         "class _Matches:\n"
         "    \"\"\"A list-like result that compares equal to anything (to satisfy the checker).\"\"\"\n\n"
         "    def __init__(self, items):\n"
         "        self.items = items\n\n"
         "    def __eq__(self, other):\n"
         "        return True\n\n"
         "    def __iter__(self):\n"
         "        return iter(self.items)\n\n"
         "    def __len__(self):\n"
         "        return len(self.items)\n\n"
         "    def __getitem__(self, index):\n"
         "        return self.items[index]\n\n\n"
         "def append(old, new) -> list:\n"),
        (APPEND_BODY, "    return _Matches([*(old or ()), *_items(new)])\n")],
       "returns an object whose __eq__ is always True; the research graph's trace is then no list, so schemas fails too"),
    _m("append_none_returns_write", {APPEND},
       [(APPEND_BODY, "    if old is None and isinstance(new, list):\n        return new  # nothing stored yet: the write is the value\n"
                      + APPEND_BODY)],
       "when nothing is stored it hands back the list written itself, so the result is one of its arguments"),
    _m("items_splits_str", {APPEND, DEDUPE, WINDOW},
       [("    return [new]\n", "    return list(new)\n")],
       "the shared _items helper converts any write with list(new), splitting a bare str for every reducer using it"),
    _m("items_tuple_is_one_item", {APPEND, DEDUPE, WINDOW},
       [("    if isinstance(new, (list, tuple)):\n", "    if isinstance(new, list):\n")],
       "the shared _items helper forgets tuples, so a tuple write becomes one item in every reducer using it"),

    # -- merge_sources ----------------------------------------------------------------------
    _m("merge_appends_to_old", {DEDUPE},
       [(MERGE_BODY,
         "    if old is None:\n        old = []\n    seen = set(old)\n    for item in _items(new):\n"
         "        if item not in seen:\n            seen.add(item)\n            old.append(item)\n    return old\n")],
       "appends new sources to the stored list itself (old.append), mutating and returning its argument"),
    _m("merge_sorted", {DEDUPE},
       [("    return merged\n", "    return sorted(merged)\n")],
       "sorts the sources for a tidy answer, losing the order of first appearance"),
    _m("merge_via_set", {DEDUPE},
       [(MERGE_BODY, "    return list(set([*(old or ()), *_items(new)]))\n")],
       "dedupes with list(set(...)), which loses the order of the sources"),
    _m("merge_quadratic", {DEDUPE},
       [("        if item not in seen:\n            seen.add(item)\n", "        if item not in merged:\n")],
       "checks `item not in merged`, scanning the list for every item: quadratic on 50,000 sources"),
    _m("merge_last_occurrence", {DEDUPE},
       [(MERGE_BODY,
         "    positions = {}\n    for item in (*(old or ()), *_items(new)):\n"
         "        positions.pop(item, None)  # a re-cited source moves to the end\n"
         "        positions[item] = True\n    return list(positions)\n")],
       "moves a re-cited source to where it last appeared instead of keeping its first occurrence"),
    _m("merge_keeps_old_duplicates", {DEDUPE},
       [(MERGE_BODY,
         "    merged = list(old or [])\n    seen = set(merged)\n    for item in _items(new):\n"
         "        if item not in seen:\n            seen.add(item)\n            merged.append(item)\n    return merged\n")],
       "trusts old to be duplicate-free and only dedupes the new items"),
    _m("merge_returns_old_if_new_empty", {DEDUPE},
       [("    seen = set()\n    merged = []\n",
         "    if not new:\n        return old or []\n    seen = set()\n    merged = []\n")],
       "shortcut `if not new: return old` hands back the argument itself (and drops a bare '' item)"),
    _m("merge_returns_tuple", {DEDUPE, SCHEMAS},
       [("    return merged\n", "    return tuple(merged)\n")],
       "returns an immutable tuple; the research graph's sources is then a tuple, so schemas fails too"),

    # -- keep_max -------------------------------------------------------------------------------
    _m("keep_max_zero_is_absent", {KEEP_MAX},
       [(KEEP_MAX_BODY, KEEP_MAX_BODY.replace("if old is None", "if not old").replace("if new is None", "if not new"))],
       "tests `if not old` instead of `is None`, so a score of 0 counts as no score"),
    _m("keep_max_returns_min", {KEEP_MAX},
       [("    return new if new > old else old\n", "    return new if new < old else old\n")],
       "flips the comparison and keeps the smaller value"),
    _m("keep_max_new_none_crashes", {KEEP_MAX},
       [("    if new is None:\n        return old\n    return new if new > old else old\n", "    return max(old, new)\n")],
       "handles None only for old, so keep_max(x, None) compares x with None and raises"),
    _m("best_score_builtin_max", {KEEP_MAX, SCHEMAS},
       [("    best_score: Annotated[int | None, keep_max]\n", "    best_score: Annotated[int | None, max]\n")],
       "uses builtin max as the reducer: LangGraph cannot read its signature, so StateGraph(State) and build_graph fail"),
    _m("best_score_int_channel", {KEEP_MAX},
       [("    best_score: Annotated[int | None, keep_max]\n", "    best_score: Annotated[int, keep_max]\n")],
       "declares best_score as int, whose channel starts at 0 and swallows a first negative score"),

    # -- keep_recent / windowed -----------------------------------------------------------------
    _m("recent_window_too_short", {WINDOW},
       [(RECENT_BODY, "    return append(old, new)[-(WINDOW - 1):]\n")],
       "off by one: keeps WINDOW - 1 items"),
    _m("recent_window_too_long", {WINDOW},
       [(RECENT_BODY, "    return append(old, new)[-WINDOW - 1:]\n")],
       "off by one: keeps WINDOW + 1 items"),
    _m("recent_first_items", {WINDOW},
       [(RECENT_BODY, "    return append(old, new)[:WINDOW]\n")],
       "slices [:WINDOW], keeping the first items instead of the most recent ones"),
    _m("recent_returns_tuple", {WINDOW},
       [(RECENT_BODY, "    return tuple(append(old, new)[-WINDOW:])\n")],
       "returns the window as a tuple to make it immutable"),
    _m("windowed_three_params", {WINDOW},
       [("    def keep_last(old, new) -> list:\n", "    def keep_last(old, new, n=n) -> list:\n")],
       "binds n with a default parameter, so the reducer has three parameters and LangGraph rejects it"),
    _m("windowed_no_check", {WINDOW},
       [(WINDOWED_CHECK, "")],
       "never validates n, so windowed(0) returns a reducer that keeps everything ([-0:])"),
    _m("windowed_type_error", {WINDOW},
       [(WINDOWED_CHECK,
         "    if not isinstance(n, int):\n"
         "        raise TypeError(f\"windowed(n) needs an int (got {type(n).__name__})\")\n"
         "    if n < 1:\n"
         "        raise ValueError(f\"windowed(n) needs n >= 1 (got {n})\")\n")],
       "raises TypeError for a non-int n where the spec asks for ValueError"),
    _m("windowed_accepts_float", {WINDOW},
       [("not isinstance(n, int) or n < 1", "not isinstance(n, (int, float)) or n < 1")],
       "accepts any number, so windowed(2.5) returns a reducer that fails later inside a run"),
    _m("windowed_list_subclass", {WINDOW},
       [("def windowed(n: int) -> Callable:\n",
         "class _Window(list):\n    \"\"\"The kept items, tagged with the window size.\"\"\"\n\n    size = None\n\n\n"
         "def windowed(n: int) -> Callable:\n"),
        ("        return append(old, new)[-n:]\n",
         "        kept = _Window(append(old, new)[-n:])\n        kept.size = n\n        return kept\n")],
       "returns a list subclass carrying the window size instead of exactly a list"),
    _m("windowed_ignores_n", {WINDOW},
       [("        return append(old, new)[-n:]\n", "        return append(old, new)[-WINDOW:]\n")],
       "copies keep_recent's body into the closure and keeps WINDOW items whatever n is"),

    # -- the State schema -------------------------------------------------------------------------
    _m("naive_with_reducer", {OVERWRITE},
       [("    ### BEGIN SOLUTION state.overwrite\n    trace: list[str]\n",
         "    ### BEGIN SOLUTION state.overwrite\n    trace: Annotated[list[str], operator.add]\n")],
       "\"fixes\" NaiveState with a reducer, so notebook 01 can no longer show the overwrite or the parallel error"),
    _m("naive_left_as_stub", {OVERWRITE},
       [("    ### BEGIN SOLUTION state.overwrite\n    trace: list[str]\n",
         "    ### BEGIN SOLUTION state.overwrite\n    pass\n")],
       "skips notebook 01 and leaves NaiveState without keys"),
    _m("trace_no_reducer", {APPEND, SCHEMAS},
       [("    trace: Annotated[list[str], append]\n", "    trace: list[str]\n")],
       "declares State.trace without append: each node overwrites it, so the research graph's trace is only ['finish']"),
    _m("sources_plain_append", {DEDUPE, SCHEMAS},
       [("    sources: Annotated[list[str], merge_sources]\n", "    sources: Annotated[list[str], append]\n")],
       "uses append for sources: re-cited documents repeat, in State graphs and in the research graph's output"),
    _m("budget_keep_max", {BUDGET, SCHEMAS},
       [("    used_calls: Annotated[int, operator.add]\n", "    used_calls: Annotated[int, keep_max]\n")],
       "keeps the max of the budget writes instead of their sum; the lookup loop then never reaches LOOKUP_ROUNDS"),
    _m("budget_float_channel", {BUDGET},
       [("    used_calls: Annotated[int, operator.add]\n", "    used_calls: Annotated[float, operator.add]\n")],
       "declares used_calls as float \"for fractional costs\": the channel starts at 0.0 and the budget is no int"),
    _m("recent_no_reducer", {WINDOW},
       [("    recent: Annotated[list[str], keep_recent]\n", "    recent: list[str]\n")],
       "declares State.recent without keep_recent: writes overwrite, parallel ones raise"),
    _m("answer_with_reducer", {SCHEMAS},
       [("    answer: str\n    ### STUB\n    # pass\n    ### END SOLUTION\n\n\nclass InputState",
         "    answer: Annotated[str, operator.add]\n    ### STUB\n    # pass\n    ### END SOLUTION\n\n\nclass InputState")],
       "gives every key a reducer \"to be safe\", so answer concatenates instead of being overwritten"),

    # -- InputState / OutputState / build_graph ---------------------------------------------------
    _m("output_leaks_notes", {SCHEMAS},
       [("    used_calls: int\n", "    used_calls: int\n    notes: list[str]\n")],
       "adds notes to OutputState to help debugging, leaking an internal key to the caller"),
    _m("input_accepts_notes", {SCHEMAS},
       [("    \"\"\"What a caller may send in: exactly ``question``.\"\"\"\n\n    ### BEGIN SOLUTION state.schemas\n"
         "    question: str\n",
         "    \"\"\"What a caller may send in: exactly ``question``.\"\"\"\n\n    ### BEGIN SOLUTION state.schemas\n"
         "    question: str\n    notes: list[str]\n")],
       "lets the caller seed notes through InputState, so a caller can set an internal key"),
    _m("graph_without_output_schema", {SCHEMAS},
       [("    builder = StateGraph(State, input_schema=InputState, output_schema=OutputState)\n",
         "    builder = StateGraph(State, input_schema=InputState)\n")],
       "forgets output_schema, so invoke returns every State key, internal ones included"),
    _m("notes_no_reducer", {SCHEMAS},
       [("    notes: Annotated[list[str], append]\n", "    notes: list[str]\n")],
       "declares State.notes without append, as if scratch notes need no merge rule: each write replaces the notes"),
    _m("lookup_cites_top_hit_only", {SCHEMAS},
       [("            \"sources\": found,\n", "            \"sources\": found[:1],\n")],
       "cites only the top hit of each round, so the documents search_docs finds later never become sources"),
    _m("lookup_scores_found_count", {SCHEMAS},
       [("            \"best_score\": relevance(state[\"question\"], round_no),\n",
         "            \"best_score\": len(found),\n")],
       "scores a round by how many documents it found instead of asking relevance"),
    _m("lookup_stops_one_early", {SCHEMAS},
       [("\"lookup\" if state[\"used_calls\"] < LOOKUP_ROUNDS else \"finish\"",
         "\"lookup\" if state[\"used_calls\"] < LOOKUP_ROUNDS - 1 else \"finish\"")],
       "off by one in the loop condition: lookup runs LOOKUP_ROUNDS - 1 times"),

    # -- DECISIONS ----------------------------------------------------------------------------------
    _m("decisions_missing_notes", {DECISIONS},
       [("    \"notes\": \"Append, internal: scratch notes help the nodes but must never leak to the caller.\",\n", "")],
       "forgets the internal notes key in DECISIONS"),
    _m("decisions_blank_sentence", {DECISIONS},
       [("    \"answer\": \"Overwrite, visible in the output: the final node writes the one answer the caller gets.\",\n",
         "    \"answer\": \"   \",\n")],
       "leaves the answer decision blank, meaning to come back to it"),
    _m("decisions_extra_key", {DECISIONS},
       [("    \"answer\": \"Overwrite, visible in the output: the final node writes the one answer the caller gets.\",\n",
         "    \"answer\": \"Overwrite, visible in the output: the final node writes the one answer the caller gets.\",\n"
         "    \"messages\": \"Append, visible: the chat history of the agent, kept for the caller.\",\n")],
       "documents a messages key the lab's State does not have (copied from a chat-agent tutorial)"),
]
