"""Part D's learner side: the case stream's scripts and the races forced in lockstep; they report plain data, never judge.

The write-once graph, the refund graph and the resolvers' scenarios run in
the grading process (``grader.parts.branches.scenarios``), the resolvers on
a stream of the grader's. What stays here: a script of appends on the
learner's own ``CaseStream`` (its calls, and what changing what it was given
or gave back does to it), and the races: threads that take turns one
bytecode of the learner's code at a time (``concurrency``), appending to
the learner's stream, or resolving on the grading side's. The turns are
made here, the one part of those scenarios still made in the learner's
process; the replies are what the learner's calls returned.

Imported by the zygote (``grader.child.probes.load``) before it forks a learner;
they import nothing of the grading side. Where the learner's code may raise
on purpose (a collision, a violation, a stale version), ``ctx.attempt``
puts what it did in the reply, its value or a ``Raised``; anything a
scenario raises elsewhere comes back as the whole reply's ``Raised``.
"""

import copy

from grader.child.probes import operation, probe
from grader.parts.branches.probes.concurrency import learner_stream, race, reports_unbuilt_stream


@probe
@reports_unbuilt_stream
def stream_script(ctx, stream_id, appends):
    """Append ``[event, expected_version]`` pairs one by one; report each outcome and the stream after.

    An outcome: ``{"result": the new version or a Raised (StaleVersion's expected and actual), "version": ...}``.
    """
    stream = learner_stream(ctx, stream_id)
    outcomes, sent = [], []
    for event, expected in appends:
        sent.append(event)
        result = ctx.attempt(lambda event=event, expected=expected: stream.append(event, expected), ("expected", "actual"))
        outcomes.append({"result": result, "version": stream.version})
    listed = stream.events()
    snapshot = copy.deepcopy(listed)
    # The stream keeps copies: changing what was sent, or what events() returned, changes nothing stored.
    for event in [*sent, *(listed if type(listed) is list else [])]:
        if type(event) is dict:
            event["tampered"] = True
    return {"outcomes": outcomes, "events": snapshot, "events_after_tampering": stream.events(), "version": stream.version}


@probe
@reports_unbuilt_stream
def stream_race(ctx, writers, rounds):
    """``writers`` threads append at the same expected version, ``rounds`` times; what each append did, each round."""
    stream = learner_stream(ctx, "race")
    report = []
    for round_no in range(rounds):
        expected = stream.version
        # Each round's threads are joined before the next round: the lambdas see this round's names.
        appends = [lambda index=index, round_no=round_no, expected=expected:
                   stream.append({"round": round_no, "writer": index}, expected) for index in range(writers)]
        report.append({"expected": expected, "results": race(ctx, appends), "version": stream.version})
    return {"rounds": report, "events": stream.events()}


@operation
def branches_resolve_threads(ctx, stream, conflict, calls):
    """Every ``[decision, actor, rule]`` of ``calls`` resolves ``conflict`` on ``stream`` (the grading side's) in its own
    thread, in lockstep; each one's ``{"result": value or Raised}``."""
    resolve = ctx.get("resolve_conflict")
    return race(ctx, [lambda call=call: resolve(stream, copy.deepcopy(conflict), *call) for call in calls])
