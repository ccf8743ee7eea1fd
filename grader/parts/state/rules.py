"""Part A tasks: the rules of ``agstate/state.py``, one check per rule (LAB-SPEC §3)."""

from hypothesis import strategies as st

from grader.checking import Abort, Failure, Raised, show
from grader.parts.state import strategies as gen
from grader.parts.state.model import (
    MISSING,
    OUTPUT_KEYS,
    SPEC_STATE_KEYS,
    describe_graph,
    expect_keys,
    expect_list_result,
    expect_pure,
    expect_value,
    graph_case,
    learner_window,
    model_append,
    model_keep_max,
    model_merge,
    model_window,
    require_keys,
    research_run,
    small_graph,
    state_key_graph,
)
from grader.tasks import task

# -- state.overwrite ----------------------------------------------------------------------
overwrite = task("state.overwrite")


@overwrite.rule("NaiveState.trace has no merge rule: LangGraph gives it a LastValue channel")
def naive_has_no_reducer(check):
    info = require_keys(check, "NaiveState")
    if "trace" not in info["channels"]:
        raise Failure(f"NaiveState has keys {info['keys']}; expected a key 'trace'")
    channel = info["channels"]["trace"]
    if channel["channel"] != "LastValue":
        raise Failure(f"NaiveState.trace has the merge rule {channel['reducer'] or channel['channel']}; "
                      "expected none (a plain list[str]), so the notebook can show the overwrite")


@overwrite.rule("sequential nodes writing NaiveState.trace overwrite each other: only the last write stays")
def naive_overwrites(check):
    require_keys(check, "NaiveState")

    @check.forall(gen.supersteps(max_width=1, max_steps=5), examples=check.budget("graph"))
    def sequential_overwrites(steps):
        writes = {step[0]: {"trace": [step[0]]} for step in steps}
        got = check.probe("run_graph", "NaiveState", ["trace"], steps, writes, {"trace": ["start"]})
        if isinstance(got, Raised):
            raise Failure(f"{describe_graph(steps, writes, 'trace', {})} raised {got.sentence()}", status="error")
        expected = [steps[-1][0]]
        if got.get("trace") != expected:
            raise Failure(f"{describe_graph(steps, writes, 'trace', {})} ended with trace = {show(got.get('trace'))}; "
                          f"expected {show(expected)}: without a reducer the last write wins")


@overwrite.rule("two nodes writing NaiveState.trace in the same step raise InvalidUpdateError")
def naive_parallel_error(check):
    require_keys(check, "NaiveState")

    @check.forall(gen.supersteps(min_width=2, max_width=3, max_steps=1), examples=check.budget("graph"))
    def parallel_raises(steps):
        writes = {name: {"trace": [name]} for name in steps[0]}
        got = check.probe("run_graph", "NaiveState", ["trace"], steps, writes, {})
        if not (isinstance(got, Raised) and got.is_a("InvalidUpdateError")):
            raise Failure(f"{describe_graph(steps, writes, 'trace', {})} returned {show(got)}; "
                          "expected InvalidUpdateError: a key without a reducer takes one value per step")


# -- state.append ---------------------------------------------------------------------------
append_task = task("state.append")


@append_task.rule("append returns the items of old, then the items of new, in order")
def append_order(check):
    @check.forall(gen.item_lists, st.one_of(gen.item_lists, gen.item_lists.map(tuple)))
    def in_order(old, new):
        expect_list_result(check, "append", old, new, model_append(old, new))


@append_task.rule("a bare str is one item, never split into characters")
def append_bare_str(check):
    @check.forall(gen.item_lists, st.text(min_size=2, max_size=6))
    def one_item(old, new):
        expect_list_result(check, "append", old, new, model_append(old, new))


@append_task.rule("old may be None: nothing stored yet")
def append_none(check):
    @check.forall(gen.writes)
    def from_none(new):
        expect_list_result(check, "append", None, new, model_append(None, new))


@append_task.rule("append returns a new list and never mutates its arguments")
def append_pure(check):
    @check.forall(gen.item_lists, gen.item_lists)
    def pure(old, new):
        expect_pure(check, "append", old, new)


