"""Part C tasks: the rules of ``agstate/events.py``, one check per rule (LAB-SPEC §5)."""

from hypothesis import strategies as st

from grader.checking import Failure, Raised, show
from grader.parts.events.model import (
    EVENT_TYPES,
    crash_text,
    describe_run,
    executions,
    expect_event,
    expect_listed,
    expect_raised,
    expected_output,
    judge_resumed,
    logged_results,
    logs,
    model_state,
    payloads,
    plans,
    reorder,
    run_logs,
    task_ids,
)
from grader.parts.events.probes import INVOICE_TOOLS
from grader.tasks import task


def appended(check, task, log, on_file, extra_ops=()):
    """Append ``log`` ([type, payload] each) to ``task`` in a new store, then ``extra_ops``; the stored events and the replies."""
    ops = [["append", task, seq, kind, payload] for seq, (kind, payload) in enumerate(log, 1)] + list(extra_ops)
    got = check.probe("store_ops", ops, on_file)
    stored = [expect_event(reply, task, seq, kind, payload, f"append({task!r}, {seq}, {kind!r}, {show(payload)})")
              for seq, (reply, (kind, payload)) in enumerate(zip(got, log), 1)]
    return stored, got[len(log):]


def where(on_file: bool) -> str:
    return "SqliteEventStore(<a file>)" if on_file else "SqliteEventStore()"


# -- events.append -----------------------------------------------------------------------------------------
append_task = task("events.append")


@append_task.rule("append stores seq = last_seq + 1 with ts set; list returns the events as appended, in order, from from_seq on")
def append_in_order(check):
    @check.forall(task_ids, logs(), st.integers(1, 4), st.booleans(), examples=check.budget("store"),
                  first=("t", [(0, "agent.started", {"input": "x"}), (1, "agent.started", {}), (0, "tool.result", {"result": 0})],
                         2, False))
    def stored(task, log, from_seq, on_file):
        tasks = [task, task + "-b"]
        ops, expected = [], {name: [] for name in tasks}
        for index, kind, payload in log:
            name = tasks[index]
            expected[name].append((kind, payload))
            ops.append(["append", name, len(expected[name]), kind, payload])
        ops += [["list", name, 1] for name in tasks] + [["last_seq", name] for name in tasks] + [["list", tasks[0], from_seq]]
        got = check.probe("store_ops", ops, on_file)
        returned, counts = {name: [] for name in tasks}, {name: 0 for name in tasks}
        for (_, name, seq, kind, payload), reply in zip(ops[: len(log)], got):
            call = f"{where(on_file)}.append({name!r}, {seq}, {kind!r}, {show(payload)})"
            returned[name].append(expect_event(reply, name, seq, kind, payload, call))
            counts[name] += 1
        tail = got[len(log):]
        for name, reply in zip(tasks, tail):
            expect_listed(reply, returned[name], f"list({name!r}) after appending {counts[name]} events")
        for name, reply in zip(tasks, tail[2:]):
            if reply != {"ok": counts[name]}:
                raise Failure(f"last_seq({name!r}) after {counts[name]} appends returned {show(reply.get('ok', reply.get('raised')))}; "
                              f"expected {counts[name]}")
        expect_listed(tail[4], [e for e in returned[tasks[0]] if e["seq"] >= from_seq], f"list({tasks[0]!r}, from_seq={from_seq})")


@append_task.rule("a task without events has last_seq 0 and lists no events")
def append_empty(check):
    @check.forall(task_ids, examples=check.budget("few"))
    def empty(task):
        ops = [["append", "other", 1, "agent.started", {}], ["last_seq", task + "!"], ["list", task + "!", 1]]
        got = check.probe("store_ops", ops, False)
        if got[1] != {"ok": 0} or got[2] != {"ok": []}:
            raise Failure(f"for a task without events last_seq returned {show(got[1].get('ok', got[1].get('raised')))} and list "
                          f"{show(got[2].get('ok', got[2].get('raised')))}; expected 0 and []")


