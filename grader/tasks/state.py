"""Part A tasks: the rules of ``agstate/state.py``, one check per rule (LAB-SPEC §3)."""

from hypothesis import strategies as st

from grader import strategies as gen
from grader.checking import Abort, Checker, Failure, show
from grader.wire import Opaque
from grader.tasks import register

SPEC_STATE_KEYS = ["question", "trace", "sources", "used_calls", "best_score", "recent", "notes", "answer"]
OUTPUT_KEYS = ["answer", "trace", "sources", "used_calls"]
INTERNAL_KEYS = ["notes", "recent", "best_score"]
MISSING = object()  # a channel with no value yet (LangGraph could not build a default)


# -- the model: what each reducer must return --------------------------------------
def as_items(new) -> list:
    return list(new) if isinstance(new, (list, tuple)) else [new]


def model_append(old, new):
    return [*(old or []), *as_items(new)]


def model_merge(old, new):
    return list(dict.fromkeys([*(old or []), *as_items(new)]))


def model_keep_max(old, new):
    if old is None:
        return new
    if new is None:
        return old
    return max(old, new)


def model_window(n):
    return lambda old, new: model_append(old, new)[-n:]


def model_graph(steps, writes, key, graph_input, start, reducer):
    """The value LangGraph leaves in ``key``: input first, then each step's writes by node name."""
    value = start
    ordered = [graph_input[key]] if key in graph_input else []
    # Parallel writes are applied in node-name order, not finish order (FACTS).
    ordered += [writes[name][key] for step in steps for name in sorted(step) if key in writes[name]]
    for write in ordered:
        value = write if value is MISSING else reducer(value, write)
    return value


# -- shared checks --------------------------------------------------------------------
def expect_list_result(check: Checker, name: str, old, new, expected, factory_args=None):
    """One reducer call: the right items, exactly a new ``list``, arguments untouched."""
    if factory_args is None:
        call = check.value(name, old, new)
    else:
        call = check.value_made(name, factory_args, old, new)
    got = call.result
    if type(got) is not list or got != expected:
        # An Opaque value's text already names its type.
        kind = "" if type(got) is list or isinstance(got, Opaque) else f" (a {type(got).__name__})"
        kind += "" if type(got) is list else ", not a list"
        raise Failure(f"{call.text()} returned {show(got)}{kind}; expected {show(expected)}", call.counterexample(expected))
    return call


def expect_pure(check: Checker, name: str, old, new, factory_args=None):
    """The reducer returns a new list and leaves both arguments as they were."""
    if factory_args is None:
        call = check.value(name, old, new)
    else:
        call = check.value_made(name, factory_args, old, new)
    for label, before, after, same in zip(("old", "new"), (old, new), call.args_after, call.returned_an_argument):
        if after != before or type(after) is not type(before):
            raise Failure(f"{call.text()} changed its argument {label} to {show(after)}; a reducer never mutates its arguments",
                          call.counterexample(before, after))
        if same:
            raise Failure(f"{call.text()} returned its argument {label} itself; return a new list",
                          call.counterexample("a new list", "the argument itself"))
    if type(call.result) is not list:
        raise Failure(f"{call.text()} returned {show(call.result)}; expected exactly a list", call.counterexample("a list"))


def state_key_graph(check: Checker, schema: str, key: str, steps, writes, graph_input, start, reducer, why: str):
    """Run a random graph writing ``key`` of the learner's schema; compare with the model."""
    # Only this key's channel is built (run_graph uses a one-key sub-schema): a broken annotation on
    # another key (e.g. builtin max for best_score) fails that key's task, not this one.
    require_keys(check, schema, whole_schema=False)
    got = check.probe("run_graph", schema, [key], steps, writes, graph_input)
    if hasattr(got, "sentence"):
        raise Failure(f"a graph over {schema}.{key} raised {got.sentence()}", status="error")
    expected = model_graph(steps, writes, key, graph_input, start, reducer)
    got_value = got.get(key, MISSING)
    if got_value != expected or (got_value is not MISSING and type(got_value) is not type(expected)):
        raise Failure(
            f"{describe_graph(steps, writes, key, graph_input)} ended with {key} = {show_missing(got_value)}; "
            f"expected {show_missing(expected)} ({why})",
            {"call": "graph", "args": [steps, writes, graph_input], "expected": None if expected is MISSING else expected,
             "got": None if got_value is MISSING else got_value},
        )


