"""Part D's probes: the case stream's scripts and races, run in the learner's process; they report plain data, never judge.

The write-once graph and the refund graph run in the grading process
(``grader.parts.branches.scenarios``). What stays here is the stream: a
script of appends, and races of appends and resolutions forced in lockstep
(``concurrency``), whose replies are what the learner's calls returned.

Imported by the zygote (``grader.child.probes.load``) before it forks a learner;
they import nothing of the grading side. Where the learner's code may raise
on purpose (a collision, a violation, a stale version), ``ctx.attempt``
puts what it did in the reply, its value or a ``Raised``; anything a
scenario raises elsewhere comes back as the whole reply's ``Raised``.
"""

import copy

from grader.child.probes import probe
from grader.parts.branches.probes.concurrency import Interleaved, learner_stream, race, reports_unbuilt_stream, trusted_stream


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


@probe
@reports_unbuilt_stream
def resolve_interleaved(ctx, conflict, prior, mine, theirs):
    """``resolve_conflict`` where another resolver (``theirs``) commits just before our first append."""
    resolve = ctx.get("resolve_conflict")
    stream = trusted_stream(ctx, conflict["stream_id"], prior)
    other = {}

    def competitor():
        other["result"] = resolve(stream, copy.deepcopy(conflict), *theirs)

    proxy = Interleaved(stream, competitor)
    result = resolve(proxy, copy.deepcopy(conflict), *mine)
    return {"theirs": other.get("result"), "mine": result, "events": stream.events(), "appends": proxy.appends}


@probe
@reports_unbuilt_stream
def resolve_threads(ctx, conflict, prior, calls):
    """Every ``[decision, actor, rule]`` of ``calls`` resolves the same conflict in its own thread."""
    resolve = ctx.get("resolve_conflict")
    stream = trusted_stream(ctx, conflict["stream_id"], prior)
    resolvers = [lambda call=call: resolve(stream, copy.deepcopy(conflict), *call) for call in calls]
    return {"results": race(ctx, resolvers), "events": stream.events()}


@probe
@reports_unbuilt_stream
def resolve_sequence(ctx, conflict, prior, calls):
    """Resolve one conflict with each ``[decision, actor, rule]`` in turn; report results and the stream."""
    resolve = ctx.get("resolve_conflict")
    stream = trusted_stream(ctx, conflict["stream_id"], prior)
    given = copy.deepcopy(conflict)
    results = [resolve(stream, given, *call) for call in calls]
    return {"results": results, "events": stream.events(), "conflict_after": given}