bad_events = st.one_of(
    st.tuples(st.just(1), st.text(max_size=12).filter(lambda t: t not in EVENT_TYPES), st.just({})),
    st.tuples(st.sampled_from([0, -1, -7, True, 1.0, "1", None]), st.sampled_from(EVENT_TYPES), st.just({})),
    st.tuples(st.just(1), st.sampled_from(EVENT_TYPES),
              st.sampled_from([["a", "list"], None, "{}", 3, {"tags": {"a", "b"}}, {"x": float("nan")}, {"when": b"bytes"}])),
)


@append_task.rule("append refuses an unknown type, a seq that is not an int >= 1, or a payload that is not a JSON object "
                  "(EventStoreError), before writing anything")
def append_rejects(check):
    @check.forall(bad_events, st.booleans(), st.booleans(), examples=check.budget("store"))
    def rejected(bad, after_one, on_file):
        seq, kind, payload = bad
        prefix = [["append", "t", 1, "agent.started", {}]] if after_one else []
        if after_one and type(seq) is int and seq == 1:
            seq = 2
        got = check.probe("store_ops", [*prefix, ["append", "t", seq, kind, payload], ["list", "t", 1]], on_file)
        doing = f"append('t', {seq!r}, {kind!r}, {show(payload)})" + (" after one event" if after_one else "")
        expect_raised(got[len(prefix)], "EventStoreError", doing)
        listed = got[-1].get("ok")
        if type(listed) is not list or len(listed) != len(prefix):
            raise Failure(f"{doing} raised, yet list('t') then returned {show(listed)}: a refused event must write nothing")


# -- events.idempotent -----------------------------------------------------------------------------------
idempotent = task("events.idempotent")

_logs_of_one = st.lists(st.tuples(st.sampled_from(EVENT_TYPES), payloads), min_size=1, max_size=5)
# A log and one of its seqs, drawn together (examples are drawn up front, then replayed).
_log_and_seq = _logs_of_one.flatmap(lambda log: st.tuples(st.just(log), st.integers(1, len(log))))


@idempotent.rule("appending an existing seq again with the same type and payload returns the stored event (ts included) "
                 "and writes nothing")
def retry_returns_stored(check):
    @check.forall(task_ids, _log_and_seq, st.booleans(), examples=check.budget("store"))
    def retried(task, log_and_seq, on_file):
        log, seq = log_and_seq
        kind, payload = log[seq - 1]
        retry = ["append", task, seq, kind, reorder(payload)]  # equal payload, keys in another order
        stored, (reply, listed, last) = appended(check, task, log, on_file, [retry, ["list", task, 1], ["last_seq", task]])
        doing = f"a retry append({task!r}, {seq}, {kind!r}, {show(payload)}) after {len(log)} events"
        if reply != {"ok": stored[seq - 1]}:
            raise Failure(f"{doing} gave {show(reply.get('ok', reply.get('raised')))}; expected the stored event "
                          f"{show(stored[seq - 1])}, same ts (ts is the store's and is never compared)",
                          {"call": "append", "args": retry[1:], "expected": stored[seq - 1], "got": reply.get("ok", reply.get("raised"))})
        expect_listed(listed, stored, f"list({task!r}) after {doing}")
        if last != {"ok": len(log)}:
            raise Failure(f"last_seq({task!r}) after {doing} returned {show(last.get('ok'))}; expected {len(log)}")


