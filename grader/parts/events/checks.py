"""Part C's judging helpers, shared by its rules: is this reply the stored event, the listed log, the refusal, the resumed run?

A scenario's reply holds, for each of the learner's calls, its value or the
``Raised`` of what it raised (``grader.parts.events.scenarios``). These helpers
read such replies and raise ``Failure`` with the words the learner reads;
what a correct answer is comes from ``model``.
"""

from collections import Counter

from grader.engine.checking import Counterexample, Failure, Raised, no_raise
from grader.engine.showing import contrast, counted, show
from grader.i18n import N_, _, ngettext
from grader.parts.events.model import EVENT_KEYS, args_text, executions, logged_results


def value_of(reply):
    """A reply's value; None when the call raised (the feedback then shows what it found: nothing)."""
    return None if isinstance(reply, Raised) else reply


# -- the store ---------------------------------------------------------------------------------------
def expect_event(got, task_id, seq, kind, payload, doing: str) -> dict:
    """``got`` (an op's reply) is the event (task_id, seq, type, payload) with a float ts."""
    event = no_raise(got, doing, hint=_("expected the event"))
    if type(event) is not dict or sorted(event) != EVENT_KEYS:
        raise Failure(_("{doing} returned {event}; expected an Event (task_id, seq, type, payload, ts)").format(
                          doing=doing, event=show(event)))
    wanted = {"task_id": task_id, "seq": seq, "type": kind, "payload": payload}
    if {k: event[k] for k in wanted} != wanted or type(event["seq"]) is not int:
        raise Failure(_("{doing} returned {event}; expected {wanted} with ts set").format(
                          doing=doing, event=show(event), wanted=show(wanted)),
                      Counterexample("append", [task_id, seq, kind, payload], wanted, event))
    if type(event["ts"]) is not float:
        raise Failure(_("{doing} returned ts={ts}; expected the store to set ts to a float time").format(doing=doing, ts=show(event['ts'])))
    return event


def expect_listed(got, expected_events: list, doing: str) -> None:
    listed = no_raise(got, doing, hint=_("expected a list of events"))
    if listed != expected_events:
        shown, wanted = contrast(listed, expected_events)
        raise Failure(_("{doing} returned {shown}; expected {wanted}").format(doing=doing, shown=shown, wanted=wanted),
                      Counterexample(doing, [], expected_events, listed))


def expect_raised(got, kind: str, doing: str, expected_attrs: dict | None = None, why: str = "") -> None:
    """``got`` raised the module's ``kind`` (EventStoreError or ConcurrencyError) with these attributes.

    ``why``: what the feedback adds when nothing was raised (the reason it had to be).
    """
    if not isinstance(got, Raised):
        raise Failure(_("{doing} returned {got}; expected {kind}{why}").format(doing=doing, got=show(got), kind=kind, why=why),
                      Counterexample(doing, [], kind, got))
    if not got.is_a(kind):
        raise Failure(_("{doing} raised {got}; expected {kind} (a subclass of it is fine)").format(doing=doing, got=got, kind=kind),
                      Counterexample(doing, [], kind, got.type))
    attrs = {k: _attribute(got.attrs.get(k)) for k in expected_attrs or {}}
    if expected_attrs and attrs != expected_attrs:
        raise Failure(_("{doing} raised {kind} with {attrs}; expected {expected_attrs} (expected = the next free seq, actual "
                        "= the seq sent)").format(doing=doing, kind=kind, attrs=attrs, expected_attrs=expected_attrs))


def _attribute(value):
    """An exception's attribute as the rule compares it: a str, an int or None as it is; anything else as its text.

    So True or 2.0 never passes for the seq 1 or 2, and a missing attribute
    (``Raised.of`` says "<missing>") is None.
    """
    if value is None or value == "<missing>":
        return None
    return value if type(value) in (str, int) else repr(value)


def appended(check, task, log, on_file, extra_ops=()):
    """Append ``log`` ([type, payload] each) to ``task`` in a new store, then ``extra_ops``; the stored events and the replies."""
    ops = [["append", task, seq, kind, payload] for seq, (kind, payload) in enumerate(log, 1)] + list(extra_ops)
    got = check.probe("store_ops", ops, on_file)
    stored = [expect_event(reply, task, seq, kind, payload, f"append({task!r}, {seq}, {kind!r}, {show(payload)})")
              for seq, (reply, (kind, payload)) in enumerate(zip(got, log), 1)]
    return stored, got[len(log):]


