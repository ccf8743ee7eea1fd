"""Notebook 15 (projection and replay): the rules of ``project_state``, task events.project.

The probe ``project`` builds the learner's ``Event``s and folds every prefix
of the log; the state of each is judged against ``model.model_state``.
"""

from grader.engine.checking import Counterexample, Failure, no_raise
from grader.engine.registry import task
from grader.engine.showing import contrast, show
from grader.i18n import N_, _
from grader.parts.events.clock import stamp
from grader.parts.events.model import model_state
from grader.parts.events.strategies import run_logs

project = task("events.project")


def _event(seq, kind, payload):
    return {"task_id": "inv-7", "seq": seq, "type": kind, "payload": payload, "ts": stamp(seq)}


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
    """The probe's reply: each prefix's state (or what folding it raised), and the events afterwards."""
    return no_raise(check.probe("project", events), "building the events or project_state")


@project.rule(N_("project_state(events[:k]) gives the state as of seq k: status, last_seq, tool_results by call id, output"))
def fold_prefixes(check):
    @check.forall(run_logs(), examples=check.budget("fold"), first=(_EVERY_STATUS,))
    def every_prefix(events):
        got = projected(check, events)
        for k, reply in enumerate(got["states"]):
            doing = f"project_state(events[:{k}]) of {show([(e['type'], e['payload']) for e in events])}"
            state = no_raise(reply, doing)
            expected = model_state(events[:k])
            fields = {key: state.get(key) for key in expected} if type(state) is dict else state
            if fields != expected:
                shown, wanted = contrast(fields, expected)
                raise Failure(_("{doing} gave {shown}; expected {wanted}").format(doing=doing, shown=shown, wanted=wanted),
                              Counterexample("project_state", [events[:k]], expected, fields))
            if k and state.get("task_id") != events[0]["task_id"]:
                raise Failure(_("{doing} gave task_id {get}; expected {task_id}").format(
                                  doing=doing, get=show(state.get('task_id')), task_id=repr(events[0]['task_id'])))


@project.rule(N_("project_state is pure: it never changes the events it folds"))
def fold_is_pure(check):
    @check.forall(run_logs(), examples=check.budget("fold"))
    def untouched(events):
        got = projected(check, events)
        if got["events_after"] != events:
            raise Failure(_("after project_state the events were {events_after}; expected them unchanged {events} (build new "
                            "dicts; never write into a payload)").format(events_after=show(got['events_after']), events=show(events)))


@project.rule(N_("with no events the status is 'new', last_seq 0, no tool results and no output"))
def fold_empty(check):
    got = projected(check, [])
    state = no_raise(got["states"][0], "project_state([])")
    expected = model_state([])
    fields = {key: state.get(key) for key in expected} if type(state) is dict else state
    if fields != expected:
        shown, wanted = contrast(fields, expected)
        raise Failure(_("project_state([]) gave {shown}; expected {wanted}").format(shown=shown, wanted=wanted))