@idempotent.rule("re-sending a whole log, event by event, returns each stored event and changes nothing")
def resend_whole_log(check):
    @check.forall(task_ids, _logs_of_one, st.booleans(), examples=check.budget("retry"))
    def resent(task, log, on_file):
        again = [["append", task, seq, kind, payload] for seq, (kind, payload) in enumerate(log, 1)]
        stored, replies = appended(check, task, log, on_file, [*again, ["list", task, 1]])
        if replies[:-1] != [{"ok": event} for event in stored]:
            gave = show([r.get('ok', r.get('raised')) for r in replies[:-1]])
            raise Failure(f"re-sending the {len(log)} events of {task!r} gave {gave}; "
                          f"expected the stored events {show(stored)}")
        expect_listed(replies[-1], stored, f"list({task!r}) after re-sending its log")


# -- events.concurrency ---------------------------------------------------------------------------------------
concurrency = task("events.concurrency")


@st.composite
def _changed(draw, kind, payload):
    """Another event for the same seq: another type, or a payload that differs in a way JSON keeps."""
    if draw(st.booleans()):
        return draw(st.sampled_from([t for t in EVENT_TYPES if t != kind])), payload
    key = draw(st.sampled_from(sorted(payload) or ["changed"]))
    value = payload.get(key, None)
    other = draw(st.sampled_from(["other", 12345, [value], {"was": value}]))
    return kind, {**payload, key: other if other != value else "other2"}


@concurrency.rule("an existing seq with another type or payload raises ConcurrencyError(task_id, expected=last_seq + 1, "
                  "actual=seq) and changes nothing")
def conflict_raises(check):
    conflicts = _log_and_seq.flatmap(lambda ls: st.tuples(st.just(ls[0]), st.just(ls[1]), _changed(*ls[0][ls[1] - 1])))

    @check.forall(task_ids, conflicts, st.booleans(), examples=check.budget("store"))
    def conflicting(task, conflict, on_file):
        log, seq, (kind, payload) = conflict
        stored, (reply, listed) = appended(check, task, log, on_file, [["append", task, seq, kind, payload], ["list", task, 1]])
        doing = f"append({task!r}, {seq}, {kind!r}, {show(payload)}) where seq {seq} holds {show(log[seq - 1])}"
        expect_raised(reply, "ConcurrencyError", doing, {"task_id": task, "expected": len(log) + 1, "actual": seq})
        expect_listed(listed, stored, f"list({task!r}) after {doing}")


@concurrency.rule("a gap (seq > last_seq + 1) raises ConcurrencyError(task_id, expected=last_seq + 1, actual=seq) and writes nothing")
def gap_raises(check):
    @check.forall(task_ids, st.lists(st.tuples(st.sampled_from(EVENT_TYPES), payloads), max_size=4), st.integers(2, 5),
                  st.booleans(), examples=check.budget("store"))
    def gap(task, log, skip, on_file):
        seq = len(log) + skip
        stored, (reply, listed) = appended(check, task, log, on_file, [["append", task, seq, "tool.called", {}], ["list", task, 1]])
        doing = f"append({task!r}, {seq}, 'tool.called', {{}}) after {len(log)} events"
        expect_raised(reply, "ConcurrencyError", doing, {"task_id": task, "expected": len(log) + 1, "actual": seq})
        expect_listed(listed, stored, f"list({task!r}) after {doing}")


@concurrency.rule("two writers in separate processes racing for one seq, the second coming between the first one's check "
                  "and its write: exactly one wins, the other gets ConcurrencyError")
