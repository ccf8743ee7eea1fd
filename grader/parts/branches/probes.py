"""Part D's probes: trusted scenarios run inside the learner's child; they report plain data, never judge.

Loaded by ``grader.parts.branches.rules`` in the grading process, so they exist
before the grader forks a child.
"""

import copy
import sys
import threading
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from grader.probes import probe

BRANCHES = ["policy_check", "payment_lookup", "risk_review", "reply_draft"]


def _raised(exc: BaseException, attrs: list[str]) -> dict:
    """An exception as data: its class names and the attributes a rule asks for (a stub's NotImplementedError propagates)."""
    if isinstance(exc, NotImplementedError):
        raise exc
    return {"raised": type(exc).__name__, "mro": [cls.__name__ for cls in type(exc).__mro__],
            "attrs": {name: getattr(exc, name, "<missing>") for name in attrs}}


@probe
def call_catching(ctx, name, args, attrs):
    """``name(*args)``: its result, or the exception it raised with the attributes ``attrs``."""
    before = copy.deepcopy(args)
    try:
        result = ctx.get(name)(*args)
    except Exception as exc:
        return {**_raised(exc, attrs), "args_after": args, "args_before": before}
    return {"result": result, "args_after": args, "args_before": before}


@probe
def write_once_graph(ctx, steps):
    """Fold ``steps`` (each a list of values written in parallel) into a key reduced by ``write_once``."""
    # The functional form: the reducer is the learner's, known only now.
    schema = TypedDict("WriteOnceProbe", {"decision": Annotated[str | None, ctx.get("write_once")]}, total=False)  # noqa: UP013
    builder = StateGraph(schema)
    previous = [START]
    for number, values in enumerate(steps):
        names = [f"step{number}_writer{i}" for i in range(len(values))]
        for name, value in zip(names, values):
            builder.add_node(name, lambda state, value=value: {"decision": value})
            for before in previous:
                builder.add_edge(before, name)
        previous = names
    for name in previous:
        builder.add_edge(name, END)
    try:
        return {"value": builder.compile().invoke({}).get("decision")}
    except Exception as exc:
        return _raised(exc, ["old", "new"])


def _stream(ctx, stream_id, events=()):
    """A correct stream for the resolver probes, so a broken ``CaseStream`` fails only its own task.

    It is the learner's ``CaseStream`` class (their ``__init__`` runs) with
    version, append and events done right, on ``_events`` as the stub names
    it, raising the learner's ``StaleVersion``.
    """
    stale = ctx.get("StaleVersion")

    class TrustedStream(ctx.get("CaseStream")):
        def __init__(self, stream_id):
            super().__init__(stream_id)
            self._events, self._trusted_lock = [], threading.Lock()

        @property
        def version(self):
            return len(self._events)

        def append(self, event, expected_version):
            with self._trusted_lock:
                if expected_version != len(self._events):
                    raise stale(expected_version, len(self._events))
                self._events.append(copy.deepcopy(event))
                return len(self._events)

        def events(self):
            with self._trusted_lock:
                return copy.deepcopy(self._events)

    stream = TrustedStream(stream_id)
    for version, event in enumerate(events):
        stream.append(copy.deepcopy(event), version)
    return stream


@probe
def stream_script(ctx, stream_id, appends):
    """Append ``[event, expected_version]`` pairs one by one; report each outcome and the stream after."""
    stream = ctx.get("CaseStream")(stream_id)
    outcomes, sent = [], []
    for event, expected in appends:
        sent.append(event)
        try:
            outcomes.append({"returned": stream.append(event, expected), "version": stream.version})
        except Exception as exc:
            outcomes.append({**_raised(exc, ["expected", "actual"]), "version": stream.version})
    listed = stream.events()
    snapshot = copy.deepcopy(listed)
    # The stream keeps copies: changing what was sent, or what events() returned, changes nothing stored.
    for event in [*sent, *(listed if type(listed) is list else [])]:
        if type(event) is dict:
            event["tampered"] = True
    return {"outcomes": outcomes, "events": snapshot, "events_after_tampering": stream.events(), "version": stream.version}


