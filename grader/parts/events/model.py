"""Part C's model: random logs, plans and crashes, and what the store, the fold and a resumed run must give.

The rules that use these are in ``grader.parts.events.rules``; the scenarios run in
the learner's child (``grader.parts.events.probes``).
"""

from collections import Counter

from hypothesis import strategies as st

from grader.checking import Failure, show

EVENT_TYPES = ("agent.started", "tool.called", "tool.result", "agent.crashed", "task.completed")
EVENT_KEYS = ["payload", "seq", "task_id", "ts", "type"]

# -- strategies ----------------------------------------------------------------------------------
task_ids = st.one_of(st.sampled_from(["invoice-7", "t", "täsk 1"]), st.text(min_size=1, max_size=8))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
payloads = st.dictionaries(st.text(max_size=5), json_values, max_size=4)
types = st.sampled_from(EVENT_TYPES)
# What a tool returns: the falsy ones are where a truthiness check goes wrong.
FALSY = [0, "", None, [], False, {}]
results = st.sampled_from(FALSY + [1, "ok", [0], {"id": 7}, True, -1])
TOOL_NAMES = ["charge", "lookup", "notify"]


@st.composite
def logs(draw, max_size=6):
    """Valid appends for two tasks: a list of (task index, type, payload)."""
    return draw(st.lists(st.tuples(st.integers(0, 1), types, payloads), min_size=1, max_size=max_size))


@st.composite
def plans(draw, min_size=1, max_size=6):
    """A plan with repeated tool names and arguments, the tools' answers and which tools take a key."""
    steps = draw(st.lists(st.tuples(st.sampled_from(TOOL_NAMES), st.integers(0, 2)), min_size=min_size, max_size=max_size))
    answers = {f"{tool}/{n}": draw(results) for tool, n in sorted(set(steps))}
    keyed = sorted(draw(st.sets(st.sampled_from(TOOL_NAMES))))
    return [{"tool": tool, "args": {"n": n}} for tool, n in steps], answers, keyed


@st.composite
def run_logs(draw):
    """Events of a plausible run, in order: started, tool calls and results (call ids may repeat), crashes, completion."""
    events, seq = [], 0
    task = draw(task_ids)
    for _ in range(draw(st.integers(1, 9))):
        kind = draw(st.sampled_from(["agent.started", "tool.called", "tool.result", "tool.result", "agent.crashed",
                                     "task.completed"]))
        call_id = f"{draw(st.integers(0, 3))}:{draw(st.sampled_from(TOOL_NAMES))}"
        payload = {"agent.started": {"input": draw(json_values)},
                   "tool.called": {"call_id": call_id, "tool": call_id.split(':')[1], "args": {"n": 1}},
                   "tool.result": {"call_id": call_id, "result": draw(results)},
                   "agent.crashed": {"reason": "ToolTimeout: charge timed out"},
                   "task.completed": {"output": draw(st.lists(results, max_size=3))}}[kind]
        seq += 1
        events.append({"task_id": task, "seq": seq, "type": kind, "payload": payload, "ts": 1_700_000_000.0 + seq})
    return events


def reorder(payload: dict) -> dict:
    """The same payload with its keys in reverse order: equal, but not the same JSON text."""
    return dict(reversed(list(payload.items())))


# -- the store ---------------------------------------------------------------------------------------
def expect_event(got, task_id, seq, kind, payload, doing: str) -> dict:
    """``got`` (an op's reply) is the event (task_id, seq, type, payload) with a float ts."""
    if "ok" not in got:
        raise Failure(f"{doing} raised {got['raised']}; expected the event", status="error")
    event = got["ok"]
    if type(event) is not dict or sorted(event) != EVENT_KEYS:
        raise Failure(f"{doing} returned {show(event)}; expected an Event (task_id, seq, type, payload, ts)")
    wanted = {"task_id": task_id, "seq": seq, "type": kind, "payload": payload}
    if {k: event[k] for k in wanted} != wanted or type(event["seq"]) is not int:
        raise Failure(f"{doing} returned {show(event)}; expected {show(wanted)} with ts set",
                      {"call": "append", "args": [task_id, seq, kind, payload], "expected": wanted, "got": event})
    if type(event["ts"]) is not float:
        raise Failure(f"{doing} returned ts={show(event['ts'])}; expected the store to set ts to a float time")
    return event


def expect_listed(got, expected_events: list, doing: str) -> None:
    if "ok" not in got:
        raise Failure(f"{doing} raised {got['raised']}; expected a list of events", status="error")
    if got["ok"] != expected_events:
        raise Failure(f"{doing} returned {show(got['ok'])}; expected {show(expected_events)}",
                      {"call": doing, "args": [], "expected": expected_events, "got": got["ok"]})