def racing_writers(check):
    @check.forall(st.integers(2, 6), examples=check.budget("threads"))
    def raced(rounds):
        got = check.probe("race", rounds, limit=4 * check.call_limit + 2 * rounds)
        if isinstance(got, Raised):
            raise Failure(f"racing writers raised {got.sentence()}", status="error")
        doing = "two processes, each with its own SqliteEventStore on one file"
        winners = {}
        for done in got["rounds"]:
            seq, armed = done["seq"], done["armed"]
            other = 1 - armed
            outcomes = {int(number): outcome for number, outcome in done["outcomes"].items()}
            when = (f"writer {other} appended seq {seq} after writer {armed} had checked it and before writer {armed} "
                    "wrote it" if done["interleaved"] else f"both appended seq {seq}")
            for number, outcome in outcomes.items():
                if outcome not in ("win", "ConcurrencyError"):
                    raise Failure(f"{doing}: {when}; writer {number}'s append raised {outcome}; expected success or "
                                  "ConcurrencyError (check and insert in one transaction that locks out other writers, "
                                  "e.g. BEGIN IMMEDIATE)")
            won = [number for number, outcome in outcomes.items() if outcome == "win"]
            if len(won) != 1:
                raise Failure(f"{doing}: {when}; {'both writers' if won else 'neither writer'} succeeded; expected exactly "
                              "one to win and the other to get ConcurrencyError (check and insert in one transaction "
                              "that locks out other writers, e.g. BEGIN IMMEDIATE)")
            winners[seq] = won[0]
        if got["codes"] != [0, 0]:
            raise Failure(f"{doing}: a writer process ended abnormally ({show(got['codes'])})")
        stored = [(e["seq"], e["payload"].get("writer")) for e in got["events"]]
        if stored != sorted(winners.items()):
            raise Failure(f"{doing}: the store holds {show(stored)}; expected each seq's winner {show(sorted(winners.items()))}")


# -- events.durable ----------------------------------------------------------------------------------------------
durable = task("events.durable")

_kill_rounds = st.lists(st.integers(1, 15).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(st.sampled_from(EVENT_TYPES), payloads), min_size=n, max_size=n), st.integers(0, n))), min_size=2, max_size=4)


def killed(check, rounds):
    got = check.probe("durable_crash", rounds, limit=4 * check.call_limit)
    if isinstance(got, Raised):
        raise Failure(f"reopening the store after a killed writer raised {got.sentence()}", status="error")
    return got


@durable.rule("a writer killed with SIGKILL mid-append loses at most that event: after reopening, every acknowledged "
              "event is there, in order, unchanged")
def killed_writer(check):
    @check.forall(_kill_rounds, examples=check.budget("kill"))
    def survives(rounds):
        got = killed(check, [[[list(e) for e in events], kill] for events, kill in rounds])
        before = []
        for number, ((events, kill), found) in enumerate(zip(rounds, got["rounds"]), 1):
            doing = (f"kill #{number}: a writer appending {len(events)} events from seq {found['start']}, "
                     f"killed after {kill} acknowledgements")
            listed = found["events"]
            if type(listed) is not list or listed[: len(before)] != before:
                raise Failure(f"{doing}: events stored before it changed or vanished ({show(before)} became {show(listed)})")
            new = listed[len(before):]
            acked = found["acked"]
            intended = [{"seq": found["start"] + i, "type": t, "payload": p} for i, (t, p) in enumerate(events)]
            shown = [{k: e.get(k) for k in ("seq", "type", "payload")} for e in new]
            if not (len(acked) <= len(new) <= len(acked) + 1) or shown != intended[: len(new)]:
                raise Failure(f"{doing}: after reopening the new events are {show(shown)}; expected the {len(acked)} "
                              f"acknowledged ones (seqs {show(acked)}), at most one more, as appended (commit before append returns)")
            before = listed


@durable.rule("(task_id, seq) is unique in the schema itself (PRIMARY KEY or UNIQUE), and the file is a sound SQLite database")
def unique_in_schema(check):
    rounds = [[[["agent.started", {}], ["tool.called", {"call_id": "0:x"}], ["tool.result", {"result": 0}]], 3]]
    got = killed(check, rounds)
    schema = got["schema"]
    if schema["integrity"] != "ok":
        raise Failure(f"PRAGMA integrity_check on the store's file says {show(schema['integrity'])}; expected 'ok'")
    pairs = sorted([["durable", seq] for seq in (1, 2, 3)], key=repr)
    if pairs not in schema["keys"]:
        raise Failure("the store's table has no PRIMARY KEY or UNIQUE constraint on exactly (task_id, seq): another "
                      "writer could store a second event with the same seq; declare PRIMARY KEY (task_id, seq)")


