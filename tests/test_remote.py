"""The call boundary (grader.engine.remote, .rebuild, grader.child.remote): graphs the learner builds, run in the grading process.

The oracle is LangGraph itself: each learner module here is also imported in
this test's own process, and its graph run there directly; the graph rebuilt
on the grading side, each node, router and reducer a call into the learner's
process, must end in the same state, raise the same error, and reproduce
the same LangGraph behaviours a mutating reducer or node causes.
"""

import importlib.util
import sys
import textwrap

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from support.paths import ROOT
from support.submissions import build_submission

from grader.engine.handles import SAVER, Callback, CallbackObject, Killed, LearnerRaised
from grader.engine.rebuild import mirror
from grader.engine.remote import Remote, run_scenario, scenario
from grader.sandbox.allowance import Allowance
from grader.sandbox.limits import Limits
from grader.sandbox.session import MissingName, Session
from grader.sandbox.staging import staged
from grader.wire import Raised

GRAPHS = textwrap.dedent('''
    import operator
    from typing import Annotated

    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, interrupt
    from typing_extensions import TypedDict

    from agstate.tools import relevance, search_docs


    def extend_in_place(old, new):  # the classic bug: the stored list itself grows
        old.extend(new)
        return old


    class Loop(TypedDict, total=False):
        trace: Annotated[list[str], extend_in_place]
        count: Annotated[int, operator.add]
        total: int | None
        size: int


    class Public(TypedDict):
        count: int


    def build_loop(checkpointer=None):
        def step(state: Loop, config) -> dict:
            return {"trace": [f"step@{config['configurable'].get('thread_id', '-')}"], "count": 1}

        def route(state: Loop) -> str:
            return "step" if state["count"] < 3 else "done"

        def done(state: Loop):
            state["trace"].append("mutated by done")  # a node that mutates the state it is given
            return Command(update={"total": state["count"] * 10}, goto="report")

        def report(state: Loop) -> dict:
            return {"size": len(state["trace"]), "trace": [state["trace"][-1]]}

        builder = StateGraph(Loop, output_schema=Public)
        builder.add_node("step", step)
        builder.add_node("done", done, destinations=("report",))
        builder.add_node("report", report)
        builder.add_edge(START, "step")
        builder.add_conditional_edges("step", route, {"step": "step", "done": "done"})
        return builder.compile(checkpointer=checkpointer)


    def build_fanout(checkpointer=None):
        builder = StateGraph(Loop)
        for name in ("a", "b", "c"):
            builder.add_node(name, lambda state, name=name: {"trace": [name], "count": 2})
        builder.add_node("join", lambda state: {"trace": [f"join:{len(state['trace'])}"]})
        for name in ("a", "b", "c"):
            builder.add_edge(START, name)
        builder.add_edge(["a", "b", "c"], "join")
        builder.add_edge("join", END)
        return builder.compile(checkpointer=checkpointer)


    def build_huge(checkpointer=None):  # far past what the grader rebuilds (engine.rebuild.GRAPH_LIMIT)
        builder = StateGraph(Loop)
        for number in range(100):
            builder.add_node(f"n{number}", lambda state: {})
        builder.add_edge(START, "n0")
        return builder.compile(checkpointer=checkpointer)


    Wide = TypedDict("Wide", {f"k{number}": int for number in range(100)}, total=False)


    def build_wide(checkpointer=None):
        builder = StateGraph(Wide)
        builder.add_node("only", lambda state: {})
        builder.add_edge(START, "only")
        return builder.compile(checkpointer=checkpointer)


    def build_with_tools(checkpointer=None):
        def look(state: Loop) -> dict:
            found = search_docs("q", state.get("count", 0) + 1)
            return {"trace": found, "count": 1, "total": relevance("q", 2)}

        builder = StateGraph(Loop)
        builder.add_node("look", look)
        builder.add_edge(START, "look")
        builder.add_edge("look", END)
        return builder.compile(checkpointer=checkpointer)


    def build_raising(checkpointer=None):
        def broken(state):
            return {"count": state["missing"]}

        builder = StateGraph(Loop)
        builder.add_node("broken", broken)
        builder.add_edge(START, "broken")
        return builder.compile(checkpointer=checkpointer)


    class Maxed(TypedDict, total=False):
        best: Annotated[int, max]  # LangGraph cannot read a builtin's signature


    def build_maxed(checkpointer=None):
        return StateGraph(Maxed).compile(checkpointer=checkpointer)


    def build_not_a_graph(checkpointer=None):
        return "a graph, honestly"


    class Refused(Exception):
        def __init__(self, what, count):
            super().__init__(f"{what} refused {count} times")
            self.what, self.count = what, count


    def read_twice(stream):  # a property of a lent object: each read a call over there
        return [stream.version, stream.version]


    _KEPT = []  # a fake kept past its run, as a learner's module-level cache would


    def keep(function):
        _KEPT.append(function)
        return "kept"


    def call_kept():
        return _KEPT[-1]()


    def call_catching(function, *args):
        """What ``function(*args)`` returned, or the name, module and attributes of what it raised."""
        try:
            return function(*args)
        except Exception as exc:
            return [type(exc).__name__, getattr(exc, "what", None), getattr(exc, "count", None), str(exc)]


    def double(n):
        return 2 * n


    SENT = []  # the side effect a re-run node repeats (in whichever process runs it)


    def build_asking(checkpointer=None):
        def ask(state: Loop, config):
            thread = config["configurable"]["thread_id"]
            SENT.append(thread)
            first = interrupt({"question": 1})
            second = interrupt({"question": 2}) if first != "skip" else "-"
            return {"trace": [f"{first}/{second}", f"sent {SENT.count(thread)}"], "count": 1}

        def swallow(state: Loop):
            try:
                interrupt("never shown")
            except Exception:  # the pause swallowed: the node completes, as in LangGraph
                return {"count": 10}
            return {"count": 100}

        builder = StateGraph(Loop)
        builder.add_node("ask", ask)
        builder.add_node("swallow", swallow)
        builder.add_edge(START, "ask")
        builder.add_edge("ask", "swallow")
        return builder.compile(checkpointer=checkpointer)


    CAUGHT = []  # the pauses a node saw as LangGraph's GraphInterrupt, caught and raised again


    def build_catching(checkpointer=None):
        from langgraph.errors import GraphInterrupt as Pause

        def ask(state: Loop):
            try:
                answer = interrupt("approve?")
            except Pause:  # only a real pause: the effect that must happen once, when the run really waits
                CAUGHT.append("paused")
                raise
            return {"trace": [f"answered {answer}", f"caught {len(CAUGHT)}"]}

        builder = StateGraph(Loop)
        builder.add_node("ask", ask)
        builder.add_edge(START, "ask")
        return builder.compile(checkpointer=checkpointer)


    class GraphInterrupt(Exception):  # a pause faked by name: no interrupt() was called
        pass


    def build_faking_a_pause(checkpointer=None):
        def fake(state: Loop):
            raise GraphInterrupt("paused, says the learner")

        builder = StateGraph(Loop)
        builder.add_node("fake", fake)
        builder.add_edge(START, "fake")
        return builder.compile(checkpointer=checkpointer)


    def build_overwriting(checkpointer=None):
        from langgraph.types import Overwrite

        builder = StateGraph(Loop)
        builder.add_node("grow", lambda state: {"trace": ["grown"]})
        builder.add_node("reset", lambda state: {"trace": Overwrite(["reset"]), "count": 1})
        builder.add_edge(START, "grow")
        builder.add_edge("grow", "reset")
        return builder.compile(checkpointer=checkpointer)


    def build_with_retries(checkpointer=None):
        from langgraph.types import RetryPolicy

        builder = StateGraph(Loop)
        builder.add_node("flaky", lambda state: {"count": 1}, retry_policy=RetryPolicy(max_attempts=2))
        builder.add_edge(START, "flaky")
        return builder.compile(checkpointer=checkpointer)
''')