# -- runs ---------------------------------------------------------------------------------------------
def describe_run(plan, answers, keyed, crash) -> str:
    steps = []
    for step in plan:
        tool, n = step["tool"], step["args"]["n"]
        steps.append(f"{tool}(n={n}) -> {show(answers[f'{tool}/{n}'])}")
    keys = ngettext("; {tools} takes idempotency_key", "; {tools} take idempotency_key", len(keyed)).format(
        tools=", ".join(keyed)) if keyed else ""
    return _("plan [{join}]{keys}{crash_text}").format(join=', '.join(steps), keys=keys, crash_text=crash_text(crash))


def crash_text(crash) -> str:
    if not crash:
        return ""
    mode, at = crash
    said = {"raise": _("; tool call #{at} raises ToolTimeout"),
            "kill_after_append": _("; the process is killed right after its append #{at}"),
            "die_in_tool": _("; the process is killed inside tool call #{at}, after its side effect")}[mode]
    return said.format(at=at)


def judge_resumed(what: str, got: dict, expected, call_ids: list, steps: list, task_id: str, keyed_steps: list) -> None:
    """The rules of a resumed run, given the planned steps (tool, args) and their call ids."""
    second = got["second"]
    if second != expected:  # a Raised equals no value
        shown = f"raised {second.type}" if isinstance(second, Raised) else f"returned {show(second)}"
        raise Failure(_("{what}: resuming {shown}; expected {expected}").format(what=what, shown=shown, expected=show(expected)),
                      Counterexample("resume", [], expected, second))
    kinds = [event["type"] for event in got["log"]]
    if kinds.count("agent.started") != 1 or kinds.count("task.completed") != 1 or kinds[-1] != "task.completed":
        raise Failure(_("{what}: after resuming and calling again the log holds the events {kinds}; expected exactly one "
                        "agent.started (a resumed run does not start again) and one task.completed, last").format(
                          what=what, kinds=show(kinds)))
    logged = logged_results(got["log_after_crash"])
    unlogged = Counter((tool, args_text(args)) for call_id, (tool, args) in zip(call_ids, steps) if call_id not in logged)
    again = executions(got["ledger"], 2)
    if again != unlogged:
        extra = sorted((again - unlogged).elements())
        missing = sorted((unlogged - again).elements())
        if extra:
            raise Failure(_("{what}: resuming ran {join} again although its tool.result was in the log (a logged result is "
                            "returned, also when it is falsy, and a call is identified by its call id)").format(
                              what=what, join=', '.join((f'{t}({a})' for t, a in extra))))
        raise Failure(_("{what}: resuming never ran {join}, whose result was not logged").format(
                          what=what, join=', '.join((f'{t}({a})' for t, a in missing))))
    for entry in got["ledger"]:
        if entry["tool"] in keyed_steps and entry["key"] not in {f"{task_id}:{c}" for c in call_ids}:
            raise Failure(_("{what}: {tool} got idempotency_key={key}; expected f'{{task_id}}:{{call_id}}', e.g. {value}").format(
                              what=what, tool=entry['tool'], key=show(entry['key']), value=repr(task_id + ':' + call_ids[0])))


# What a race is raced at, in feedback: the rival appends while the armed writer reads the clock for the event's ts.
RACED_AT = N_("the grader races a rival writer while an append reads the clock (time.time()) for the event's ts, "
            "so read it once the seq is known to be free, for the event you write")


def _said(outcome) -> str:
    """An append's outcome in feedback: a writer's death (``scenarios_writers.DIED``) in the learner's language."""
    return _(outcome) if outcome == "the writer process died" else str(outcome)