# -- events.project ----------------------------------------------------------------------------------------------
project = task("events.project")


def _event(seq, kind, payload):
    return {"task_id": "inv-7", "seq": seq, "type": kind, "payload": payload, "ts": 1_700_000_000.0 + seq}


# Every status, a crash followed by more tool events, a falsy result and a call id used twice.
_EVERY_STATUS = [_event(1, "agent.started", {"input": {"amount": 0}}),
                 _event(2, "tool.called", {"call_id": "0:charge", "tool": "charge", "args": {"n": 1}}),
                 _event(3, "tool.result", {"call_id": "0:charge", "result": 0}),
                 _event(4, "agent.crashed", {"reason": "ToolTimeout: notify timed out"}),
                 _event(5, "tool.called", {"call_id": "1:notify", "tool": "notify", "args": {"n": 0}}),
                 _event(6, "tool.result", {"call_id": "1:notify", "result": None}),
                 _event(7, "tool.result", {"call_id": "0:charge", "result": "again"}),
                 _event(8, "task.completed", {"output": [0, None]})]


def projected(check, events):
    got = check.probe("project", events)
    if isinstance(got, Raised):
        raise Failure(f"building the events or project_state raised {got.sentence()}", status="error")
    return got


@project.rule("project_state(events[:k]) gives the state as of seq k: status, last_seq, tool_results by call id, output")
def fold_prefixes(check):
    @check.forall(run_logs(), examples=check.budget("store"), first=(_EVERY_STATUS,))
    def every_prefix(events):
        got = projected(check, events)
        for k, reply in enumerate(got["states"]):
            doing = f"project_state(events[:{k}]) of {show([(e['type'], e['payload']) for e in events])}"
            if "ok" not in reply:
                raise Failure(f"{doing} raised {reply['raised']}", status="error")
            state = reply["ok"]
            expected = model_state(events[:k])
            fields = {key: state.get(key) for key in expected} if type(state) is dict else state
            if fields != expected:
                raise Failure(f"{doing} gave {show(fields)}; expected {show(expected)}",
                              {"call": "project_state", "args": [events[:k]], "expected": expected, "got": fields})
            if k and state.get("task_id") != events[0]["task_id"]:
                raise Failure(f"{doing} gave task_id {show(state.get('task_id'))}; expected {events[0]['task_id']!r}")


@project.rule("project_state is pure: it never changes the events it folds")
def fold_is_pure(check):
    @check.forall(run_logs(), examples=check.budget("store"))
    def untouched(events):
        got = projected(check, events)
        if got["events_after"] != events:
            raise Failure(f"after project_state the events were {show(got['events_after'])}; expected them unchanged "
                          f"{show(events)} (build new dicts; never write into a payload)")


@project.rule("with no events the status is 'new', last_seq 0, no tool results and no output")
def fold_empty(check):
    got = projected(check, [])
    reply = got["states"][0]
    if "ok" not in reply:
        raise Failure(f"project_state([]) raised {reply['raised']}", status="error")
    expected = model_state([])
    fields = {key: reply["ok"].get(key) for key in expected} if type(reply["ok"]) is dict else reply["ok"]
    if fields != expected:
        raise Failure(f"project_state([]) gave {show(fields)}; expected {show(expected)}")


# -- events.resume --------------------------------------------------------------------------------------------------
resume = task("events.resume")


@st.composite
def tool_calls(draw):
    """Calls of call_tool on one log: call ids repeat (a resume), tools and arguments repeat under new ids."""
    plan, answers, keyed = draw(plans(min_size=1, max_size=5))
    ids = [f"{i}:{step['tool']}" for i, step in enumerate(plan)]
    order = draw(st.lists(st.integers(0, len(plan) - 1), min_size=1, max_size=8))
    return [[ids[i], plan[i]["tool"], plan[i]["args"]["n"]] for i in order], answers, keyed


