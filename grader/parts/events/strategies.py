"""Part C's examples: every Hypothesis strategy its rules draw from, in notebook order.

A rule's examples are seeded by the name of the test it decorates
(``grader.engine.bank.Key``), not by where a strategy is defined: these are built
once at import. Changing what one draws changes every seed's examples (and
the mutation corpus was tuned on them), so each is kept exactly as it was.
"""

from hypothesis import strategies as st

from grader.parts.events.clock import stamp
from grader.parts.events.model import EVENT_TYPES, last_point

# -- logs of events (notebook 14) ------------------------------------------------------------------
task_ids = st.one_of(st.sampled_from(["invoice-7", "t", "täsk 1"]), st.text(min_size=1, max_size=8))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
payloads = st.dictionaries(st.text(max_size=5), json_values, max_size=4)
types = st.sampled_from(EVENT_TYPES)
on_files = st.booleans()  # the store on a file, or in memory
from_seqs = st.integers(1, 4)


@st.composite
def logs(draw, max_size=6):
    """Valid appends for two tasks: a list of (task index, type, payload)."""
    return draw(st.lists(st.tuples(st.integers(0, 1), types, payloads), min_size=1, max_size=max_size))


# An event append must refuse: an unknown type, a seq that is not an int >= 1, a payload that is not a JSON object.
bad_events = st.one_of(
    st.tuples(st.just(1), st.text(max_size=12).filter(lambda t: t not in EVENT_TYPES), st.just({})),
    st.tuples(st.sampled_from([0, -1, -7, True, 1.0, "1", None]), st.sampled_from(EVENT_TYPES), st.just({})),
    st.tuples(st.just(1), st.sampled_from(EVENT_TYPES),
              st.sampled_from([["a", "list"], None, "{}", 3, {"tags": {"a", "b"}}, {"x": float("nan")}, {"when": b"bytes"}])),
)
after_another = st.booleans()  # the refused append comes after one stored event, or first

logs_of_one = st.lists(st.tuples(st.sampled_from(EVENT_TYPES), payloads), min_size=1, max_size=5)
# A log and one of its seqs, drawn together (examples are drawn up front, then replayed).
logs_and_seqs = logs_of_one.flatmap(lambda log: st.tuples(st.just(log), st.integers(1, len(log))))


@st.composite
def _changed(draw, kind, payload):
    """Another event for the same seq: another type, or a payload that differs in a way JSON keeps."""
    if draw(st.booleans()):
        return draw(st.sampled_from([t for t in EVENT_TYPES if t != kind])), payload
    key = draw(st.sampled_from(sorted(payload) or ["changed"]))
    value = payload.get(key, None)
    other = draw(st.sampled_from(["other", 12345, [value], {"was": value}]))
    return kind, {**payload, key: other if other != value else "other2"}


# True == 1 in Python but not in JSON: a store comparing payloads with == takes this conflict for a retry.
# (task, (log, seq, the other event), on_file): the conflict rule's hand-picked first case.
look_alike_conflict = ("t", ([("agent.started", {"n": 1})], 1, ("agent.started", {"n": True})), False)
# A log, one of its seqs and another event for that seq.
conflicts = logs_and_seqs.flatmap(lambda ls: st.tuples(st.just(ls[0]), st.just(ls[1]), _changed(*ls[0][ls[1] - 1])))
gap_logs = st.lists(st.tuples(st.sampled_from(EVENT_TYPES), payloads), max_size=4)
gap_skips = st.integers(2, 5)  # seq = len(log) + skip: a hole of at least one seq
race_rounds = st.integers(2, 6)

# Kill rounds: [events, acknowledgements before the kill], a writer killed once per round.
kill_rounds = st.lists(st.integers(1, 15).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(st.sampled_from(EVENT_TYPES), payloads), min_size=n, max_size=n), st.integers(0, n))), min_size=2, max_size=4)


# -- the fold (notebook 15) ---------------------------------------------------------------------
# What a tool returns: the falsy ones are where a truthiness check goes wrong.
FALSY = [0, "", None, [], False, {}]
results = st.sampled_from(FALSY + [1, "ok", [0], {"id": 7}, True, -1])
TOOL_NAMES = ["charge", "lookup", "notify"]


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
        events.append({"task_id": task, "seq": seq, "type": kind, "payload": payload, "ts": stamp(seq)})
    return events


# -- resuming runs (notebook 17) -----------------------------------------------------------------
@st.composite
def plans(draw, min_size=1, max_size=6):
    """A plan with repeated tool names and arguments, the tools' answers and which tools take a key."""
    steps = draw(st.lists(st.tuples(st.sampled_from(TOOL_NAMES), st.integers(0, 2)), min_size=min_size, max_size=max_size))
    answers = {f"{tool}/{n}": draw(results) for tool, n in sorted(set(steps))}
    keyed = sorted(draw(st.sets(st.sampled_from(TOOL_NAMES))))
    return [{"tool": tool, "args": {"n": n}} for tool, n in steps], answers, keyed


@st.composite
def tool_calls(draw):
    """Calls of call_tool on one log: call ids repeat (a resume), tools and arguments repeat under new ids."""
    plan, answers, keyed = draw(plans(min_size=1, max_size=5))
    ids = [f"{i}:{step['tool']}" for i, step in enumerate(plan)]
    order = draw(st.lists(st.integers(0, len(plan) - 1), min_size=1, max_size=8))
    return [[ids[i], plan[i]["tool"], plan[i]["args"]["n"]] for i in order], answers, keyed


# A plan and the tool call (1-based) that raises ToolTimeout.
raise_points = plans().flatmap(lambda case: st.tuples(st.just(case), st.integers(1, len(case[0]))))
_KILL = st.sampled_from(["kill_after_append", "die_in_tool"])
# A plan, how the process dies and when: after which append, or inside which tool call.
kill_points = st.tuples(plans(), _KILL).flatmap(
    lambda c: st.tuples(st.just(c[0]), st.just(c[1]), st.integers(1, last_point(c[0][0], c[1]))))

# -- the invoice graph (notebook 18) ---------------------------------------------------------------
customers = st.one_of(st.sampled_from(["ACME", "Zoë & Co"]), st.text(min_size=1, max_size=8))
amounts = st.one_of(st.just(0), st.integers(-5, 10_000))
invoice_crashes = st.one_of(st.tuples(st.just("raise"), st.integers(1, 4)), st.tuples(st.just("kill_after_append"), st.integers(1, 8)),
                            st.tuples(st.just("die_in_tool"), st.integers(1, 4)))
