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
    ("State", "The research agent's state: every key with its merge rule."):
        explains("introduces the table of keys that follows, whose promises are checked key by key"),
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
}