@resume.rule("call_tool returns a logged result without calling the tool, also a falsy one; another call id runs the "
             "tool, even for the same tool and arguments")
def call_tool_by_call_id(check):
    @check.forall(tool_calls(), examples=check.budget("resume"),
                  first=(([["0:lookup", "lookup", 1], ["1:lookup", "lookup", 2], ["0:lookup", "lookup", 1],
                           ["1:lookup", "lookup", 2]], {"lookup/1": 0, "lookup/2": "two"}, []),))
    def by_call_id(case):
        calls, answers, keyed = case
        got = check.probe("call_tool_run", "task-c", calls, answers, keyed)
        what = "call_tool for " + ", ".join(f"{c}: {t}(n={n})" for c, t, n in calls)
        expected, ran = [], []
        for call_id, tool, n in calls:
            if call_id not in {c for c, _, _ in ran}:
                ran.append((call_id, tool, n))
            expected.append(answers[f"{tool}/{dict((c, n) for c, _, n in ran)[call_id]}"])
        results = [r.get("ok", f"raised {r.get('raised')}") for r in got["results"]]
        if results != expected:
            raise Failure(f"{what} returned {show(results)}; expected {show(expected)} (a result is found by its call "
                          "id, not by the tool's name)", {"call": "call_tool", "args": calls, "expected": expected, "got": results})
        executed = [(e["tool"], e["args"]) for e in got["ledger"]]
        if executed != [(t, {"n": n}) for _, t, n in ran]:
            raise Failure(f"{what} ran the tools {show(executed)}; expected {show([(t, {'n': n}) for _, t, n in ran])}: "
                          "once per call id, never again once its result is logged (0, '', None, [] and False are results)")
        kinds = [(e["type"], e["payload"].get("call_id")) for e in got["log"]]
        logged = [kind for _, _, _ in ran for kind in ("tool.called", "tool.result")]
        if [k for k, _ in kinds] != logged:
            raise Failure(f"{what} left the log {show(kinds)}; expected a tool.called then a tool.result for each call "
                          "that ran, and nothing for a call answered from the log")


def resumed_run(check, plan, answers, keyed, crash):
    got = check.probe("resume_run", "task-r", plan, answers, keyed, crash, limit=4 * check.call_limit)
    if isinstance(got, Raised):
        raise Failure(f"{describe_run(plan, answers, keyed, crash)}: the run raised {got.sentence()}", status="error")
    what = describe_run(plan, answers, keyed, crash)
    call_ids = [f"{i}:{step['tool']}" for i, step in enumerate(plan)]
    judge_resumed(what, got, expected_output(plan, answers), call_ids, [(s["tool"], s["args"]) for s in plan], "task-r", keyed)
    return got, what


@resume.rule("run_task returns each step's result, falsy ones included; a tool called again with other arguments is another "
             "call (call id f'{i}:{name}'); each step runs once; a completed task returns its output and calls nothing")
def resume_plain(check):
    @check.forall(plans(), examples=check.budget("resume"),
                  first=(([{"tool": "lookup", "args": {"n": 0}}, {"tool": "lookup", "args": {"n": 1}}],
                          {"lookup/0": 0, "lookup/1": "ok"}, []),))
    def plain(case):
        plan, answers, keyed = case
        got, what = resumed_run(check, plan, answers, keyed, None)
        expected = expected_output(plan, answers)
        if got["first"] != {"killed": False, "exit": 0}:
            raise Failure(f"{what}: run_task failed in a run without any crash ({show(got['first'])})", status="error")
        if got["third"] != {"ok": expected} or executions(got["ledger"], 3):
            raise Failure(f"{what}: calling run_task on the completed task gave {show(got['third'])} and ran "
                          f"{sum(executions(got['ledger'], 3).values())} tools; expected the stored output {show(expected)} and no call")
        if executions(got["ledger"], 1) + executions(got["ledger"], 2) != executions(
                [{"phase": 1, "tool": s["tool"], "args": s["args"]} for s in plan], 1):
            raise Failure(f"{what}: the tools ran {sum(executions(got['ledger'], 1).values())} times; expected once per step")
        kinds = [e["type"] for e in got["log"]]
        if kinds.count("agent.started") != 1 or got["log"][-1]["type"] != "task.completed" or \
                got["log"][-1]["payload"] != {"output": expected}:
            raise Failure(f"{what}: the log's event types are {show(kinds)} ending with {show(got['log'][-1]['payload'])}; "
                          f"expected one agent.started and a last task.completed {{'output': {show(expected)}}}")