@pytest.fixture(scope="module")
def learner(tmp_path_factory):
    """A learner process holding GRAPHS as agstate/state.py, and the same module imported here (the oracle)."""
    submission = tmp_path_factory.mktemp("remote") / "submission"
    build_submission(submission, modules={"state.py": GRAPHS})
    sys.path.insert(0, str(submission))
    for name in [n for n in sys.modules if n == "agstate" or n.startswith("agstate.")]:
        del sys.modules[name]
    spec = importlib.util.spec_from_file_location("agstate.state", submission / "agstate" / "state.py")
    here = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(here)
    with staged(submission) as (copy, _), Session(copy, "state", Limits(cpu_seconds=60)) as session:
        yield session, here
    sys.path.remove(str(submission))
    for name in [n for n in sys.modules if n == "agstate" or n.startswith("agstate.")]:
        del sys.modules[name]


def _remote(session) -> Remote:
    return Remote(session, Allowance(30), lambda: "running a test's graph")


def _both(learner, builder: str, graph_input: dict, thread: str = "t-1"):
    """(final state, checkpoint) of the graph run here by LangGraph directly, and of the graph rebuilt from the learner's."""
    session, here = learner
    config = {"configurable": {"thread_id": thread}, "max_concurrency": 1}
    direct = getattr(here, builder)(checkpointer=InMemorySaver())
    # durability="sync": a checkpoint is saved before the next step runs (by default a thread of LangGraph's saves it,
    # and what a node mutating its state does to it depends on which comes first).
    expected = (direct.invoke(dict(graph_input), config, durability="sync"), direct.get_state(config).values)
    remote = _remote(session)
    rebuilt = remote.graph(remote.call(builder, checkpointer=SAVER), InMemorySaver())
    got = (rebuilt.invoke(dict(graph_input), config, durability="sync"), rebuilt.get_state(config).values)
    return expected, got


