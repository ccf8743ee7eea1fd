"""Notebook 17 (idempotency keys): the rules of ``call_tool`` and ``run_task``, task events.resume.

The scenarios (``grader.parts.events.scenarios``) run the learner's code on the
grader's own store with fake tools that record their side effects, both in
the grading process: ``call_tool_run`` calls ``call_tool`` on one log,
``resume_run`` runs a plan, crashes it (a tool raising, the learner's process
killed), resumes it in the next process and calls it once more.
"""

from grader.engine.checking import Counterexample, Failure, Raised, no_raise
from grader.engine.registry import task
from grader.engine.showing import contrast, show
from grader.i18n import N_, _
from grader.parts.events.checks import describe_run, judge_resumed
from grader.parts.events.model import executions, expected_output, last_point
from grader.parts.events.strategies import kill_points, plans, raise_points, tool_calls

resume = task("events.resume")


@resume.rule(N_("call_tool returns a logged result without calling the tool, also a falsy one; another call id runs the "
             "tool, even for the same tool and arguments"))
def call_tool_by_call_id(check):
    @check.forall(tool_calls(), examples=check.budget("resume"),
                  first=(([["0:lookup", "lookup", 1], ["1:lookup", "lookup", 2], ["0:lookup", "lookup", 1],
                           ["1:lookup", "lookup", 2]], {"lookup/1": 0, "lookup/2": "two"}, []),))
    def by_call_id(case):
        calls, answers, keyed = case
        got = check.probe("call_tool_run", "task-c", calls, answers, keyed)
        what = _("call_tool for {join}").format(join=', '.join((f'{c}: {t}(n={n})' for c, t, n in calls)))
        expected, ran = [], []
        for call_id, tool, n in calls:
            if call_id not in {c for c, _skip, _skip in ran}:
                ran.append((call_id, tool, n))
            expected.append(answers[f"{tool}/{dict((c, n) for c, _skip, n in ran)[call_id]}"])
        results = [f"raised {r.type}" if isinstance(r, Raised) else r for r in got["results"]]
        if results != expected:
            gave, wanted = contrast(results, expected)
            raise Failure(_("{what} returned {gave}; expected {wanted} (a result is found by its call id, not by the tool's name)").format(
                              what=what, gave=gave, wanted=wanted), Counterexample("call_tool", calls, expected, results))
        executed = [(e["tool"], e["args"]) for e in got["ledger"]]
        if executed != [(t, {"n": n}) for _call, t, n in ran]:
            raise Failure(_("{what} ran the tools {executed}; expected {value}: once per call id, never again once its result is "
                            "logged (0, '', None, [] and False are results)").format(
                              what=what, executed=show(executed), value=show([(t, {'n': n}) for _call, t, n in ran])))
        kinds = [(e["type"], e["payload"].get("call_id")) for e in got["log"]]
        logged = [kind for _call in ran for kind in ("tool.called", "tool.result")]
        if [k for k, _skip in kinds] != logged:
            raise Failure(_("{what} left the log {kinds}; expected a tool.called then a tool.result for each call that ran, and "
                            "nothing for a call answered from the log").format(what=what, kinds=show(kinds)))


def resumed_run(check, plan, answers, keyed, crash):
    """The probe's reply for this run and the words for it, once the rules every resumed run keeps are checked."""
    what = describe_run(plan, answers, keyed, crash)
    got = no_raise(check.probe("resume_run", "task-r", plan, answers, keyed, crash, limit=4 * check.call_limit), f"{what}: the run")
    call_ids = [f"{i}:{step['tool']}" for i, step in enumerate(plan)]
    judge_resumed(what, got, expected_output(plan, answers), call_ids, [(s["tool"], s["args"]) for s in plan], "task-r", keyed)
    return got, what


@resume.rule(N_("run_task returns each step's result, falsy ones included; a tool called again with other arguments is another "
             "call (call id f'{i}:{name}'); each step runs once; a completed task returns its output and calls nothing"))
def resume_plain(check):
    @check.forall(plans(), examples=check.budget("resume"),
                  first=(([{"tool": "lookup", "args": {"n": 0}}, {"tool": "lookup", "args": {"n": 1}}],
                          {"lookup/0": 0, "lookup/1": "ok"}, []),))
    def plain(case):
        plan, answers, keyed = case
        got, what = resumed_run(check, plan, answers, keyed, None)
        expected = expected_output(plan, answers)
        if isinstance(got["first"], Raised):
            raise Failure(_("{what}: run_task raised {sentence} in a run without any crash").format(
                              what=what, sentence=got['first'].sentence()), status="error")
        if got["third"] != expected or executions(got["ledger"], 3):
            raise Failure(_("{what}: calling run_task on the completed task gave {third} and ran {sum} tools; expected the "
                            "stored output {expected} and no call").format(
                              what=what, third=show(got['third']), sum=sum(executions(got['ledger'], 3).values()),
                              expected=show(expected)))
        if executions(got["ledger"], 1) + executions(got["ledger"], 2) != executions(
                [{"phase": 1, "tool": s["tool"], "args": s["args"]} for s in plan], 1):
            raise Failure(_("{what}: the tools ran {sum} times; expected once per step").format(
                              what=what, sum=sum(executions(got['ledger'], 1).values())))
        kinds = [e["type"] for e in got["log"]]
        if kinds.count("agent.started") != 1 or got["log"][-1]["type"] != "task.completed" or \
                got["log"][-1]["payload"] != {"output": expected}:
            raise Failure(_("{what}: the log's event types are {kinds} ending with {payload}; expected one agent.started and a "
                            "last task.completed {{'output': {expected}}}").format(
                              what=what, kinds=show(kinds), payload=show(got['log'][-1]['payload']), expected=show(expected)))


