"""Notebook 14 (append and retry): the rules of the SQLite event store, tasks events.append, .idempotent, .concurrency, .durable.

Each rule runs ops on a new store of the learner's (``store_ops``: each reply what one of its calls returned), races two
writer processes (``race``) or kills a writer mid-append from the grading side (``durable_crash``); ``checks`` judges.
"""

from grader.engine.checking import Counterexample, Failure, Raised, no_raise
from grader.engine.registry import task
from grader.engine.showing import counted, show
from grader.i18n import N_, _
from grader.parts.events.checks import (
    appended,
    expect_clock_after_check,
    expect_event,
    expect_listed,
    expect_one_winner,
    expect_raised,
    expect_sound_schema,
    killed,
    value_of,
)
from grader.parts.events.model import reorder
from grader.parts.events.strategies import (
    after_another,
    bad_events,
    conflicts,
    from_seqs,
    gap_logs,
    gap_skips,
    kill_rounds,
    logs,
    logs_and_seqs,
    logs_of_one,
    look_alike_conflict,
    on_files,
    race_rounds,
    task_ids,
)


def where(on_file: bool) -> str:
    return "SqliteEventStore(<a file>)" if on_file else "SqliteEventStore()"


# -- events.append -----------------------------------------------------------------------------------------
append_task = task("events.append")


