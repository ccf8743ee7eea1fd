"""Notebook 26, branches.conflicts: a conflict is a record; resolving it appends one event, once, never editing history.

The resolver scenarios hand ``resolve_conflict`` a correct stream of the
grader's (``scenarios_resolvers.GraderStream``, in the grading process), so a broken
``CaseStream`` fails only branches.optimistic; each conflict here is about
the approvals already in that stream.
"""

from grader.engine.checking import Failure, Raised, no_raise
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.branches.checks import stream_built
from grader.parts.branches.model import APPROVAL, RECORD_KEYS, model_conflict, model_resolution
from grader.parts.branches.strategies import (
    actors,
    case_ids,
    conflict_inputs,
    event_id_sets,
    picks_one,
    resolution_rules,
    resolver_counts,
)

conflicts = task("branches.conflicts")


def _conflict(case_id, ids, revision=2):
    """An open high-risk conflict about the approvals ``ids`` (in the stream before it, ``_prior(ids)``)."""
    return {"conflict_id": f"{case_id}:approval_conflicts_with_high_risk:{revision}", "stream_id": case_id, "status": "open",
            "kind": "approval_conflicts_with_high_risk", "current_revision": revision, "proposals": sorted(ids),
            "required_action": "human override or rejection", "resolution": None}


def _prior(ids):
    return [{"type": APPROVAL, "event_id": event_id} for event_id in ids]


def _resolutions(events, conflict_id):
    return [e for e in events if isinstance(e, dict) and e.get("type") == "conflict_resolved" and e.get("conflict_id") == conflict_id]


def _resolved(check, conflict, prior, calls):
    """``resolve_sequence``: each call's result, the stream's events and the conflict passed in, afterwards."""
    got = stream_built(check.probe("resolve_sequence", conflict, prior, calls), conflict["stream_id"])
    return no_raise(got, lambda: f"resolve_conflict(stream, {show(conflict)}, ...)")


@conflicts.rule(N_("open_conflict returns a record, never an error string: conflict_id, stream_id, status 'open', kind, "
                "current_revision, proposals (their event ids, sorted), required_action, resolution None"))
def conflict_record(check):
    @check.forall(conflict_inputs())
    def record(inputs):
        case, found, kind, action = inputs
        call = check.value("open_conflict", case, found, kind, action)
        got = call.result
        if type(got) is not dict:
            raise Failure(_("{text} returned {got}; expected a record (a dict): a conflict is data the graph keeps and a person "
                            "resolves, not an error message").format(text=call.text(), got=show(got)), call.counterexample("a dict"))
        expected = model_conflict(case, found, kind, action)
        wrong = {key: got.get(key) for key, value in expected.items() if got.get(key) != value}
        if sorted(got) != RECORD_KEYS or wrong or type(got.get("conflict_id")) is not str or not got["conflict_id"]:
            raise Failure(_("{text} returned {got}; expected exactly the keys {RECORD_KEYS} with {expected} and a non-empty str "
                            "conflict_id{value}").format(text=call.text(), got=show(got), RECORD_KEYS=RECORD_KEYS, expected=show(expected),
                              value=f' (wrong: {show(wrong)})' if wrong else ''))
        if call.args_after != [case, found, kind, action]:
            raise Failure(_("{text} changed its arguments; open_conflict must not mutate the case or the proposals").format(
                              text=call.text()))


@conflicts.rule(N_("the same conflict always gets the same conflict_id; another kind gets another one"))
def conflict_ids(check):
    @check.forall(conflict_inputs())
    def stable(inputs):
        case, found, kind, action = inputs
        first = check.value("open_conflict", case, found, kind, action).result
        again = check.value("open_conflict", case, list(reversed(found)), kind, action).result
        other_kind = "payment_id_mismatch" if kind != "payment_id_mismatch" else "stale_revision"
        other = check.value("open_conflict", case, found, other_kind, action).result
        ids = [r.get("conflict_id") if type(r) is dict else r for r in (first, again, other)]
        if ids[0] != ids[1] or ids[0] == ids[2]:
            raise Failure(_("open_conflict gave the ids {ids}, {ids2} (same proposals, other order) and {ids3} (kind "
                            "{other_kind}); expected the first two equal and the third different").format(
                              ids=show(ids[0]), ids2=show(ids[1]), ids3=show(ids[2]), other_kind=repr(other_kind)))


@conflicts.rule(N_("resolve_conflict appends one conflict_resolved event naming the conflict, the decision, "
                "who (actor), which rule and what was rejected, and returns the record resolved"))