def describe_graph(steps, writes, key, graph_input) -> str:
    parts = [f"input {key}={show(graph_input[key])}"] if key in graph_input else []
    for number, step in enumerate(steps, 1):
        each = ", ".join(f"{name!r} writes {show(writes[name][key])}" for name in step)
        parts.append(f"step {number}{' (parallel)' if len(step) > 1 else ''}: {each}")
    return "a graph with " + "; ".join(parts)


def show_missing(value) -> str:
    return "no value" if value is MISSING else show(value)


def require_keys(check: Checker, schema: str, whole_schema: bool = True) -> dict | None:
    """The channels LangGraph builds for ``schema``; an empty TypedDict is the untouched stub.

    ``whole_schema=False``: the caller judges one key on its own, so ``StateGraph(schema)`` raising
    (because of some key's annotation) is not this rule's failure; returns None then.
    """
    info = check.once("channels", schema)
    if hasattr(info, "sentence"):
        if not whole_schema:
            return None
        raise Failure(f"StateGraph({schema}) raised {info.sentence()}", status="error")
    if not info["keys"]:
        raise Abort("not_implemented", f"{schema} has no keys yet: declare them as its docstring in agstate/state.py says")
    return info


def small_graph(key: str, *values) -> tuple:
    """A fixed small case tried before the random ones: a step of its own, then two writers in parallel.

    Checked first so that a wrong merge rule is reported on this case at once,
    instead of shrinking random graphs (each shrink step is a graph run).
    """
    steps = [["a"], ["b", "c"]]
    return (steps, {name: {key: value} for name, value in zip(["a", "b", "c"], values)}, {}),


@st.composite
def graph_case(draw, key: str, values, input_values=None):
    """Random supersteps, one write of ``key`` per node, and maybe an input value."""
    steps = draw(gen.supersteps())
    writes = {name: {key: draw(values)} for step in steps for name in step}
    graph_input = {key: draw(input_values)} if input_values is not None and draw(st.booleans()) else {}
    return steps, writes, graph_input


# -- state.overwrite ----------------------------------------------------------------------
overwrite = register("state.overwrite", 10, "01_overwrite.ipynb", "NaiveState reproduces the overwrite (and the parallel error)")


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

    @check.forall(gen.supersteps(max_width=1, max_steps=5), examples=check.graph_examples)
    def sequential_overwrites(steps):
        writes = {step[0]: {"trace": [step[0]]} for step in steps}
        got = check.probe("run_graph", "NaiveState", ["trace"], steps, writes, {"trace": ["start"]})
        if hasattr(got, "sentence"):
            raise Failure(f"{describe_graph(steps, writes, 'trace', {})} raised {got.sentence()}", status="error")
        expected = [steps[-1][0]]
        if got.get("trace") != expected:
            raise Failure(f"{describe_graph(steps, writes, 'trace', {})} ended with trace = {show(got.get('trace'))}; "
                          f"expected {show(expected)}: without a reducer the last write wins")


@overwrite.rule("two nodes writing NaiveState.trace in the same step raise InvalidUpdateError")
def naive_parallel_error(check):
    require_keys(check, "NaiveState")

    @check.forall(gen.supersteps(min_width=2, max_width=3, max_steps=1), examples=check.graph_examples)
    def parallel_raises(steps):
        writes = {name: {"trace": [name]} for name in steps[0]}
        got = check.probe("run_graph", "NaiveState", ["trace"], steps, writes, {})
        if not (hasattr(got, "sentence") and got.is_a("InvalidUpdateError")):
            raise Failure(f"{describe_graph(steps, writes, 'trace', {})} returned {show(got)}; "
                          "expected InvalidUpdateError: a key without a reducer takes one value per step")