@append_task.rule("State.trace accumulates every write, sequential and parallel (parallel ones in node-name order)")
def trace_graph(check):
    @check.forall(graph_case("trace", gen.writes, gen.item_lists), examples=check.budget("graph"),
                  first=small_graph("trace", ["x"], ["y"], "z"))
    def accumulates(case):
        state_key_graph(check, "State", "trace", *case, start=[], reducer=model_append,
                        why="every write is kept")


# -- state.budget -------------------------------------------------------------------------------
budget = task("state.budget")


@budget.rule("State.used_calls sums every write, from sequential and parallel writers alike")
def budget_sums(check):
    @check.forall(graph_case("used_calls", st.integers(0, 10**9), st.integers(0, 100)), examples=check.budget("graph"),
                  first=small_graph("used_calls", 1, 2, 3))
    def sums(case):
        state_key_graph(check, "State", "used_calls", *case, start=0, reducer=lambda a, b: a + b,
                        why="each writer adds the calls it spent")


@budget.rule("State.used_calls starts at 0 and counts a write of 0 as nothing spent")
def budget_zero(check):
    @check.forall(gen.supersteps(), examples=check.budget("graph"))
    def zeros(steps):
        writes = {name: {"used_calls": 0} for step in steps for name in step}
        state_key_graph(check, "State", "used_calls", steps, writes, {}, start=0, reducer=lambda a, b: a + b,
                        why="an int channel starts at 0 and 0 + 0 is 0")


# -- state.dedupe --------------------------------------------------------------------------------
dedupe = task("state.dedupe")


@dedupe.rule("merge_sources keeps the first occurrence of each item, in order")
def dedupe_first(check):
    @check.forall(gen.item_lists, st.one_of(gen.item_lists, gen.item_lists.map(tuple)))
    def first_occurrence(old, new):
        expect_list_result(check, "merge_sources", old, new, model_merge(old, new))


@dedupe.rule("the result never holds a duplicate, also when old already held one")
def dedupe_old_duplicates(check):
    @check.forall(st.lists(st.sampled_from(["a", "b", "c", ""]), min_size=2, max_size=8), gen.item_lists)
    def no_duplicates(old, new):
        expect_list_result(check, "merge_sources", old, new, model_merge(old, new))


@dedupe.rule("old may be None, and a bare str is one item")
def dedupe_edges(check):
    @check.forall(gen.olds, gen.items)
    def edges(old, new):
        expect_list_result(check, "merge_sources", old, new, model_merge(old, new))


@dedupe.rule("merge_sources returns a new list and never mutates its arguments")
def dedupe_pure(check):
    @check.forall(gen.item_lists, gen.item_lists)
    def pure(old, new):
        expect_pure(check, "merge_sources", old, new)


LINEAR_ITEMS = 50_000
LINEAR_LIMIT_S = 1.0


@dedupe.rule("merge_sources runs in linear time: 50,000 items take well under a second")
def dedupe_linear(check):
    try:
        # Wall time, past the CPU limit: a quadratic merge needs over 10 s, a linear one ~30 ms.
        seconds = check.probe("time_merge", LINEAR_ITEMS, check.seed, limit=2 * LINEAR_LIMIT_S)
    except Abort as stopped:
        if stopped.status != "timeout":
            raise
        raise Failure(f"merge_sources on {LINEAR_ITEMS:,} items did not finish in {2 * LINEAR_LIMIT_S:.0f} s: "
                      "checking `item not in a_list` scans the list each time (quadratic); remember seen items in a set") from None
    if isinstance(seconds, Raised):
        raise Failure(f"merge_sources on {LINEAR_ITEMS:,} items raised {seconds.sentence()}", status="error")
    if seconds > LINEAR_LIMIT_S:
        raise Failure(f"merge_sources on {LINEAR_ITEMS:,} items took {seconds:.2f} s of CPU; expected under "
                      f"{LINEAR_LIMIT_S:.0f} s: remember seen items in a set instead of scanning the list")


