"""Part A's documented sentences (solutions/agstate/state.py) and the grader rule that checks each."""
from doc_rules import checked, explains

TABLE = {
    # -- the module ------------------------------------------------------------------------------
    ("module", "Part A — reducers and schemas: give every key of an agent's state a merge rule."):
        explains("the part's title and goal; each key's merge rule is promised, and checked, in State's docstring"),
    ("module", "A LangGraph state key without a reducer keeps only the last value written to it."):
        checked("state.overwrite", "sequential nodes writing NaiveState.trace overwrite each other: only the last write stays"),
    ("module", "Every key here says how a new write combines with what is stored, and which keys a caller may send in "
               "or get back."):
        explains("overview of the module: the merge rules and the schemas are promised one by one in State, "
                 "InputState and OutputState, whose sentences are checked below"),
    ("module", "Rules every reducer in this module follows:"):
        explains("introduces the list of rules that follows; each item is checked on its own"),
    ("module", "- it returns a new value; a list result is exactly a ``list`` (not a subclass, not a tuple) and never "
               "one of its arguments;"):
        # Also dedupe's, keep_recent's and windowed(n)'s "returns a new list" rules (expect_pure), and every
        # value rule's exact-list check (expect_list_result); old=None is among the pure rules' examples.
        checked("state.append", "append returns a new list and never mutates its arguments"),
    ("module", "- it never mutates its arguments;"):
        # Also "merge_sources returns a new list and never mutates its arguments", keep_recent's, and windowed's rule.
        checked("state.append", "append returns a new list and never mutates its arguments"),
    ("module", "- ``old`` may be ``None``: nothing stored yet;"):
        # Also dedupe's "old may be None, and a bare str is one item", keep_recent's and windowed's (gen.olds)
        # and keep_max's None rule.
        checked("state.append", "old may be None: nothing stored yet"),
    ("module", "- ``new`` may be a list or tuple of items, or a single item: a bare ``str`` is one item, never split "
               "into characters."):
        # Lists and tuples: append's order rule (gen.list_writes); keep_recent/windowed draw gen.writes.
        checked("state.append", "a bare str is one item, never split into characters"),
    ("module", "Notebooks: 01_overwrite … 06_schemas."):
        explains("a pointer to the notebooks of the part"),
    ("module", "Check with ``check(\"state\")``."):
        explains("how to run the grader from a notebook"),

    # -- NaiveState ------------------------------------------------------------------------------
    ("NaiveState", "The seed's state: ``trace`` has no merge rule on purpose (notebook 01)."):
        checked("state.overwrite", "NaiveState.trace has no merge rule: LangGraph gives it a LastValue channel"),
    ("NaiveState", "Sequential nodes overwrite each other's ``trace``; two nodes writing it in the same step raise "
                   "``InvalidUpdateError``."):
        # The second half: "two nodes writing NaiveState.trace in the same step raise InvalidUpdateError".
        checked("state.overwrite", "sequential nodes writing NaiveState.trace overwrite each other: only the last write stays"),
    ("NaiveState", "Declare ``trace: list[str]`` with no reducer, so the notebook can show both."):
        checked("state.overwrite", "NaiveState.trace has no merge rule: LangGraph gives it a LastValue channel"),

    # -- append ----------------------------------------------------------------------------------
    ("append", "Items of ``old`` then items of ``new``, in order."):
        checked("state.append", "append returns the items of old, then the items of new, in order"),
    ("append", "Laws: associative; not commutative; not idempotent (a retried write is appended twice)."):
        # The laws are those of the model the order rule compares with: an append breaking one differs from it.
        checked("state.append", "append returns the items of old, then the items of new, in order"),

    # -- merge_sources ---------------------------------------------------------------------------
    ("merge_sources", "Items of ``old`` then ``new``, keeping only the first occurrence of each."):
        checked("state.dedupe", "merge_sources keeps the first occurrence of each item, in order"),
    ("merge_sources", "The result never holds a duplicate, also when ``old`` already did."):
        checked("state.dedupe", "the result never holds a duplicate, also when old already held one"),
    ("merge_sources", "Items are hashable."):
        explains("a precondition on the caller's items, not behaviour of merge_sources: it tells the learner a set may "
                 "remember the items seen"),
    ("merge_sources", "Linear time: 50,000 items take well under a second."):
        checked("state.dedupe", "merge_sources runs in linear time: 50,000 items take well under a second"),
    ("merge_sources", "Laws: associative, idempotent; not commutative (first occurrence wins)."):
        # The laws are those of the model (first occurrences, in order) the rule compares with.
        checked("state.dedupe", "merge_sources keeps the first occurrence of each item, in order"),

    # -- keep_max --------------------------------------------------------------------------------
    ("keep_max", "The larger of ``old`` and ``new``; ``None`` means absent."):
        checked("state.keep_max", "keep_max returns the larger of two values (ints, floats or strs)"),
    ("keep_max", "``keep_max(None, x) == x``, ``keep_max(x, None) == x`` and ``keep_max(None, None) is None``."):
        checked("state.keep_max",
                "None means absent: keep_max(None, x) == x, keep_max(x, None) == x, keep_max(None, None) is None"),
    ("keep_max", "Zero and negative numbers are values, not absence."):
        checked("state.keep_max", "zero and negative numbers are values, not absence"),
    ("keep_max", "Works for any mutually comparable values (ints, floats, strs)."):
        checked("state.keep_max", "keep_max returns the larger of two values (ints, floats or strs)"),
    ("keep_max", "Laws: commutative, associative, idempotent."):
        checked("state.keep_max", "keep_max is commutative, associative and idempotent"),

    # -- keep_recent -----------------------------------------------------------------------------
    ("keep_recent", "The last ``WINDOW`` items of ``old`` + ``new``, in order."):
        checked("state.window", "keep_recent keeps the last WINDOW items of old + new, in order"),
    ("keep_recent", "Laws: associative; not commutative."):
        # The laws are those of the model (the last WINDOW items) the rule compares with.
        checked("state.window", "keep_recent keeps the last WINDOW items of old + new, in order"),

    # -- windowed --------------------------------------------------------------------------------
    ("windowed", "A reducer keeping the last ``n`` items of ``old`` + ``new``, in order."):
        checked("state.window", "windowed(n) returns a reducer keeping the last n items, for any n >= 1"),
    ("windowed", "The reducer takes exactly two positional parameters, so LangGraph accepts it in "
                 "``Annotated[list[str], windowed(5)]``; ``windowed(WINDOW)`` behaves as ``keep_recent``."):
        # The second half: "windowed(WINDOW) behaves as keep_recent".
        checked("state.window", "LangGraph accepts windowed(n) in Annotated[...]: the reducer takes exactly (old, new)"),
    ("windowed", "``n`` must be an int >= 1, else ``ValueError`` is raised here, at ``windowed(...)``, not later "
                 "inside a graph run."):
        checked("state.window", "windowed(n) raises ValueError at once when n is not an int >= 1"),

    # -- the schemas -----------------------------------------------------------------------------
    ("State", "The research agent's state: exactly these keys, each with its merge rule."):
        checked("state.schemas", "State has exactly the spec's keys, and question and answer overwrite (no reducer)"),
    ("State", "No other key: a node that counts its lookup rounds reads ``used_calls``."):
        checked("state.schemas", "State has exactly the spec's keys, and question and answer overwrite (no reducer)"),
    ("State", "question str overwrite trace Annotated[list[str], append] every node run, in order sources "
              "Annotated[list[str], merge_sources] cited documents, no duplicates used_calls Annotated[int, "
              "operator.add] lookups spent (the budget) best_score Annotated[int | None, keep_max] best relevance; "
              "None-able so a first negative score survives recent Annotated[list[str], keep_recent] the last WINDOW "
              "lookups notes Annotated[list[str], append] internal scratch notes answer str overwrite"):
        # Key by key: the keys and question/answer here; trace: "State.trace accumulates every write, ..."
        # (state.append); sources: "State.sources merges every write, keeping first occurrences" (state.dedupe);
        # used_calls: state.budget's two rules; best_score: "State.best_score keeps the best score, a first
        # negative score included" (state.keep_max); recent: "State.recent keeps the last WINDOW items written,
        # sequential and parallel" (state.window); notes: "State.notes appends every write, sequential and
        # parallel (parallel ones in node-name order)" (state.schemas).
        checked("state.schemas", "State has exactly the spec's keys, and question and answer overwrite (no reducer)"),
    ("InputState", "What a caller may send in: exactly ``question``."):
        checked("state.schemas", "InputState has exactly the key question"),
    ("OutputState", "What a caller gets back: exactly ``answer``, ``trace``, ``sources``, ``used_calls``."):
        checked("state.schemas", "OutputState has exactly answer, trace, sources and used_calls"),
    ("OutputState", "Internal keys (``notes``, ``recent``, ``best_score``) never leave the graph."):
        checked("state.schemas", "build_graph's invoke returns exactly the OutputState keys: internal keys never leave the graph"),

    # -- build_graph -----------------------------------------------------------------------------
    ("build_graph", "The research agent: ``intake`` → ``lookup`` × LOOKUP_ROUNDS → ``finish``."):
        checked("state.schemas", "trace lists every node run in order, sources have no duplicates, used_calls equals LOOKUP_ROUNDS"),
    ("build_graph", "``StateGraph(State, input_schema=InputState, output_schema=OutputState)``."):
        # The graph's JSON schemas are InputState's and OutputState's; the checkpoint holds State's internal keys
        # ("with a checkpointer the internal keys stay in the checkpoint, and input cannot set them").
        checked("state.schemas", "build_graph's invoke returns exactly the OutputState keys: internal keys never leave the graph"),
    ("build_graph", "``lookup`` calls ``search_docs`` and ``relevance`` from ``agstate.tools``, re-citing sources, "
                    "adding notes and scores and one call to ``used_calls`` per round."):
        # One call per round: "... used_calls equals LOOKUP_ROUNDS" (graph_run).
        checked("state.schemas", "lookup cites what search_docs finds, scores with relevance and adds a note, every round"),
    ("build_graph", "``invoke({\"question\": q})`` returns exactly the OutputState keys; ``trace`` lists every node "
                    "run, in order."):
        # The second half: "trace lists every node run in order, sources have no duplicates, used_calls equals LOOKUP_ROUNDS".
        checked("state.schemas", "build_graph's invoke returns exactly the OutputState keys: internal keys never leave the graph"),
    # -- private helpers the learner completes ---------------------------------------------------------------
    # also: 'anything else is one': state.append, 'a bare str is one item, never split into characters'
    ('_items', 'The items a write carries: a list/tuple holds items, anything else is one.'):
        checked('state.append', 'append returns the items of old, then the items of new, in order'),
}