@resume.rule(N_("a tool raising: run_task logs agent.crashed and re-raises; run again, it resumes: logged calls are not "
             "run again (falsy results included), the failed one is"))
def resume_after_raise(check):
    @check.forall(raise_points, examples=check.budget("resume"),
                  first=((([{"tool": "charge", "args": {"n": 0}}, {"tool": "notify", "args": {"n": 0}}],
                           {"charge/0": 0, "notify/0": None}, []), 2),))
    def after_raise(case_and_point):
        (plan, answers, keyed), at = case_and_point
        got, what = resumed_run(check, plan, answers, keyed, ["raise", at])
        first = got["first"]
        if not (isinstance(first, Raised) and first.type == "ToolTimeout"):
            raise Failure(_("{what}: the first run_task gave {first}; expected it to re-raise ToolTimeout").format(
                              what=what, first=show(first)))
        if not got["log_after_crash"] or got["log_after_crash"][-1]["type"] != "agent.crashed":
            raise Failure(_("{what}: after the failure the log ends with {log_after_crash}; expected an agent.crashed event "
                            "{{'reason': ...}}").format(what=what, log_after_crash=show(got['log_after_crash'][-1:])))


@resume.rule(N_("the process killed at any point (after any append, or inside a tool after its effect): resumed, it "
             "finishes; no step whose tool.result was logged runs again; the in-flight step runs again with the same "
             "idempotency_key f'{task_id}:{call_id}'"))
def resume_after_kill(check):
    @check.forall(kill_points, examples=check.budget("resume"),
                  first=((([{"tool": "charge", "args": {"n": 1}}, {"tool": "charge", "args": {"n": 2}}],
                           {"charge/1": False, "charge/2": 7}, ["charge"]), "kill_after_append", 3),))
    def after_kill(case_mode_point):
        (plan, answers, keyed), mode, at = case_mode_point
        limit = last_point(plan, mode)
        got, what = resumed_run(check, plan, answers, keyed, [mode, at])
        if not got["killed"] and at < limit:
            first = got["first"]
            ended = _("it raised {type}").format(type=first.type) if isinstance(first, Raised) else _("it returned {first}").format(
                                                                                    first=show(first))
            raise Failure(_("{what}: the first run never reached that point ({ended}); expected it to log each call and result "
                            "as the spec says").format(what=what, ended=ended), status="failed")
        keys = [e["key"] for e in got["ledger"] if e["tool"] in keyed]
        expected_keys = [f"task-r:{i}:{s['tool']}" for i, s in enumerate(plan) if s["tool"] in keyed]
        if sorted(set(keys)) != sorted(expected_keys):
            raise Failure(_("{what}: the tools taking idempotency_key got the keys {keys}; expected {expected_keys}, one per "
                            "step, so the provider runs each effect exactly once").format(
                              what=what, keys=show(sorted(set(keys))), expected_keys=show(expected_keys)))


@resume.rule(N_("call_tool logs tool.called {call_id, tool, args} (tool: the tool's name) and tool.result {call_id, result} "
             "for each call it runs"))
def call_tool_payloads(check):
    @check.forall(tool_calls(), examples=check.budget("resume"))
    def logged_payloads(case):
        calls, answers, keyed = case
        got = check.probe("call_tool_run", "task-c", calls, answers, keyed)
        ran = [call for number, call in enumerate(calls) if call[0] not in {c for c, _skip, _skip in calls[:number]}]
        expected = [payload for call_id, tool, n in ran for payload in (
            ("tool.called", {"call_id": call_id, "tool": tool, "args": {"n": n}}),
            ("tool.result", {"call_id": call_id, "result": answers[f"{tool}/{n}"]}))]
        logged = [(e["type"], e["payload"]) for e in got["log"]]
        if logged != expected:
            what = _("call_tool for {join}").format(join=', '.join((f'{c}: {t}(n={n})' for c, t, n in calls)))
            raise Failure(_("{what} left the log {logged}; expected {expected}: tool.called {{call_id, tool, args}} before the "
                            "call, tool.result {{call_id, result}} after it").format(
                              what=what, logged=show(logged), expected=show(expected)),
                          Counterexample("call_tool", calls, expected, logged))


@resume.rule(N_("run_task logs agent.started {input}, a crash as agent.crashed {reason}, and task.completed {output} last"))
def run_task_payloads(check):
    @check.forall(raise_points, examples=check.budget("resume"))
    def run_payloads(case_and_point):
        (plan, answers, keyed), at = case_and_point
        got, what = resumed_run(check, plan, answers, keyed, ["raise", at])
        started = [e["payload"] for e in got["log"] if e["type"] == "agent.started"]
        if started != [{"input": {"plan": len(plan)}}]:
            raise Failure(_("{what}: the log's agent.started payloads are {started}; expected one, {value}: the input run_task "
                            "was given").format(what=what, started=show(started), value=show({'input': {'plan': len(plan)}})))
        crashed = [e["payload"] for e in got["log_after_crash"] if e["type"] == "agent.crashed"]
        if len(crashed) != 1 or type(crashed[0]) is not dict or sorted(crashed[0]) != ["reason"]:
            raise Failure(_("{what}: after the failure the log's agent.crashed payloads are {crashed}; expected one {{'reason': "
                            "...}}, saying what was raised").format(what=what, crashed=show(crashed)))
        last = got["log"][-1]
        expected = {"output": expected_output(plan, answers)}
        if last["type"] != "task.completed" or last["payload"] != expected:
            raise Failure(_("{what}: the log ends with {value}; expected task.completed {expected}").format(
                              what=what, value=show((last['type'], last['payload'])), expected=show(expected)))