@dedupe.rule("State.sources merges every write, keeping first occurrences")
def sources_graph(check):
    @check.forall(graph_case("sources", gen.writes, gen.item_lists), examples=check.budget("graph"),
                  first=small_graph("sources", ["x", "y"], ["y"], ["x", "z"]))
    def merged(case):
        state_key_graph(check, "State", "sources", *case, start=[], reducer=model_merge,
                        why="each source is listed once, where it first appeared")


# -- state.keep_max ------------------------------------------------------------------------------
keep_max_task = task("state.keep_max")


@keep_max_task.rule("keep_max returns the larger of two values (ints, floats or strs)")
def keep_max_larger(check):
    @check.forall(gen.comparable_pairs)
    def larger(pair):
        expect_value(check, "keep_max", pair, model_keep_max(*pair))


@keep_max_task.rule("None means absent: keep_max(None, x) == x, keep_max(x, None) == x, keep_max(None, None) is None")
def keep_max_none(check):
    @check.forall(st.one_of(st.none(), gen.scores), st.booleans())
    def absent(value, none_first):
        args = (None, value) if none_first else (value, None)
        expect_value(check, "keep_max", args, value)


@keep_max_task.rule("zero and negative numbers are values, not absence")
def keep_max_zero(check):
    @check.forall(st.integers(-10, 0), st.integers(-10, 0))
    def non_positive(old, new):
        expect_value(check, "keep_max", (old, new), max(old, new))


@keep_max_task.rule("keep_max is commutative, associative and idempotent")
def keep_max_laws(check):
    @check.forall(gen.comparable_triples)
    def laws(triple):
        a, b, c = triple
        ab = check.value("keep_max", a, b).result
        ba = check.value("keep_max", b, a).result
        if ab != ba:
            raise Failure(f"keep_max({show(a)}, {show(b)}) is {show(ab)} but keep_max({show(b)}, {show(a)}) is {show(ba)}; "
                          "the order of writes must not matter (commutative)")
        left = check.value("keep_max", ab, c).result
        bc = check.value("keep_max", b, c).result
        right = check.value("keep_max", a, bc).result
        if left != right:
            raise Failure(f"keep_max(keep_max({show(a)}, {show(b)}), {show(c)}) is {show(left)} but "
                          f"keep_max({show(a)}, keep_max({show(b)}, {show(c)})) is {show(right)} (associative)")
        again = check.value("keep_max", a, a).result
        if again != a:
            raise Failure(f"keep_max({show(a)}, {show(a)}) is {show(again)}; a repeated write must change nothing (idempotent)")


@keep_max_task.rule("State.best_score keeps the best score, a first negative score included")
def best_score_graph(check):
    @check.forall(graph_case("best_score", st.integers(-100, 100)), examples=check.budget("graph"),
                  first=small_graph("best_score", -3, -7, -5))
    def best(case):
        state_key_graph(check, "State", "best_score", *case, start=MISSING, reducer=model_keep_max,
                        why="an int channel starts at 0 and swallows a first negative score; use int | None")

    @check.forall(gen.supersteps(max_width=1, max_steps=1), st.integers(-100, -1), examples=check.budget("graph"))
    def first_negative(steps, score):
        writes = {steps[0][0]: {"best_score": score}}
        state_key_graph(check, "State", "best_score", steps, writes, {}, start=MISSING, reducer=model_keep_max,
                        why="an int channel starts at 0 and swallows a first negative score; use int | None")


# -- state.window ---------------------------------------------------------------------------------
window = task("state.window")


@window.rule("keep_recent keeps the last WINDOW items of old + new, in order")
def recent_last(check):
    size = learner_window(check)

    @check.forall(gen.olds, gen.writes)
    def last_items(old, new):
        expect_list_result(check, "keep_recent", old, new, model_window(size)(old, new))


@window.rule("keep_recent returns a new list and never mutates its arguments")
def recent_pure(check):
    @check.forall(gen.item_lists, gen.item_lists)
    def pure(old, new):
        expect_pure(check, "keep_recent", old, new)