@append_task.rule(N_("append stores seq = last_seq + 1 with ts set; list returns the events as appended, in order, from from_seq on"))
def append_in_order(check):
    @check.forall(task_ids, logs(), from_seqs, on_files, examples=check.budget("store"),
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
        for (_op, name, seq, kind, payload), reply in zip(ops[: len(log)], got):
            call = f"{where(on_file)}.append({name!r}, {seq}, {kind!r}, {show(payload)})"
            returned[name].append(expect_event(reply, name, seq, kind, payload, call))
            counts[name] += 1
        tail = got[len(log):]
        for name, reply in zip(tasks, tail):
            expect_listed(reply, returned[name], f"list({name!r}) after appending {counted(counts[name], 'event')}")
        for name, reply in zip(tasks, tail[2:]):
            if reply != counts[name]:
                raise Failure(_("last_seq({name}) after {counts} appends returned {reply}; expected {counts}").format(
                                  name=repr(name), counts=counts[name], reply=show(reply)))
        expect_listed(tail[4], [e for e in returned[tasks[0]] if e["seq"] >= from_seq], f"list({tasks[0]!r}, from_seq={from_seq})")


@append_task.rule(N_("a task without events has last_seq 0 and lists no events"))
def append_empty(check):
    @check.forall(task_ids, examples=check.budget("few"))
    def empty(task):
        ops = [["append", "other", 1, "agent.started", {}], ["last_seq", task + "!"], ["list", task + "!", 1]]
        got = check.probe("store_ops", ops, False)
        if got[1] != 0 or got[2] != []:
            raise Failure(_("for a task without events last_seq returned {got} and list {got2}; expected 0 and []").format(
                              got=show(got[1]), got2=show(got[2])))


@append_task.rule(N_("append refuses an unknown type, a seq that is not an int >= 1, or a payload that is not a JSON object "
                  "(EventStoreError), before writing anything"))
def append_rejects(check):
    @check.forall(bad_events, after_another, on_files, examples=check.budget("store"))
    def rejected(bad, after_one, on_file):
        seq, kind, payload = bad
        prefix = [["append", "t", 1, "agent.started", {}]] if after_one else []
        if after_one and type(seq) is int and seq == 1:
            seq = 2
        got = check.probe("store_ops", [*prefix, ["append", "t", seq, kind, payload], ["list", "t", 1]], on_file)
        doing = f"append('t', {seq!r}, {kind!r}, {show(payload)})" + (" after one event" if after_one else "")
        expect_raised(got[len(prefix)], "EventStoreError", doing)
        listed = value_of(got[-1])
        if type(listed) is not list or len(listed) != len(prefix):
            raise Failure(_("{doing} raised, yet list('t') then returned {listed}: a refused event must write nothing")
                          .format(doing=doing, listed=show(listed)))


@append_task.rule(N_("the events append and list return are immutable: setting a field, as an attribute or an item, changes nothing"))
def append_returns_immutable(check):
    @check.forall(on_files, examples=check.budget("few"))
    def refuses_changes(on_file):
        got = check.probe("frozen_events", on_file)
        for op, seq in got.items():
            doing = f"{where(on_file)}." + ("append('t', 1, 'agent.started', {'input': 1})" if op == "append" else "list('t')")
            seq = no_raise(seq, _("{doing} then reading its event's seq").format(doing=doing))
            if type(seq) is not int or seq != 1:
                raise Failure(_("setting seq = 99 on the event {doing} returned made its seq {seq}: an event is an immutable fact; "
                                "return Event objects (a frozen model), never a dict or a mutable object")
                              .format(doing=doing, seq=show(seq)))


# -- events.idempotent -----------------------------------------------------------------------------------
idempotent = task("events.idempotent")


@idempotent.rule(N_("appending an existing seq again with the same type and payload returns the stored event (ts included) "
                 "and writes nothing"))
def retry_returns_stored(check):
    @check.forall(task_ids, logs_and_seqs, on_files, examples=check.budget("store"))
    def retried(task, log_and_seq, on_file):
        log, seq = log_and_seq
        kind, payload = log[seq - 1]
        retry = ["append", task, seq, kind, reorder(payload)]  # equal payload, keys in another order
        stored, (reply, listed, last) = appended(check, task, log, on_file, [retry, ["list", task, 1], ["last_seq", task]])
        doing = f"a retry append({task!r}, {seq}, {kind!r}, {show(payload)}) after {counted(len(log), 'event')}"
        if reply != stored[seq - 1]:
            raise Failure(_("{doing} gave {reply}; expected the stored event {stored}: a retry returns what is stored, its ts "
                            "included (ts is the store's clock, so it is not part of what makes two appends the same event; the "
                            "k-th ts your store set is shown as 1700000000.0 + k)").format(
                              doing=doing, reply=show(reply), stored=show(stored[seq - 1])),
                          Counterexample("append", retry[1:], stored[seq - 1], reply))
        expect_listed(listed, stored, f"list({task!r}) after {doing}")
        if last != len(log):
            raise Failure(_("last_seq({task}) after {doing} returned {value_of}; expected {count}").format(
                              task=repr(task), doing=doing, value_of=show(value_of(last)), count=len(log)))


@idempotent.rule(N_("re-sending a whole log, event by event, returns each stored event and changes nothing"))
def resend_whole_log(check):
    @check.forall(task_ids, logs_of_one, on_files, examples=check.budget("retry"))
    def resent(task, log, on_file):
        again = [["append", task, seq, kind, payload] for seq, (kind, payload) in enumerate(log, 1)]
        stored, replies = appended(check, task, log, on_file, [*again, ["list", task, 1]])
        if replies[:-1] != stored:
            raised = [(seq, r) for seq, r in enumerate(replies[:-1], 1) if isinstance(r, Raised)][:1]
            raise Failure(_("re-sending the {counted} of {task} gave {replies}; expected the stored events {stored}{join}").format(
                              counted=counted(len(log), 'event'), task=repr(task), replies=show(replies[:-1]),
                              stored=show(stored), join=''.join((f'; the append of seq {seq} raised {r}' for seq, r in raised))))
        expect_listed(replies[-1], stored, f"list({task!r}) after re-sending its log")


# -- events.concurrency ---------------------------------------------------------------------------------------
concurrency = task("events.concurrency")


@concurrency.rule(N_("an existing seq with another type or payload raises ConcurrencyError(task_id, expected=last_seq + 1, "
                  "actual=seq) and changes nothing"))
def conflict_raises(check):
    @check.forall(task_ids, conflicts, on_files, examples=check.budget("store"), first=look_alike_conflict)
    def conflicting(task, conflict, on_file):
        log, seq, (kind, payload) = conflict
        stored, (reply, listed) = appended(check, task, log, on_file, [["append", task, seq, kind, payload], ["list", task, 1]])
        doing = f"append({task!r}, {seq}, {kind!r}, {show(payload)}) where seq {seq} holds {show(log[seq - 1])}"
        alike = (kind, payload) == tuple(log[seq - 1])  # equal in Python, not in JSON
        expect_raised(reply, "ConcurrencyError", doing, {"task_id": task, "expected": len(log) + 1, "actual": seq},
                      why=_(": {payload} == {log} in Python (True == 1), but as JSON it is another payload, so another event; "
                            "compare events with same_content").format(payload=show(payload), log=show(log[seq - 1][1])) if alike else "")
        expect_listed(listed, stored, f"list({task!r}) after {doing}")


@concurrency.rule(N_("a gap (seq > last_seq + 1) raises ConcurrencyError(task_id, expected=last_seq + 1, actual=seq) and writes nothing"))
def gap_raises(check):
    @check.forall(task_ids, gap_logs, gap_skips, on_files, examples=check.budget("store"))
    def gap(task, log, skip, on_file):
        seq = len(log) + skip
        stored, (reply, listed) = appended(check, task, log, on_file, [["append", task, seq, "tool.called", {}], ["list", task, 1]])
        doing = f"append({task!r}, {seq}, 'tool.called', {{}}) after {counted(len(log), 'event')}"
        expect_raised(reply, "ConcurrencyError", doing, {"task_id": task, "expected": len(log) + 1, "actual": seq})
        expect_listed(listed, stored, f"list({task!r}) after {doing}")


@concurrency.rule(N_("two writers in separate processes racing for one seq, the second coming between the first one's check "
                  "and its write: exactly one wins, the other gets ConcurrencyError"))
def racing_writers(check):
    @check.forall(race_rounds, examples=check.budget("threads"))
    def raced(rounds):
        got = no_raise(check.probe("race", rounds, limit=4 * check.call_limit + 2 * rounds), "racing writers")
        doing = _("two processes, each with its own SqliteEventStore on one file")
        expect_clock_after_check(doing, got["refused"])
        winners = {}
        for done in got["rounds"]:
            winners[done["seq"]] = expect_one_winner(doing, done)
        if got["codes"] != [0, 0]:
            raise Failure(_("{doing}: a writer process ended abnormally ({codes})").format(doing=doing, codes=show(got['codes'])))
        stored = [(e["seq"], e["payload"].get("writer")) for e in got["events"]]
        if stored != sorted(winners.items()):
            raise Failure(_("{doing}: the store holds {stored}; expected each seq's winner {items}")
                          .format(doing=doing, stored=show(stored), items=show(sorted(winners.items()))))


# -- events.durable ----------------------------------------------------------------------------------------------
durable = task("events.durable")


@durable.rule(N_("a writer killed with SIGKILL mid-append loses at most that event: after reopening, every acknowledged "
              "event is there, in order, unchanged"))
def killed_writer(check):
    @check.forall(kill_rounds, examples=check.budget("kill"))
    def survives(rounds):
        got = killed(check, [[[list(e) for e in events], kill] for events, kill in rounds])
        before = []
        for number, ((events, kill), found) in enumerate(zip(rounds, got["rounds"]), 1):
            doing = _("kill #{number}: a writer appending {counted} from seq {start}, killed after {counted2}").format(
                number=number, counted=counted(len(events), "event"), start=found["start"], counted2=counted(kill, "acknowledgement"))
            listed = found["events"]
            if type(listed) is not list or listed[: len(before)] != before:
                raise Failure(_("{doing}: events stored before it changed or vanished ({before} became {listed})")
                              .format(doing=doing, before=show(before), listed=show(listed)))
            stopped = found.get("stopped")
            if stopped is not None:
                said = _("raised {sentence}").format(sentence=stopped.sentence()) if isinstance(stopped, Raised) \
                    else _("ended its process")
                raise Failure(_("{doing}: the writer's append {said} after {counted}, before it was killed; expected each append of "
                                "a new seq to succeed")
                              .format(doing=doing, said=said, counted=counted(len(found["acked"]), "acknowledgement")),
                              status="error" if isinstance(stopped, Raised) else "failed")
            new, acked = listed[len(before):], found["acked"]
            intended = [{"seq": found["start"] + i, "type": t, "payload": p} for i, (t, p) in enumerate(events)]
            shown = [{k: e.get(k) for k in ("seq", "type", "payload")} for e in new]
            if not (len(acked) <= len(new) <= len(acked) + 1) or shown != intended[: len(new)]:
                raise Failure(_("{doing}: after reopening the new events are {shown}; expected the acknowledged {counted} (seqs {acked}), "
                                "at most one more, as appended (commit before append returns)").format(
                    doing=doing, shown=show(shown), counted=counted(len(acked), "event"), acked=show(acked)))
            before = listed


@durable.rule(N_("(task_id, seq) is unique in the schema itself (PRIMARY KEY or UNIQUE), and the file is a sound SQLite database"))
def unique_in_schema(check):
    rounds = [[[["agent.started", {}], ["tool.called", {"call_id": "0:x"}], ["tool.result", {"result": 0}]], 3]]
    schema = killed(check, rounds)["schema"]
    expect_sound_schema(schema)