# -- state.append ---------------------------------------------------------------------------
append_task = register("state.append", 15, "02_append_and_budget.ipynb", "append rules; State.trace accumulates")


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
    @check.forall(graph_case("trace", gen.writes, gen.item_lists), examples=check.graph_examples,
                  first=small_graph("trace", ["x"], ["y"], "z"))
    def accumulates(case):
        state_key_graph(check, "State", "trace", *case, start=[], reducer=model_append,
                        why="every write is kept")


# -- state.budget -------------------------------------------------------------------------------
budget = register("state.budget", 10, "02_append_and_budget.ipynb", "State.used_calls sums across writers")


@budget.rule("State.used_calls sums every write, from sequential and parallel writers alike")
def budget_sums(check):
    @check.forall(graph_case("used_calls", st.integers(0, 10**9), st.integers(0, 100)), examples=check.graph_examples,
                  first=small_graph("used_calls", 1, 2, 3))
    def sums(case):
        state_key_graph(check, "State", "used_calls", *case, start=0, reducer=lambda a, b: a + b,
                        why="each writer adds the calls it spent")


@budget.rule("State.used_calls starts at 0 and counts a write of 0 as nothing spent")
def budget_zero(check):
    @check.forall(gen.supersteps(), examples=check.graph_examples)
    def zeros(steps):
        writes = {name: {"used_calls": 0} for step in steps for name in step}
        state_key_graph(check, "State", "used_calls", steps, writes, {}, start=0, reducer=lambda a, b: a + b,
                        why="an int channel starts at 0 and 0 + 0 is 0")


# -- state.dedupe --------------------------------------------------------------------------------
dedupe = register("state.dedupe", 15, "03_dedupe.ipynb", "merge_sources rules incl. linear time; State.sources")


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
    if hasattr(seconds, "sentence"):
        raise Failure(f"merge_sources on {LINEAR_ITEMS:,} items raised {seconds.sentence()}", status="error")
    if seconds > LINEAR_LIMIT_S:
        raise Failure(f"merge_sources on {LINEAR_ITEMS:,} items took {seconds:.2f} s of CPU; expected under "
                      f"{LINEAR_LIMIT_S:.0f} s: remember seen items in a set instead of scanning the list")


@dedupe.rule("State.sources merges every write, keeping first occurrences")
def sources_graph(check):
    @check.forall(graph_case("sources", gen.writes, gen.item_lists), examples=check.graph_examples,
                  first=small_graph("sources", ["x", "y"], ["y"], ["x", "z"]))
    def merged(case):
        state_key_graph(check, "State", "sources", *case, start=[], reducer=model_merge,
                        why="each source is listed once, where it first appeared")


# -- state.keep_max ------------------------------------------------------------------------------
keep_max_task = register("state.keep_max", 15, "04_keep_max.ipynb", "keep_max rules and laws; State.best_score")


def expect_value(check, name, args, expected):
    call = check.value(name, *args)
    if call.result != expected or type(call.result) is not type(expected):
        raise Failure(f"{call.text()} returned {show(call.result)}; expected {show(expected)}", call.counterexample(expected))
    return call.result


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
    @check.forall(graph_case("best_score", st.integers(-100, 100)), examples=check.graph_examples,
                  first=small_graph("best_score", -3, -7, -5))
    def best(case):
        state_key_graph(check, "State", "best_score", *case, start=MISSING, reducer=model_keep_max,
                        why="an int channel starts at 0 and swallows a first negative score; use int | None")

    @check.forall(gen.supersteps(max_width=1, max_steps=1), st.integers(-100, -1), examples=check.graph_examples)
    def first_negative(steps, score):
        writes = {steps[0][0]: {"best_score": score}}
        state_key_graph(check, "State", "best_score", steps, writes, {}, start=MISSING, reducer=model_keep_max,
                        why="an int channel starts at 0 and swallows a first negative score; use int | None")