# The "Your exercise" sections of part A's notebooks (solutions/notebooks/01_overwrite.py … 06_schemas.py).
NOTEBOOKS = {
    ('01_overwrite',
     "Open `agstate/state.py` and complete **`NaiveState`**: the seed's state, broken on purpose, so the lab can "
     "reproduce the bug on demand."):
        explains("what to open and why NaiveState is broken on purpose; its three rules are the items below"),
    ('01_overwrite', 'The grader checks three rules:'):
        explains('a heading: each rule of the list below is its own entry'),
    ('01_overwrite', '- `NaiveState.trace` has no merge rule: a plain `list[str]`;'):
        checked('state.overwrite', 'NaiveState.trace has no merge rule: LangGraph gives it a LastValue channel'),
    ('01_overwrite', '- sequential nodes writing it overwrite each other: only the last write stays;'):
        checked('state.overwrite',
                'sequential nodes writing NaiveState.trace overwrite each other: only the last write stays'),
    ('01_overwrite', '- two nodes writing it in the same step raise `InvalidUpdateError`.'):
        checked('state.overwrite', 'two nodes writing NaiveState.trace in the same step raise InvalidUpdateError'),
    ('01_overwrite',
     'This cell needs your `NaiveState` from `agstate/state.py`: it runs both graphs above on it. (Save the module '
     'and re-run: the kernel reloads it.)'):
        explains('what the next cell runs; the reload is shown by notebook 00 (grader/notebook/kernel.py)'),
    ('01_overwrite',
     'Check your work: the grader builds graphs over your `NaiveState` with random node names, in a separate process, '
     'and shows a scorecard.'):
        explains('how the check cell grades, not a behaviour of the module'),
    ('02_append_and_budget', 'In `agstate/state.py`:'):
        explains('a heading: each item below is its own entry'),
    ('02_append_and_budget', '1. **`append(old, new)`** — the items of `old`, then the items of `new`, in order.'):
        checked('state.append', 'append returns the items of old, then the items of new, in order'),
    # also: 'new may be a list, a tuple or a single item': the append rules draw all three
    #   (grader/parts/state/strategies.py, writes)
    ('02_append_and_budget',
     '`old` may be `None`; `new` may be a list, a tuple or a single item (a bare `str` is one item, never split into '
     'characters).'):
        checked('state.append', 'a bare str is one item, never split into characters'),
    ('02_append_and_budget', 'Return a new `list`; never mutate the arguments.'):
        checked('state.append', 'append returns a new list and never mutates its arguments'),
    ('02_append_and_budget', '2. **`State`** — declare its keys with their merge rules as the docstring lists them.'):
        checked('state.schemas', "State has exactly the spec's keys, and question and answer overwrite (no reducer)"),
    # also: used_calls: state.budget, 'State.used_calls sums every write, from sequential and parallel writers alike'
    ('02_append_and_budget',
     "This notebook's tasks look at `trace` (`Annotated[list[str], append]`) and `used_calls` "
     "(`Annotated[int, operator.add]`); the other keys come in notebooks 03–06."):
        checked('state.append',
                'State.trace accumulates every write, sequential and parallel (parallel ones in node-name order)'),
    ('02_append_and_budget',
     'The grader checks `append` on random lists, strings (unicode, empty, repeated) and tuples, and runs random '
     'sequential and parallel graphs over your `State`.'):
        explains('how the check cells grade: the inputs the rules above draw'),
    ('03_dedupe',
     'Complete **`merge_sources(old, new)`** in `agstate/state.py`, and give `State.sources` the rule '
     '`Annotated[list[str], merge_sources]`.'):
        checked('state.dedupe', 'State.sources merges every write, keeping first occurrences'),
    ('03_dedupe', 'The rules:'):
        explains('a heading: each rule of the list below is its own entry'),
    ('03_dedupe', '- the items of `old`, then of `new`, keeping only the **first occurrence** of each, in order;'):
        checked('state.dedupe', 'merge_sources keeps the first occurrence of each item, in order'),
    ('03_dedupe', '- the result never holds a duplicate — also when `old` already held one;'):
        checked('state.dedupe', 'the result never holds a duplicate, also when old already held one'),
    ('03_dedupe', '- `old` may be `None`; a bare `str` is one item;'):
        checked('state.dedupe', 'old may be None, and a bare str is one item'),
    ('03_dedupe', '- a new `list`, arguments never mutated;'):
        checked('state.dedupe', 'merge_sources returns a new list and never mutates its arguments'),
    ('03_dedupe', '- **linear time**: 50,000 items well under a second.'):
        checked('state.dedupe', 'merge_sources runs in linear time: 50,000 items take well under a second'),
    ('04_keep_max',
     'Complete **`keep_max(old, new)`** in `agstate/state.py`, and give `State.best_score` the rule '
     '`Annotated[int | None, keep_max]`.'):
        checked('state.keep_max', 'State.best_score keeps the best score, a first negative score included'),
    ('04_keep_max', 'The rules:'):
        explains('a heading: each rule of the list below is its own entry'),
    ('04_keep_max', '- the larger of the two, for any mutually comparable values (ints, floats, strs);'):
        checked('state.keep_max', 'keep_max returns the larger of two values (ints, floats or strs)'),
    ('04_keep_max',
     '- `None` means absent: `keep_max(None, x) == x`, `keep_max(x, None) == x`, `keep_max(None, None) is None`;'):
        checked('state.keep_max',
                'None means absent: keep_max(None, x) == x, keep_max(x, None) == x, keep_max(None, None) is None'),
    ('04_keep_max', '- zero and negative numbers are values, not absence (test `is None`, not truthiness);'):
        checked('state.keep_max', 'zero and negative numbers are values, not absence'),
    ('04_keep_max', '- commutative, associative, idempotent;'):
        checked('state.keep_max', 'keep_max is commutative, associative and idempotent'),
    ('04_keep_max', '- through a graph, `State.best_score` keeps a first negative score.'):
        checked('state.keep_max', 'State.best_score keeps the best score, a first negative score included'),
    ('05_windows', 'In `agstate/state.py`:'):
        explains('a heading: each item below is its own entry'),
    # also: 'a new list, arguments never mutated': state.window, 'keep_recent returns a new list and never mutates its
    #   arguments'
    ('05_windows',
     '1. **`keep_recent(old, new)`** — the last `WINDOW` items of `old + new`, in order; `old` may be `None`, a bare '
     '`str` is one item; a new `list`, arguments never mutated.'):
        checked('state.window', 'keep_recent keeps the last WINDOW items of old + new, in order'),
    ('05_windows', '2. **`windowed(n)`** — returns a reducer keeping the last `n` items.'):
        checked('state.window', 'windowed(n) returns a reducer keeping the last n items, for any n >= 1'),
    ('05_windows',
     'LangGraph must accept it in `Annotated[...]`: exactly two positional parameters (a closure, as above).'):
        checked('state.window',
                'LangGraph accepts windowed(n) in Annotated[...]: the reducer takes exactly (old, new)'),
    ('05_windows', '`windowed(WINDOW)` behaves as `keep_recent`.'):
        checked('state.window', 'windowed(WINDOW) behaves as keep_recent'),
    ('05_windows',
     'If `n` is not an int >= 1, raise `ValueError` at once, at `windowed(...)` — not later, inside a run.'):
        checked('state.window', 'windowed(n) raises ValueError at once when n is not an int >= 1'),
    ('05_windows', '3. **`State.recent`** — `Annotated[list[str], keep_recent]`.'):
        checked('state.window', 'State.recent keeps the last WINDOW items written, sequential and parallel'),
    ('06_schemas', 'In `agstate/state.py`:'):
        explains('a heading: each item below is its own entry'),
    ('06_schemas', '1. **`InputState`** — exactly `question`.'):
        checked('state.schemas', 'InputState has exactly the key question'),
    ('06_schemas', '**`OutputState`** — exactly `answer`, `trace`, `sources`, `used_calls`.'):
        checked('state.schemas', 'OutputState has exactly answer, trace, sources and used_calls'),
    # also: the checkpoint keeps them: state.schemas, 'with a checkpointer the internal keys stay in the checkpoint ...'
    ('06_schemas', 'Internal keys (`notes`, `recent`, `best_score`) never leave the graph.'):
        checked('state.schemas',
                "build_graph's invoke returns exactly the OutputState keys: internal keys never leave the graph"),
    # also: each node's name in trace: state.schemas, 'trace lists every node run in order, ...'
    ('06_schemas',
     '2. **`build_graph(checkpointer=None)`** — `StateGraph(State, input_schema=InputState, '
     'output_schema=OutputState)` with three nodes, each writing its name to `trace`:'):
        checked('state.schemas', "build_graph's invoke returns exactly the OutputState keys: internal keys never leave the graph"),
    ('06_schemas', '- `intake`, first: it reads `question`;'):
        checked('state.schemas', 'trace lists every node run in order, sources have no duplicates, used_calls equals LOOKUP_ROUNDS'),
    ('06_schemas', '- `lookup`, run `LOOKUP_ROUNDS` times (an edge that returns to it while rounds remain).'):
        checked('state.schemas', 'trace lists every node run in order, sources have no duplicates, used_calls equals LOOKUP_ROUNDS'),
    # also: State has no other key: state.schemas, 'State has exactly the spec's keys, ...'
    ('06_schemas', 'The state has no round counter of its own: round `n` is `used_calls + 1`.'):
        checked('state.schemas', 'lookup cites what search_docs finds, scores with relevance and adds a note, every round'),
    # also: '1 to used_calls': 'trace lists every node run in order, ... used_calls equals LOOKUP_ROUNDS'; 'one line
    #   of your own to recent': keep_recent is state.window's, the line's words are the learner's
    ('06_schemas',
     'Each round calls `search_docs(question, n)` and `relevance(question, n)` from `agstate.tools` and writes the '
     'documents found to `sources`, `1` to `used_calls`, the score to `best_score`, one line of your own to `recent` '
     'and one note to `notes`;'):
        checked('state.schemas', 'lookup cites what search_docs finds, scores with relevance and adds a note, every round'),
    ('06_schemas',
     '- `finish`, last: it writes `answer`, a string of your own (the grader checks that the caller gets one, not its '
     'words).'):
        checked('state.schemas', "build_graph's invoke returns exactly the OutputState keys: internal keys never leave the graph"),
    ('06_schemas', '`trace` then lists every node run in order; `sources` has no duplicates.'):
        checked('state.schemas', 'trace lists every node run in order, sources have no duplicates, used_calls equals LOOKUP_ROUNDS'),
    ('06_schemas',
     '3. **`DECISIONS`** — one sentence for every key of `State`: overwrite or which merge, visible or internal, and '
     'why.'):
        checked('state.decisions', 'each decision is a sentence: the merge rule, visible or internal, and why'),
}