@resume.rule("a tool raising: run_task logs agent.crashed and re-raises; run again, it resumes: logged calls are not "
             "run again (falsy results included), the failed one is")
def resume_after_raise(check):
    cases = plans().flatmap(lambda case: st.tuples(st.just(case), st.integers(1, len(case[0]))))

    @check.forall(cases, examples=check.budget("resume"),
                  first=((([{"tool": "charge", "args": {"n": 0}}, {"tool": "notify", "args": {"n": 0}}],
                           {"charge/0": 0, "notify/0": None}, []), 2),))
    def after_raise(case_and_point):
        (plan, answers, keyed), at = case_and_point
        got, what = resumed_run(check, plan, answers, keyed, ["raise", at])
        if got["first"].get("raised") != "ToolTimeout":
            raise Failure(f"{what}: the first run_task gave {show(got['first'])}; expected it to re-raise ToolTimeout")
        if not got["log_after_crash"] or got["log_after_crash"][-1]["type"] != "agent.crashed":
            raise Failure(f"{what}: after the failure the log ends with {show(got['log_after_crash'][-1:] )}; expected "
                          "an agent.crashed event {'reason': ...}")


_KILL = st.sampled_from(["kill_after_append", "die_in_tool"])


def _last_point(plan, mode) -> int:
    """The last crash point of a run: its final append (started, called/result per step, completed) or tool call."""
    return 2 * len(plan) + 2 if mode == "kill_after_append" else len(plan)


@resume.rule("the process killed at any point (after any append, or inside a tool after its effect): resumed, it "
             "finishes; no step whose tool.result was logged runs again; the in-flight step runs again with the same "
             "idempotency_key f'{task_id}:{call_id}'")
def resume_after_kill(check):
    cases = st.tuples(plans(), _KILL).flatmap(lambda c: st.tuples(st.just(c[0]), st.just(c[1]), st.integers(1, _last_point(c[0][0], c[1]))))

    @check.forall(cases, examples=check.budget("resume"),
                  first=((([{"tool": "charge", "args": {"n": 1}}, {"tool": "charge", "args": {"n": 2}}],
                           {"charge/1": False, "charge/2": 7}, ["charge"]), "kill_after_append", 3),))
    def after_kill(case_mode_point):
        (plan, answers, keyed), mode, at = case_mode_point
        limit = _last_point(plan, mode)
        got, what = resumed_run(check, plan, answers, keyed, [mode, at])
        if not got["first"].get("killed") and at < limit:
            raise Failure(f"{what}: the first run was not killed at that point ({show(got['first'])}); expected it to "
                          "log each call and result as the spec says", status="failed")
        keys = [e["key"] for e in got["ledger"] if e["tool"] in keyed]
        expected_keys = [f"task-r:{i}:{s['tool']}" for i, s in enumerate(plan) if s["tool"] in keyed]
        if sorted(set(keys)) != sorted(expected_keys):
            raise Failure(f"{what}: the tools taking idempotency_key got the keys {show(sorted(set(keys)))}; expected "
                          f"{show(expected_keys)}, one per step, so the provider runs each effect exactly once")