@pytest.mark.part
def test_a_rebuilt_graph_runs_as_the_learners_own_branches_config_commands_and_mutations_included(learner):
    expected, got = _both(learner, "build_loop", {"count": 0})
    assert got == expected
    # What LangGraph does with a reducer that extends the stored list (a conditional edge reads a shallow channel
    # copy) and a node that appends to its state: reproduced, not washed out by the copies crossing the boundary.
    assert got[1]["trace"].count("step@t-1") > 3 and got[1]["trace"][-2:] == ["mutated by done"] * 2
    assert got[0] == {"count": 3} and got[1]["total"] == 30 and got[1]["size"] == len(got[1]["trace"]) - 1


@pytest.mark.part
@pytest.mark.parametrize("answers", [["A", "B"], ["skip"]], ids=["two questions", "one question"])
def test_a_learners_interrupt_pauses_the_run_here_and_gets_its_answers_by_position(learner, answers):
    """LangGraph's interrupt(), lent to the learner's module, answers from here: the same pauses, answers and re-runs
    as the graph run by LangGraph directly (the node runs again from its first line on every resume)."""
    session, here = learner
    remote = _remote(session)
    assert remote.lend_interrupt("state") >= 1
    try:
        runs = []
        for graph in (here.build_asking(checkpointer=InMemorySaver()),
                      remote.graph(remote.call("build_asking", checkpointer=SAVER), InMemorySaver())):
            config = {"configurable": {"thread_id": f"asking-{len(answers)}"}}  # the same in both: the traces match
            seen = [graph.invoke({"count": 0}, config, durability="sync")]
            for answer in answers:
                seen.append(graph.invoke(Command(resume=answer), config, durability="sync"))
            runs.append(([[i.value for i in out.get("__interrupt__", ())] for out in seen], seen[-1],
                         graph.get_state(config).next))
    finally:
        remote.take_back()
    assert runs[0] == runs[1]
    expected_pauses = [[{"question": 1}], [{"question": 2}], []] if len(answers) == 2 else [[{"question": 1}], []]
    assert runs[1][0] == expected_pauses
    assert runs[1][1]["trace"] == [f"{answers[0]}/{answers[1] if len(answers) == 2 else '-'}", f"sent {len(answers) + 1}"]
    assert runs[1][1]["count"] == 11 and runs[1][2] == ()  # the swallowing node completed, and the run


@pytest.mark.part
def test_a_node_catching_langgraphs_pause_meets_langgraphs_own_class(learner):
    session, here = learner
    remote = _remote(session)
    remote.lend_interrupt("state")
    try:
        config = {"configurable": {"thread_id": "catching"}}
        direct = here.build_catching(checkpointer=InMemorySaver())
        rebuilt = remote.graph(remote.call("build_catching", checkpointer=SAVER), InMemorySaver())
        finals = []
        for graph in (direct, rebuilt):
            graph.invoke({"count": 0}, config)
            finals.append(graph.invoke(Command(resume="yes"), config)["trace"])
        assert finals[0] == finals[1] == ["answered yes", "caught 1"]  # caught once, on the pause: the same there
    finally:
        remote.take_back()


@pytest.mark.part
def test_a_pause_is_langgraphs_only_a_learners_exception_named_so_is_an_error(learner):
    session, _ = learner
    remote = _remote(session)
    remote.lend_interrupt("state")
    try:
        graph = remote.graph(remote.call("build_faking_a_pause", checkpointer=SAVER), InMemorySaver())
        with pytest.raises(LearnerRaised, match="GraphInterrupt: paused, says the learner"):
            graph.invoke({"count": 0}, {"configurable": {"thread_id": "faking"}})
    finally:
        remote.take_back()