def expect_raised(got, kind: str, doing: str, expected_attrs: dict | None = None) -> None:
    """``got`` raised the module's ``kind`` (EventStoreError or ConcurrencyError) with these attributes."""
    if "ok" in got:
        raise Failure(f"{doing} returned {show(got['ok'])}; expected {kind}",
                      {"call": doing, "args": [], "expected": kind, "got": got["ok"]})
    if kind not in got["kinds"]:
        raise Failure(f"{doing} raised {got['raised']}; expected {kind} (a subclass of it is fine)",
                      {"call": doing, "args": [], "expected": kind, "got": got["raised"]})
    attrs = {k: got.get(k) for k in expected_attrs or {}}
    if expected_attrs and attrs != expected_attrs:
        raise Failure(f"{doing} raised {kind} with {attrs}; expected {expected_attrs} "
                      "(expected = the next free seq, actual = the seq sent)")


# -- the fold ----------------------------------------------------------------------------------------
def model_state(events: list) -> dict:
    state = {"status": "new", "last_seq": 0, "tool_results": {}, "output": None}
    for event in events:
        state["last_seq"] = event["seq"]
        if event["type"] == "agent.crashed":
            state["status"] = "crashed"
        elif event["type"] == "task.completed":
            state.update(status="completed", output=event["payload"]["output"])
        else:
            state["status"] = "running"
            if event["type"] == "tool.result":
                state["tool_results"] = {**state["tool_results"], event["payload"]["call_id"]: event["payload"]["result"]}
    return state


# -- runs ---------------------------------------------------------------------------------------------
def expected_output(plan, answers) -> list:
    return [answers[f"{step['tool']}/{step['args']['n']}"] for step in plan]


def describe_run(plan, answers, keyed, crash) -> str:
    steps = []
    for step in plan:
        tool, n = step["tool"], step["args"]["n"]
        steps.append(f"{tool}(n={n}) -> {show(answers[f'{tool}/{n}'])}")
    keys = f"; {', '.join(keyed)} take{'s' if len(keyed) == 1 else ''} idempotency_key" if keyed else ""
    return f"plan [{', '.join(steps)}]{keys}{crash_text(crash)}"


def crash_text(crash) -> str:
    if not crash:
        return ""
    mode, at = crash
    return {"raise": f"; tool call #{at} raises ToolTimeout",
            "kill_after_append": f"; the process is killed right after its append #{at}",
            "die_in_tool": f"; the process is killed inside tool call #{at}, after its side effect"}[mode]


def logged_results(log) -> set:
    return {e["payload"].get("call_id") for e in log if e["type"] == "tool.result" and isinstance(e["payload"], dict)}


def executions(ledger, phase) -> Counter:
    return Counter((entry["tool"], _args_text(entry["args"])) for entry in ledger if entry["phase"] == phase)


def _args_text(args) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in sorted(args.items()))


def judge_resumed(what: str, got: dict, expected, call_ids: list, steps: list, task_id: str, keyed_steps: list) -> None:
    """The rules of a resumed run, given the planned steps (tool, args) and their call ids."""
    if got["second"] != {"ok": expected}:
        shown = got["second"].get("raised") and f"raised {got['second']['raised']}" or f"returned {show(got['second'].get('ok'))}"
        raise Failure(f"{what}: resuming {shown}; expected {show(expected)}",
                      {"call": "resume", "args": [], "expected": expected, "got": got["second"].get("ok", got["second"].get("raised"))})
    kinds = [event["type"] for event in got["log"]]
    if kinds.count("agent.started") != 1 or kinds.count("task.completed") != 1 or kinds[-1] != "task.completed":
        raise Failure(f"{what}: after resuming and calling again the log holds the events {show(kinds)}; expected exactly "
                      "one agent.started (a resumed run does not start again) and one task.completed, last")
    logged = logged_results(got["log_after_crash"])
    unlogged = Counter((tool, _args_text(args)) for call_id, (tool, args) in zip(call_ids, steps) if call_id not in logged)
    again = executions(got["ledger"], 2)
    if again != unlogged:
        extra = sorted((again - unlogged).elements())
        missing = sorted((unlogged - again).elements())
        if extra:
            raise Failure(f"{what}: resuming ran {', '.join(f'{t}({a})' for t, a in extra)} again although its "
                          "tool.result was in the log (a logged result is returned, also when it is falsy, and a call is "
                          "identified by its call id)")
        raise Failure(f"{what}: resuming never ran {', '.join(f'{t}({a})' for t, a in missing)}, whose result was not logged")
    for entry in got["ledger"]:
        if entry["tool"] in keyed_steps and entry["key"] not in {f"{task_id}:{c}" for c in call_ids}:
            raise Failure(f"{what}: {entry['tool']} got idempotency_key={show(entry['key'])}; expected "
                          f"f'{{task_id}}:{{call_id}}', e.g. {task_id + ':' + call_ids[0]!r}")