# -- events.graph -----------------------------------------------------------------------------------------------------
graph = task("events.graph")

INVOICE = ["fetch_client", "validate_amounts", "create_invoice", "send_invoice"]
customers = st.one_of(st.sampled_from(["ACME", "Zoë & Co"]), st.text(min_size=1, max_size=8))
amounts = st.one_of(st.just(0), st.integers(-5, 10_000))


def invoice_expected(task_id, customer, amount) -> dict:
    client = INVOICE_TOOLS["fetch_client"][1]({"customer": customer})
    checked = INVOICE_TOOLS["validate_amounts"][1]({"amount": amount})
    invoice = INVOICE_TOOLS["create_invoice"][1]({"client": client, "amount": checked})
    sent = INVOICE_TOOLS["send_invoice"][1]({"invoice_id": invoice})
    return {"task_id": task_id, "customer": customer, "amount": checked, "client": client, "invoice_id": invoice, "sent": sent}


def invoice_run(check, customer, amount, crash):
    got = check.probe("invoice_run", "inv-1", customer, amount, crash, limit=4 * check.call_limit)
    what = f"the invoice graph for customer={customer!r}, amount={amount!r}{crash_text(crash)}"
    if isinstance(got, Raised):
        raise Failure(f"{what}: raised {got.sentence()}", status="error")
    expected = invoice_expected("inv-1", customer, amount)
    if got["second"] != {"ok": expected}:
        shown = got["second"].get("ok", got["second"].get("raised"))
        raise Failure(f"{what}: invoke(None, config) gave {show(shown)}; expected {show(expected)}",
                      {"call": "build_invoice_graph", "args": [customer, amount], "expected": expected, "got": shown})
    logged = logged_results(got["log_after_crash"])
    runs = executions(got["ledger"], 1) + executions(got["ledger"], 2)
    for tool in INVOICE:
        count = sum(n for (name, _), n in runs.items() if name == tool)
        again = sum(n for (name, _), n in executions(got["ledger"], 2).items() if name == tool)
        if count == 0 or (tool in logged and again):
            raise Failure(f"{what}: {tool} ran {count} times, {again} after the crash although its result was "
                          f"{'logged' if tool in logged else 'not logged'}; a logged result must never run again")
    keys = {e["key"] for e in got["ledger"] if e["tool"] == "send_invoice"}
    if keys != {"inv-1:send_invoice"}:
        raise Failure(f"{what}: send_invoice got the idempotency keys {show(sorted(keys, key=repr))}; expected only "
                      "'inv-1:send_invoice', so the invoice is sent at most once")
    return got


@graph.rule("the graph runs fetch_client → validate_amounts → create_invoice → send_invoice through call_tool, "
            "writing client, amount, invoice_id and sent")
def graph_runs(check):
    @check.forall(customers, amounts, examples=check.budget("threads"))
    def runs(customer, amount):
        got = invoice_run(check, customer, amount, None)
        if sorted(logged_results(got["log"])) != sorted(INVOICE):
            raise Failure(f"the invoice run logged results for the call ids {show(sorted(logged_results(got['log'])))}; "
                          f"expected one per node, the call id being the node's name: {INVOICE}")


@graph.rule("after a crash (a tool raising, or the process killed after a tool's result was logged), invoke(None, config) "
            "finishes the run; no logged tool runs twice; the invoice is sent at most once per idempotency key")
def graph_resumes(check):
    crashes = st.one_of(st.tuples(st.just("raise"), st.integers(1, 4)), st.tuples(st.just("kill_after_append"), st.integers(1, 8)),
                        st.tuples(st.just("die_in_tool"), st.integers(1, 4)))
    @check.forall(customers, amounts, crashes, examples=check.budget("invoice"),
                  first=("ACME", 0, ("kill_after_append", 4)))
    def resumes(customer, amount, crash):
        invoice_run(check, customer, amount, list(crash))