# -- state.window ---------------------------------------------------------------------------------
window = register("state.window", 15, "05_windows.ipynb", "keep_recent, windowed(n); State.recent")


def learner_window(check) -> int:
    size = check.probe("attr", "WINDOW")
    if type(size) is not int or size < 1:
        raise Failure(f"WINDOW is {show(size)}; expected an int >= 1 (the spec sets 3)")
    return size


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
    @check.forall(st.integers(1, 6), st.lists(gen.item_lists, min_size=1, max_size=5), examples=check.graph_examples)
    def accepted(n, writes):
        got = check.probe("graph_accepts", "windowed", [n], writes)
        expected = []
        for write in writes:
            expected = model_window(n)(expected, write)
        if hasattr(got, "sentence"):
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

    @check.forall(graph_case("recent", gen.writes, gen.item_lists), examples=check.graph_examples,
                  first=small_graph("recent", ["p", "q"], ["r", "s"], ["t"]))
    def recent(case):
        state_key_graph(check, "State", "recent", *case, start=[], reducer=model_window(size),
                        why=f"only the last WINDOW={size} items stay")


# -- state.schemas ----------------------------------------------------------------------------------
schemas = register("state.schemas", 15, "06_schemas.ipynb", "InputState, OutputState, build_graph whitelist")


def expect_keys(check, schema, expected):
    info = require_keys(check, schema)
    if sorted(info["keys"]) != sorted(expected):
        extra = sorted(set(info["keys"]) - set(expected))
        missing = sorted(set(expected) - set(info["keys"]))
        detail = "; ".join(filter(None, [f"extra {extra}" if extra else "", f"missing {missing}" if missing else ""]))
        raise Failure(f"{schema} has keys {info['keys']}; expected exactly {expected} ({detail})",
                      {"call": schema, "args": [], "expected": expected, "got": info["keys"]})
    return info


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


def research_run(check, question, extra_input=None):
    run = check.probe("research_run", question, f"thread-{check.seed}", extra_input or {})
    if hasattr(run, "sentence"):
        raise Failure(f"build_graph(checkpointer=InMemorySaver()).invoke({{'question': {question!r}}}) raised {run.sentence()}",
                      {"call": "build_graph", "args": [question], "expected": None, "got": run.type}, status="error")
    return run


@schemas.rule("build_graph's invoke returns exactly the OutputState keys: internal keys never leave the graph")
def graph_output(check):
    @check.forall(st.text(min_size=1, max_size=20), examples=check.run_examples)
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

    @check.forall(st.text(min_size=1, max_size=20), examples=check.run_examples)
    def research_runs(question):
        out = research_run(check, question)["output"]
        if out.get("trace") != expected_trace:
            raise Failure(f"invoke({{'question': {question!r}}}) gave trace {show(out.get('trace'))}; expected {expected_trace}")
        sources = out.get("sources")
        if type(sources) is not list or len(sources) != len(set(sources)) or not sources:
            raise Failure(f"invoke({{'question': {question!r}}}) gave sources {show(sources)}; expected the cited documents, each once")
        if out.get("used_calls") != rounds:
            raise Failure(f"invoke({{'question': {question!r}}}) gave used_calls {show(out.get('used_calls'))}; expected {rounds}, one per lookup")


@schemas.rule("with a checkpointer the internal keys stay in the checkpoint, and input cannot set them")
def graph_checkpoint(check):
    @check.forall(st.text(min_size=1, max_size=20), examples=check.run_examples)
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
decisions = register("state.decisions", 5, "06_schemas.ipynb", "DECISIONS covers exactly the State keys")


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