def expect_clock_after_check(doing: str, refused: dict) -> None:
    """A refused append (seq 1 taken, another payload) raised ConcurrencyError without reading the clock: the race's
    stop, the armed writer's clock read, then comes after its check."""
    second = refused["second"]
    if refused["first"] != "win" or not (isinstance(second, Raised) and second.type == "ConcurrencyError"):
        gave = _("raised {second}").format(second=second) if isinstance(second, Raised) else _said(second)
        if refused["first"] == "win":
            raise Failure(_("{doing}: one appended seq 1, then the other appended seq 1 with another payload: the first won, "
                            "the second {gave}; expected a win, then ConcurrencyError").format(doing=doing, gave=gave))
        raise Failure(_("{doing}: one appended seq 1, then the other appended seq 1 with another payload: the first {value}, "
                        "the second {gave}; expected a win, then ConcurrencyError").format(
                          doing=doing, value=_said(refused['first']), gave=gave))
    if refused["clock_reads"]:
        raise Failure(_("{doing}: an append refused with ConcurrencyError (seq 1 taken) read the clock {counted} before "
                        "refusing: it read it before its check; {RACED_AT}").format(
                          doing=doing, counted=counted(refused['clock_reads'], 'time'), RACED_AT=_(RACED_AT)))


def expect_one_winner(doing: str, done: dict) -> int:
    """One round of two writers racing for a seq (the ``race`` probe's): exactly one won, the other got
    ConcurrencyError; the winner's number."""
    seq, armed = done["seq"], done["armed"]
    other = 1 - armed
    # Each outcome: "win", the Raised of what the append raised, or "the writer process died".
    outcomes = {int(number): outcome for number, outcome in done["outcomes"].items()}
    if outcomes[armed] == "win" and not done["paused"]:
        raise Failure(_("{doing}: writer {armed} appended seq {seq} without reading the clock (time.time()) for its ts, so "
                        "no rival could be sent while it was between its check and its write; {RACED_AT}").format(
                          doing=doing, armed=armed, seq=seq, RACED_AT=_(RACED_AT)))
    when = (_("writer {other} appended seq {seq} after writer {armed} had checked it and before writer {armed} "
              "wrote it").format(other=other, seq=seq, armed=armed) if done["interleaved"]
            else _("both appended seq {seq}").format(seq=seq))
    for number, outcome in outcomes.items():
        if outcome != "win" and not (isinstance(outcome, Raised) and outcome.type == "ConcurrencyError"):
            raise Failure(_("{doing}: {when}; writer {number}'s append raised {outcome}; expected success or ConcurrencyError "
                            "(check and insert in one transaction that locks out other writers, e.g. BEGIN IMMEDIATE)").format(
                              doing=doing, when=when, number=number, outcome=_said(outcome)))
    won = [number for number, outcome in outcomes.items() if outcome == "win"]
    if len(won) != 1:
        if won:
            raise Failure(_("{doing}: {when}; both writers succeeded; expected exactly one to win and the other to get "
                            "ConcurrencyError (check and insert in one transaction that locks out other writers, e.g. BEGIN "
                            "IMMEDIATE)").format(doing=doing, when=when))
        raise Failure(_("{doing}: {when}; neither writer succeeded; expected exactly one to win and the other to get "
                        "ConcurrencyError (check and insert in one transaction that locks out other writers, e.g. BEGIN "
                        "IMMEDIATE)").format(doing=doing, when=when))
    return won[0]


def expect_sound_schema(schema: dict) -> None:
    """The store's file after a killed writer: a sound SQLite database whose schema makes (task_id, seq) unique."""
    if schema["integrity"] != "ok":
        raise Failure(_("PRAGMA integrity_check on the store's file says {integrity}; expected 'ok'").format(
            integrity=show(schema["integrity"])))
    pairs = sorted([[seq, "durable"] for seq in (1, 2, 3)], key=repr)  # (seq, task_id): the probe sorts a key's columns
    if pairs not in schema["keys"]:
        raise Failure(_("the store's table has no PRIMARY KEY or UNIQUE constraint on exactly the two columns task_id and "
                        "seq: without it, nothing but your own check keeps a second event of a task from taking a seq; "
                        "declare PRIMARY KEY (task_id, seq)"))


def killed(check, rounds) -> dict:
    """``durable_crash``'s reply: writers killed mid-append, the store reopened."""
    return no_raise(check.probe("durable_crash", rounds, limit=4 * check.call_limit), _("reopening the store after a killed writer"))