def conflict_resolution(check):
    @check.forall(case_ids, event_id_sets, picks_one, actors, resolution_rules)
    def resolves(case_id, ids, pick_one, actor, rule):
        conflict = _conflict(case_id, ids)
        decision = ids[-1] if pick_one else "reject_all"
        got = _resolved(check, conflict, _prior(ids), [[decision, actor, rule]])
        added = got["events"][len(ids):]
        expected = model_resolution(conflict, decision, actor, rule)
        call = f"resolve_conflict(stream, conflict, {decision!r}, {actor!r}, {rule!r})"
        if len(added) != 1 or any(added[0].get(key) != value for key, value in expected.items()):
            raise Failure(_("{call} appended {added}; expected one event {expected}").format(
                              call=call, added=show(added), expected=show(expected)))
        result = got["results"][0]
        if type(result) is not dict or result.get("status") != "resolved" or \
                {k: v for k, v in result.items() if k not in ("status", "resolution")} != \
                {k: v for k, v in conflict.items() if k not in ("status", "resolution")} or \
                result.get("resolution") != added[0]:  # the resolution is the event appended, all of it
            raise Failure(_("{call} returned {result}; expected the conflict's record with status 'resolved' and its resolution "
                            "(the event)").format(call=call, result=show(result)))


@conflicts.rule(N_("resolving never rewrites history: earlier events and the conflict passed in stay as they were"))
def conflict_history(check):
    @check.forall(case_ids, event_id_sets, actors)
    def kept(case_id, ids, actor):
        conflict = _conflict(case_id, ids)
        prior = _prior(ids)
        got = _resolved(check, conflict, prior, [["reject_all", actor, "four-eyes"]])
        if got["events"][:len(prior)] != prior:
            raise Failure(_("after resolve_conflict the stream's earlier events are {events}; expected them unchanged, {prior}: "
                            "append what happened, never edit the past").format(events=show(got['events'][:len(prior)]), prior=show(prior)))
        if got["conflict_after"] != conflict:
            raise Failure(_("resolve_conflict changed the conflict passed in to {conflict_after}; return a new record, the open "
                            "one is history").format(conflict_after=show(got['conflict_after'])))


@conflicts.rule(N_("a conflict is resolved once: resolving it again appends nothing and returns the first resolution"))
def conflict_once(check):
    @check.forall(case_ids, event_id_sets)
    def once(case_id, ids):
        conflict = _conflict(case_id, ids)
        got = _resolved(check, conflict, _prior(ids), [["reject_all", "alice", "four-eyes"], [ids[0], "bob", "override"]])
        found = _resolutions(got["events"], conflict["conflict_id"])
        second = got["results"][1] if type(got["results"][1]) is dict else {}
        if len(found) != 1 or (second.get("resolution") or {}).get("actor") != "alice":
            raise Failure(_("alice resolved the conflict, then bob resolved it again: the stream holds {count} conflict_resolved "
                            "events and bob got {get}; expected one event and alice's resolution").format(
                              count=len(found), get=show(second.get('resolution'))))


@conflicts.rule(N_("a resolver that loses the race re-reads the stream and decides again: "
                "the conflict is resolved once, by the winner, never by a blind retry"))
def resolver_race(check):
    @check.forall(case_ids, event_id_sets, actors)
    def interleaved(case_id, ids, me):
        conflict = _conflict(case_id, ids)
        mine, theirs = [ids[0], me, "four-eyes"], ["reject_all", f"{me}-colleague", "risk-first"]
        got = stream_built(check.probe("resolve_interleaved", conflict, _prior(ids), mine, theirs), conflict["stream_id"])
        if isinstance(got, Raised):  # failed, not an error: losing the race must not raise (no_raise would say error)
            raise Failure(_("resolve_conflict raised {sentence} after another resolver committed between its read and its "
                            "append; catch StaleVersion, re-read the stream and decide again").format(sentence=got.sentence()))
        found = _resolutions(got["events"], conflict["conflict_id"])
        resolution = (got["mine"] or {}).get("resolution") if isinstance(got["mine"], dict) else None
        if len(found) != 1 or not isinstance(resolution, dict) or resolution.get("actor") != theirs[1] \
                or resolution.get("decision") != "reject_all":
            raise Failure(_("another resolver ({theirs}, 'reject_all') committed just before {me} appended; the stream then held "
                            "{count} conflict_resolved events and {me} got the resolution {resolution}; expected one event and "
                            "the winner's resolution: on StaleVersion re-read, never retry blindly").format(
                              theirs=repr(theirs[1]), me=repr(me), count=len(found), resolution=show(resolution)))

    @check.forall(event_id_sets, resolver_counts, examples=check.budget("threads"))
    def threads(ids, count):
        conflict = _conflict("race", ids)
        calls = [[ids[0] if n % 2 else "reject_all", f"resolver-{n}", "four-eyes"] for n in range(count)]
        got = stream_built(check.probe("resolve_threads", conflict, _prior(ids), calls, limit=10.0), conflict["stream_id"])
        found = _resolutions(got["events"], conflict["conflict_id"])
        # A thread's answer: {"result": the record it returned, or what it raised}; None if it never finished.
        answers = [{"raised": a["result"].type} if a and isinstance(a["result"], Raised) else a for a in got["results"]]
        if len(found) != 1 or any(not a or "result" not in a for a in answers):
            raise Failure(_("{count} threads resolved the same conflict at once: the stream holds {count2} conflict_resolved "
                            "events, answers {answers}; expected exactly one resolution").format(
                              count=count, count2=len(found), answers=show(answers)))