@window.rule("windowed(n) returns a reducer keeping the last n items, for any n >= 1")
def windowed_last(check):
    @check.forall(st.integers(1, 12), gen.olds, gen.writes)
    def last_n(n, old, new):
        expect_list_result(check, "windowed", old, new, model_window(n)(old, new), factory_args=[n])
        expect_pure(check, "windowed", old, new, factory_args=[n])


@window.rule("windowed(WINDOW) behaves as keep_recent")
def windowed_is_recent(check):
    size = learner_window(check)

    @check.forall(gen.olds, gen.writes)
    def same(old, new):
        recent = check.value("keep_recent", old, new).result
        expect_list_result(check, "windowed", old, new, recent, factory_args=[size])


@window.rule("LangGraph accepts windowed(n) in Annotated[...]: the reducer takes exactly (old, new)")
def windowed_in_graph(check):
    @check.forall(st.integers(1, 6), st.lists(gen.item_lists, min_size=1, max_size=5), examples=check.budget("graph"))
    def accepted(n, writes):
        got = check.probe("graph_accepts", "windowed", [n], writes)
        expected = []
        for write in writes:
            expected = model_window(n)(expected, write)
        if isinstance(got, Raised):
            raise Failure(f"a graph with Annotated[list[str], windowed({n})] raised {got.sentence()}; "
                          "LangGraph needs a reducer with exactly two positional parameters (use a closure)",
                          {"call": "windowed", "args": [n], "expected": expected, "got": got.type}, status="failed")
        if got.get("items") != expected:
            raise Failure(f"a graph with Annotated[list[str], windowed({n})] and writes {show(writes)} ended with "
                          f"{show(got.get('items'))}; expected {show(expected)}")


@window.rule("windowed(n) raises ValueError at once when n is not an int >= 1")
def windowed_rejects(check):
    @check.forall(st.one_of(st.integers(-5, 0), st.sampled_from([2.5, "3", None, 3.0])))
    def rejects(n):
        call = check.call("windowed", n)
        if call.raised is None:
            raise Failure(f"windowed({n!r}) returned {show(call.result)}; expected ValueError at once, "
                          "not a reducer that fails later inside a run", call.counterexample("ValueError"))
        if not call.raised.is_a("ValueError"):
            raise Failure(f"windowed({n!r}) raised {call.raised.sentence()}; expected a ValueError",
                          call.counterexample("ValueError", call.raised.type))


@window.rule("State.recent keeps the last WINDOW items written, sequential and parallel")
def recent_graph(check):
    size = learner_window(check)

    @check.forall(graph_case("recent", gen.writes, gen.item_lists), examples=check.budget("graph"),
                  first=small_graph("recent", ["p", "q"], ["r", "s"], ["t"]))
    def recent(case):
        state_key_graph(check, "State", "recent", *case, start=[], reducer=model_window(size),
                        why=f"only the last WINDOW={size} items stay")


# -- state.schemas ----------------------------------------------------------------------------------
schemas = task("state.schemas")


@schemas.rule("State has exactly the spec's keys, and question and answer overwrite (no reducer)")
def state_keys(check):
    info = expect_keys(check, "State", SPEC_STATE_KEYS)
    for key in ("question", "answer"):
        if info["channels"][key]["channel"] != "LastValue":
            raise Failure(f"State.{key} has the merge rule {info['channels'][key]['reducer']}; expected none: one value, overwritten")


@schemas.rule("InputState has exactly the key question")
def input_keys(check):
    expect_keys(check, "InputState", ["question"])


@schemas.rule("OutputState has exactly answer, trace, sources and used_calls")
def output_keys(check):
    expect_keys(check, "OutputState", OUTPUT_KEYS)


@schemas.rule("build_graph's invoke returns exactly the OutputState keys: internal keys never leave the graph")
def graph_output(check):
    @check.forall(st.text(min_size=1, max_size=20), examples=check.budget("run"))
    def research_runs(question):
        run = research_run(check, question)
        keys = sorted(run["output"]) if isinstance(run["output"], dict) else run["output"]
        if keys != sorted(OUTPUT_KEYS):
            raise Failure(f"invoke({{'question': {question!r}}}) returned the keys {show(keys)}; expected exactly "
                          f"{sorted(OUTPUT_KEYS)} (pass output_schema=OutputState)",
                          {"call": "build_graph", "args": [question], "expected": sorted(OUTPUT_KEYS), "got": keys})
        if run["input_schema"] != ["question"] or run["output_schema"] != sorted(OUTPUT_KEYS):
            raise Failure(f"the graph's JSON schemas list input {run['input_schema']} and output {run['output_schema']}; "
                          f"expected ['question'] and {sorted(OUTPUT_KEYS)}")