@probe
def stream_race(ctx, writers, rounds):
    """``writers`` threads append at the same expected version, ``rounds`` times; who won each round."""
    stream = ctx.get("CaseStream")("race")
    report = []
    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: check-then-append races show up
    try:
        for round_no in range(rounds):
            expected = stream.version
            barrier = threading.Barrier(writers)
            results = [None] * writers

            # Each round's threads are joined before the next round: the closure sees this round's names.
            def write(index, barrier=barrier, results=results, round_no=round_no, expected=expected):
                barrier.wait()
                try:
                    results[index] = {"returned": stream.append({"round": round_no, "writer": index}, expected)}
                except Exception as exc:
                    results[index] = _raised(exc, ["expected", "actual"])

            threads = [threading.Thread(target=write, args=(i,)) for i in range(writers)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(5)
            report.append({"expected": expected, "results": results, "version": stream.version})
    finally:
        sys.setswitchinterval(old_interval)
    return {"rounds": report, "events": stream.events()}


class _Interleaved:
    """A stream that lets another resolver win between the caller's read and its first append."""

    def __init__(self, stream, other):
        self._stream, self._other, self.appends = stream, other, 0

    def __getattr__(self, name):  # anything else the learner's code reads is the real stream's
        return getattr(self._stream, name)

    @property
    def version(self):
        return self._stream.version

    def events(self):
        return self._stream.events()

    def append(self, event, expected_version):
        self.appends += 1
        if self._other is not None:
            other, self._other = self._other, None
            other()
        return self._stream.append(event, expected_version)


@probe
def resolve_interleaved(ctx, conflict, prior, mine, theirs):
    """``resolve_conflict`` where another resolver (``theirs``) commits just before our first append."""
    resolve = ctx.get("resolve_conflict")
    stream = _stream(ctx, conflict["stream_id"], prior)
    other = {}

    def competitor():
        other["result"] = resolve(stream, copy.deepcopy(conflict), *theirs)

    proxy = _Interleaved(stream, competitor)
    result = resolve(proxy, copy.deepcopy(conflict), *mine)
    return {"theirs": other.get("result"), "mine": result, "events": stream.events(), "appends": proxy.appends}


@probe
def resolve_threads(ctx, conflict, prior, calls):
    """Every ``[decision, actor, rule]`` of ``calls`` resolves the same conflict in its own thread."""
    resolve = ctx.get("resolve_conflict")
    stream = _stream(ctx, conflict["stream_id"], prior)
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(index):
        barrier.wait()
        try:
            results[index] = {"result": resolve(stream, copy.deepcopy(conflict), *calls[index])}
        except NotImplementedError as exc:
            results[index] = exc  # raised again in the probe's own thread, after the join
        except Exception as exc:
            results[index] = _raised(exc, [])

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(5)
    finally:
        sys.setswitchinterval(old_interval)
    for result in results:
        if isinstance(result, NotImplementedError):
            raise result
    return {"results": results, "events": stream.events()}


@probe
def resolve_sequence(ctx, conflict, prior, calls):
    """Resolve one conflict with each ``[decision, actor, rule]`` in turn; report results and the stream."""
    resolve = ctx.get("resolve_conflict")
    stream = _stream(ctx, conflict["stream_id"], prior)
    given = copy.deepcopy(conflict)
    results = [resolve(stream, given, *call) for call in calls]
    return {"results": results, "events": stream.events(), "conflict_after": given}


def _effects(ledger):
    def effect(name):
        def run(idempotency_key, case):
            ledger.append({"effect": name, "key": idempotency_key, "case_id": case.get("case_id") if isinstance(case, dict) else None})
            return {"ok": True}
        return run
    return {name: effect(name) for name in ("send_email", "create_transfer")}


def _limit(thread_id):
    # A wrongly wired graph should fail fast with GraphRecursionError, not loop for 10,007 steps.
    return {"configurable": {"thread_id": thread_id}, "recursion_limit": 40}


@probe
def refund_orders(ctx, case, signals, orders):
    """A plain run, then one run per delivery order: each branch's write delivered by ``update_state``.

    LangGraph applies the writes of one superstep in node-name order, so a plain
    run always merges in the same order. Here each run stops before the
    branches, and the branch writes captured from the plain run arrive one
    step at a time, in the order given (a name listed twice is delivered
    twice), as when branches finish in different steps or a result is retried.
    """
    from langgraph.checkpoint.memory import InMemorySaver

    ledger = []
    graph = ctx.get("build_refund_graph")(_effects(ledger), checkpointer=InMemorySaver())
    graph_input = {"case": case, "signals": signals}
    plain = {"output": graph.invoke(copy.deepcopy(graph_input), _limit("plain")), "ledger": list(ledger)}
    writes = {}
    for update in graph.stream(copy.deepcopy(graph_input), _limit("capture"), stream_mode="updates"):
        for node, write in (update or {}).items():
            if node in BRANCHES:
                writes[node] = write
    missing = [name for name in BRANCHES if name not in writes]
    runs = []
    for number, order in enumerate(orders if not missing else []):
        ledger.clear()
        config = _limit(f"order-{number}")
        graph.invoke(copy.deepcopy(graph_input), config, interrupt_before=BRANCHES)
        for name in order:
            graph.update_state(config, copy.deepcopy(writes[name]), as_node=name)
        runs.append({"order": order, "output": graph.invoke(None, config), "ledger": list(ledger)})
    return {"plain": plain, "missing_branches": missing, "runs": runs}


@probe
def refund_redelivered(ctx, case, signals, how):
    """Run once on a thread, then redeliver: ``"confirmation"`` (the decide's write again) or ``"input"`` (a retried request)."""
    from langgraph.checkpoint.memory import InMemorySaver

    ledger = []
    graph = ctx.get("build_refund_graph")(_effects(ledger), checkpointer=InMemorySaver())
    config = _limit("redelivery")
    first = graph.invoke(copy.deepcopy({"case": case, "signals": signals}), config)
    after_first = list(ledger)
    if how == "confirmation":
        events = graph.get_state(config).values.get("events") or []
        graph.update_state(config, {"events": copy.deepcopy(events)}, as_node="decide")
        second = graph.invoke(None, config)
    else:
        second = graph.invoke(copy.deepcopy({"case": case, "signals": signals}), config)
    return {"first": first, "after_first": after_first, "second": second, "ledger": list(ledger)}