@pytest.mark.part
def test_an_overwrite_a_learners_node_returns_passes_its_key_s_reducer_here_as_in_langgraph(learner):
    expected, got = _both(learner, "build_overwriting", {"trace": ["start"], "count": 0})
    assert got == expected and got[1]["trace"] == ["reset"]


@pytest.mark.part
def test_parallel_branches_and_a_join_run_in_one_fixed_order(learner):
    expected, got = _both(learner, "build_fanout", {})
    assert got == expected and got[1]["count"] == 6


@pytest.mark.part
def test_a_lent_callback_runs_in_the_grading_process_and_keeps_its_ledger_there(learner):
    session, _ = learner
    ledger = []

    def search_docs(question: str, round_no: int) -> list[str]:
        ledger.append((question, round_no))
        return [f"doc-{round_no}"]

    def relevance(question: str, round_no: int) -> int:
        ledger.append(("relevance", round_no))
        return 7

    remote = _remote(session)
    remote.lend("tools", {"search_docs": Callback("search_docs", search_docs), "relevance": Callback("relevance", relevance)})
    graph = remote.graph(remote.call("build_with_tools", checkpointer=SAVER), InMemorySaver())
    out = graph.invoke({"count": 0}, {"configurable": {"thread_id": "tools"}})
    remote.take_back()
    assert ledger == [("q", 1), ("relevance", 2)] and out["trace"] == ["doc-1"] and out["total"] == 7


@pytest.mark.part
@pytest.mark.parametrize("builder, says", [
    ("build_raising", "KeyError: 'missing'"),
    ("build_not_a_graph", "expected a compiled StateGraph"),
    ("build_with_retries", "a retry policy"),
    ("build_maxed", "no signature found for builtin"),
    ("build_huge", "the graph has 100 nodes: the lab's graphs have a handful"),
    ("build_wide", "the graph's schema has 100 keys: the lab's states have a handful"),
])
def test_what_the_learners_graph_cannot_do_is_the_learners_error_with_its_line(learner, builder, says):
    session, _ = learner

    @scenario
    def _run_for_test(remote, name):
        return remote.attempt(lambda: remote.graph(remote.call(name, checkpointer=SAVER), InMemorySaver())
                              .invoke({"count": 0}, {"configurable": {"thread_id": "x"}}))

    from grader.engine.remote import SCENARIOS

    try:
        got = run_scenario("_run_for_test", session, [builder], Allowance(30), lambda: "a test")
    finally:
        del SCENARIOS["_run_for_test"]
    assert isinstance(got, Raised) and says in got.sentence()
    if builder == "build_raising":
        assert got.where and got.where["file"] == "agstate/state.py" and "state[\"missing\"]" in got.where["code"]


@pytest.mark.part
def test_a_missing_name_and_a_handle_that_is_not_callable_are_answers_not_crashes(learner):
    session, _ = learner
    remote = _remote(session)
    with pytest.raises(Exception) as missing:
        remote.get("no_such_name")
    assert "no_such_name" in str(missing.value)
    graph = remote.call("build_loop", checkpointer=SAVER)
    with pytest.raises(LearnerRaised, match="not callable"):
        remote.call(graph)
    assert isinstance(run_scenario("channels", session, ["Nope"], Allowance(30), lambda: "x"), MissingName)


@pytest.mark.part
def test_a_lent_objects_property_is_read_over_here_each_time(learner):
    session, _ = learner
    reads = []

    def version():
        reads.append(len(reads) + 1)
        return reads[-1]

    remote = _remote(session)
    assert remote.call("read_twice", CallbackObject("Stream", {"version": version}, properties=("version",))) == [1, 2]


@pytest.mark.part
def test_a_callback_may_call_the_learners_code_again_before_it_answers(learner):
    """A rival resolver committing inside the learner's append: the callback calls back in, then answers."""
    session, _ = learner
    remote = _remote(session)
    assert remote.call("call_catching", Callback("rival", lambda n: remote.call("double", n) + 1), 20) == 41