@schemas.rule("trace lists every node run in order, sources have no duplicates, used_calls equals LOOKUP_ROUNDS")
def graph_run(check):
    rounds = check.probe("attr", "LOOKUP_ROUNDS")
    if type(rounds) is not int or rounds < 2:
        raise Failure(f"LOOKUP_ROUNDS is {show(rounds)}; expected an int >= 2")
    expected_trace = ["intake"] + ["lookup"] * rounds + ["finish"]

    @check.forall(st.text(min_size=1, max_size=20), examples=check.budget("run"))
    def research_runs(question):
        out = research_run(check, question)["output"]
        if out.get("trace") != expected_trace:
            raise Failure(f"invoke({{'question': {question!r}}}) gave trace {show(out.get('trace'))}; expected {expected_trace}")
        sources = out.get("sources")
        if type(sources) is not list or len(sources) != len(set(sources)) or not sources:
            raise Failure(f"invoke({{'question': {question!r}}}) gave sources {show(sources)}; expected the cited documents, each once")
        if out.get("used_calls") != rounds:
            raise Failure(f"invoke({{'question': {question!r}}}) gave used_calls {show(out.get('used_calls'))}; "
                          f"expected {rounds}, one per lookup")


@schemas.rule("with a checkpointer the internal keys stay in the checkpoint, and input cannot set them")
def graph_checkpoint(check):
    @check.forall(st.text(min_size=1, max_size=20), examples=check.budget("run"))
    def internal(question):
        injected = {"notes": ["INJECTED NOTE"], "best_score": 10**9}
        state = research_run(check, question, injected)["state"]
        missing = [key for key in ("notes", "best_score") if key not in state]
        if missing:
            raise Failure(f"after a run the checkpoint has keys {sorted(state)}; expected the internal keys {missing} too")
        if "INJECTED NOTE" in (state.get("notes") or []) or state.get("best_score") == 10**9:
            raise Failure(f"invoke({{'question': {question!r}, 'notes': ['INJECTED NOTE'], 'best_score': 10**9}}) "
                          "let the caller set internal keys; InputState must hold only question")


# -- state.decisions ----------------------------------------------------------------------------------
decisions = task("state.decisions")


@decisions.rule("DECISIONS has exactly the keys of State")
def decision_keys(check):
    table = check.probe("attr", "DECISIONS")
    if type(table) is not dict:
        raise Failure(f"DECISIONS is {show(table)}; expected a dict from each State key to a sentence")
    if not table:
        raise Abort("not_implemented", "DECISIONS is empty: write one sentence per State key")
    keys = sorted(map(str, table))
    if keys != sorted(SPEC_STATE_KEYS):
        missing = sorted(set(SPEC_STATE_KEYS) - set(keys))
        extra = sorted(set(keys) - set(SPEC_STATE_KEYS))
        raise Failure(f"DECISIONS has keys {keys}; expected exactly the State keys (missing {missing}, extra {extra})",
                      {"call": "DECISIONS", "args": [], "expected": sorted(SPEC_STATE_KEYS), "got": keys})


@decisions.rule("each decision is a sentence: the merge rule, visible or internal, and why")
def decision_sentences(check):
    table = check.probe("attr", "DECISIONS")
    if type(table) is not dict or not table:
        raise Abort("not_implemented", "DECISIONS is empty: write one sentence per State key")
    for key, text in table.items():
        if type(text) is not str or len(text.split()) < 4:
            raise Failure(f"DECISIONS[{key!r}] is {show(text)}; expected a sentence of a few words: "
                          "overwrite or which merge, visible or internal, and why")