@pytest.mark.part
def test_what_a_callback_raises_is_raised_over_there_as_the_learners_class_or_one_of_its_name(learner):
    session, _ = learner

    class Refused(Exception):  # the learner's module's class of that name is made, with these arguments
        learner_module = "state"

        def __init__(self):
            super().__init__("ours")
            self.learner_args = ["payment", 3]

    class ToolTimeout(Exception):  # no class of that name over there: one is made for it
        pass

    def refuse():
        raise Refused()

    def time_out():
        raise ToolTimeout("search timed out")

    remote = _remote(session)
    assert remote.call("call_catching", Callback("refuse", refuse)) == ["Refused", "payment", 3, "payment refused 3 times"]
    assert remote.call("call_catching", Callback("time_out", time_out)) == ["ToolTimeout", None, None, "search timed out"]


@pytest.mark.part
def test_a_scenario_kills_the_learners_process_inside_a_callback_and_goes_on_with_the_next(learner):
    session, _ = learner
    remote = _remote(session)
    assert remote.call("double", 2) == 4
    before = session.generation
    with pytest.raises(Killed):
        remote.call("call_catching", Callback("die", lambda: remote.kill()))
    assert not remote.live()  # its handles name a process that is gone
    assert session.alive and session.generation == before + 1  # the next one is being made already (prestart)
    after = remote.successor()
    assert after is not remote and after.call("double", 5) == 10  # a new process: the module imported again
    assert session.generation == before + 1 and after.live()


@pytest.mark.part
def test_a_fake_kept_from_an_ended_scenario_fails_the_run_that_calls_it_and_its_ledger_stays_shut(learner):
    from grader.engine.remote import SCENARIOS

    session, _ = learner
    ledger = []

    @scenario
    def _lend_a_fake(remote):
        return remote.call("keep", Callback("pay", lambda: ledger.append("paid") or "receipt-1"))

    @scenario
    def _a_later_run(remote):
        return remote.call("call_kept")

    try:
        assert run_scenario("_lend_a_fake", session, [], Allowance(30), lambda: "a test") == "kept"
        got = run_scenario("_a_later_run", session, [], Allowance(30), lambda: "a test")
    finally:
        del SCENARIOS["_lend_a_fake"], SCENARIOS["_a_later_run"]
    assert ledger == []
    assert isinstance(got, Raised) and "your code called pay, lent to an earlier run" in got.sentence(), got


@pytest.mark.part
def test_a_prestarted_process_is_the_one_the_next_probe_asks_and_close_ends_it_unasked(learner):
    session, _ = learner
    sibling = session.sibling(0)
    sibling.prestart()
    made = sibling.generation
    sibling.prestart()  # once made, asking again makes nothing more
    assert sibling.alive and sibling.generation == made
    assert _remote(sibling).call("double", 4) == 8 and sibling.generation == made
    other = session.sibling(1)
    other.prestart()
    other.close()  # never asked: its sandbox ends all the same
    assert not other.alive
    assert _remote(other).call("double", 1) == 2 and other.generation == 2  # the next probe makes a new one


@pytest.mark.unit
def test_mirror_changes_our_containers_in_place_as_the_learners_code_changed_its_copies():
    inner = ["a"]
    state = {"trace": inner, "gone": 1, "same": (1, 2)}
    mirror(state, {"trace": ["a", "b"], "same": (1, 2), "new": {3}})
    assert state == {"trace": ["a", "b"], "same": (1, 2), "new": {3}} and state["trace"] is inner
    items, kept = [[1], [2]], None
    kept = items[0]
    mirror(items, [[1, 9], [2]])
    assert items == [[1, 9], [2]] and items[0] is kept
    shrunk = [1, 2, 3]
    mirror(shrunk, [1])
    assert shrunk == [1]
    same = [True]
    mirror(same, [1])  # equal but not the same type: the learner's value wins
    assert type(same[0]) is int


def test_the_grading_sides_fake_tools_are_the_kits():
    """The research graph's tools lent to a graded run answer as the kit's agstate/tools.py does, call for call."""
    from grader.parts.state import fakes

    spec = importlib.util.spec_from_file_location("kit_tools", ROOT / "solutions" / "agstate" / "tools.py")
    kit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kit)
    for question in ["", "what is a reducer?", "é" * 40, "0"]:
        for round_no in range(1, 8):
            assert fakes.search_docs(question, round_no) == kit.search_docs(question, round_no)
            assert fakes.relevance(question, round_no) == kit.relevance(question, round_no)


test_the_grading_sides_fake_tools_are_the_kits = pytest.mark.unit(test_the_grading_sides_fake_tools_are_the_kits)


@pytest.mark.unit
def test_the_interrupt_key_the_refund_scenario_reads_is_langgraphs():
    from langgraph._internal._constants import INTERRUPT

    from grader.parts.branches.scenarios import INTERRUPT as read

    assert read == INTERRUPT
