"""Part D tasks: the rules of ``agstate/branches.py``, one check per rule (LAB-SPEC §6)."""

import itertools

from hypothesis import strategies as st

from grader.checking import Failure, Raised, show
from grader.parts.branches.model import (
    APPROVAL,
    BRANCHES,
    PROPOSAL_TYPES,
    REJECTION,
    TABLE_KINDS,
    UNKNOWN_TYPES,
    case_ids,
    classify_cases,
    colliding_pair,
    consistent_lists,
    currents,
    model_classify,
    model_refund,
    model_union,
    proposals,
    refund_cases,
    table_rows,
)
from grader.parts.state.model import expect_pure, expect_value
from grader.tasks import task


def _text(name: str, args) -> str:
    return f"{name}({', '.join(show(a) for a in args)})"


def _is_raised(answer) -> bool:
    return isinstance(answer, dict) and "raised" in answer


def catching(check, name: str, args: list, attrs=(), pure: bool = True):
    """``name(*args)`` through ``call_catching``: a result, or the raised exception with ``attrs``.

    ``pure``: changed arguments fail the rule (rules about laws leave that to the purity rule).
    """
    answer = check.probe("call_catching", name, list(args), list(attrs))
    if pure and answer["args_after"] != answer["args_before"]:
        raise Failure(f"{_text(name, args)} changed its arguments to {show(answer['args_after'])}; it must never mutate them")
    return answer


def expect_raises(check, name: str, args: list, error: str, attrs: dict, why: str):
    """``name(*args)`` raises ``error`` (or a subclass) carrying exactly ``attrs``."""
    answer = catching(check, name, args, list(attrs))
    if not _is_raised(answer) or error not in answer["mro"]:
        got = answer.get("raised") or show(answer.get("result"))
        raise Failure(f"{_text(name, args)} gave {got}; expected {error}: {why}",
                      {"call": name, "args": list(args), "expected": error, "got": got})
    if answer["attrs"] != attrs:
        raise Failure(f"{_text(name, args)} raised {error} with {show(answer['attrs'])}; expected {show(attrs)}")


def expect_records(check, name: str, args: list, expected):
    """A call returning exactly ``expected`` (a list of records); an exception is the learner's error."""
    call = check.value(name, *args)
    if type(call.result) is not list or call.result != expected:
        raise Failure(f"{call.text()} returned {show(call.result)}; expected {show(expected)}", call.counterexample(expected))
    return call.result


# -- branches.merge_evidence --------------------------------------------------------------------
merge_task = task("branches.merge_evidence")


@merge_task.rule("merge_evidence returns the union of both lists by id, sorted by id")
def merge_union(check):
    @check.forall(consistent_lists(2))
    def union(lists):
        expect_records(check, "merge_evidence", lists, model_union(*lists))


@merge_task.rule("the same id with identical content is kept once, also when one list repeats it")
def merge_identical(check):
    @check.forall(consistent_lists(2), first=([[{"id": "e1", "v": 1}], [{"id": "e1", "v": 1}]],))
    def kept_once(lists):
        left, right = lists
        expect_records(check, "merge_evidence", [left + right, right + left], model_union(left, right))


@merge_task.rule("the same id with different content raises EvidenceCollision naming the id (its evidence_id)")
def merge_collision(check):
    @check.forall(colliding_pair())
    def collides(pair):
        left, right, shared = pair
        expect_raises(check, "merge_evidence", [left, right], "EvidenceCollision", {"evidence_id": shared},
                      f"two branches disagree about {shared!r} and nobody may pick one silently")


@merge_task.rule("merge_evidence returns a new list and never mutates its arguments")
def merge_pure(check):
    @check.forall(consistent_lists(2))
    def pure(lists):
        expect_pure(check, "merge_evidence", *lists)


# -- branches.laws ---------------------------------------------------------------------------------
laws = task("branches.laws")


def merged(check, left, right):
    return check.value("merge_evidence", left, right).result


@laws.rule("commutative: merge_evidence(a, b) == merge_evidence(b, a), so completion order cannot matter")
def law_commutative(check):
    @check.forall(consistent_lists(2))
    def commutes(lists):
        a, b = lists
        ab, ba = merged(check, a, b), merged(check, b, a)
        if ab != ba:
            raise Failure(f"merge_evidence({show(a)}, {show(b)}) is {show(ab)} but merge_evidence({show(b)}, {show(a)}) "
                          f"is {show(ba)}; the order branches finish in must not matter (commutative)")

    @check.forall(colliding_pair())
    def both_raise(pair):
        a, b, _ = pair
        outcomes = [catching(check, "merge_evidence", args, [], pure=False) for args in ([a, b], [b, a])]
        if _is_raised(outcomes[0]) != _is_raised(outcomes[1]) or \
                (not _is_raised(outcomes[0]) and outcomes[0]["result"] != outcomes[1]["result"]):
            shown = ["raises " + o["raised"] if _is_raised(o) else "returns " + show(o["result"]) for o in outcomes]
            raise Failure(f"merge_evidence({show(a)}, {show(b)}) {shown[0]} but with the arguments swapped it {shown[1]}; "
                          "a collision must be a collision whichever branch finished first (commutative)")


@laws.rule("associative: merging (a, b) then c equals merging a with (b, c)")
def law_associative(check):
    @check.forall(consistent_lists(3))
    def associates(lists):
        a, b, c = lists
        left = merged(check, merged(check, a, b), c)
        right = merged(check, a, merged(check, b, c))
        if left != right:
            raise Failure(f"merge_evidence(merge_evidence(a, b), c) is {show(left)} but merge_evidence(a, merge_evidence(b, c)) "
                          f"is {show(right)} for a={show(a)}, b={show(b)}, c={show(c)} (associative)")


@laws.rule("idempotent: merging a result again, or redelivering a branch's evidence, changes nothing")
def law_idempotent(check):
    @check.forall(consistent_lists(2))
    def idempotent(lists):
        a, b = lists
        m = merged(check, a, b)
        for again, text in ((merged(check, m, m), "merge_evidence(m, m)"), (merged(check, m, b), f"merge_evidence(m, {show(b)})")):
            if again != m:
                raise Failure(f"with m = merge_evidence({show(a)}, {show(b)}) = {show(m)}, {text} is {show(again)}; "
                              "a redelivered result must change nothing (idempotent)")


# -- branches.write_once ------------------------------------------------------------------------------
write_once_task = task("branches.write_once")
_values = st.one_of(st.text(max_size=5), st.integers(-5, 5), st.sampled_from(["approved", "rejected", 0, "", False]),
                    st.lists(st.integers(0, 3), max_size=3))


@write_once_task.rule("write_once(None, new) takes the new value")
def once_from_none(check):
    @check.forall(_values)
    def takes(new):
        expect_value(check, "write_once", (None, new), new)


@write_once_task.rule("an equal value keeps the stored one (a redelivered write is harmless)")
def once_equal(check):
    @check.forall(_values)
    def keeps(value):
        expect_value(check, "write_once", (value, value), value)


@write_once_task.rule("a different value raises WriteOnceViolation carrying old and new")
def once_different(check):
    @check.forall(_values, _values)
    @check.forall(_values, _values, first=("approved", "rejected"))
    def raises(old, new):
        if old == new:  # equal (0 == False too): kept, another rule's case
            return
        expect_raises(check, "write_once", [old, new], "WriteOnceViolation", {"old": old, "new": new},
                      "a write-once value never changes")


@write_once_task.rule("in a graph, writers of one value agree, a different value raises, a redelivered write changes nothing")
def once_in_graph(check):
    decisions = st.sampled_from(["approved", "rejected"])

    @check.forall(st.lists(st.lists(decisions, min_size=1, max_size=3), min_size=1, max_size=3),
                  examples=check.budget("graph"), first=([["approved"], ["approved", "approved"]],))
    def folds(steps):
        got = check.probe("write_once_graph", steps)
        values = {value for step in steps for value in step}
        described = "; ".join(f"step {n}: {', '.join(map(repr, step))}" for n, step in enumerate(steps, 1))
        if len(values) == 1:
            if got.get("value") != steps[0][0]:
                raise Failure(f"a graph with Annotated[str | None, write_once] and writes {described} gave "
                              f"{got.get('raised') or show(got.get('value'))}; expected {steps[0][0]!r}: every writer agreed")
        elif "WriteOnceViolation" not in got.get("mro", []):
            raise Failure(f"a graph with Annotated[str | None, write_once] and writes {described} gave "
                          f"{got.get('raised') or show(got.get('value'))}; expected WriteOnceViolation: the writers disagree")


# -- branches.classify ----------------------------------------------------------------------------------
classify = task("branches.classify")


def expect_verdict(check, current, proposal):
    call = check.value("classify_proposal", current, proposal)
    expected, got = model_classify(current, proposal), call.result
    wrong = type(got) is not dict or got.get("status") != expected["status"] or got.get("reason", "<no reason key>") != expected["reason"]
    extras = {key: value for key, value in expected.items() if key not in ("status", "reason")}
    wrong = wrong or any(got.get(key) != value for key, value in extras.items())
    if wrong:
        raise Failure(f"{call.text()} returned {show(got)}; expected {show(expected)} "
                      f"(case revision {current['revision']}, payment {current['payment_id']!r}, risk {current['risk_level']!r}, "
                      f"effects applied {current['effects_applied']})", call.counterexample(expected))
    if call.args_after != [current, proposal]:
        raise Failure(f"{call.text()} changed its arguments; classifying must never mutate the case or the proposal")


def table_first(check, types, stale=False):
    """The table's hand-picked rows of these proposal types, checked before the random cases."""
    for current, proposal in table_rows():
        if proposal["type"] in types and (proposal["expected_revision"] != current["revision"]) == stale:
            expect_verdict(check, current, proposal)


# A call costs microseconds: the table gets more random cases than other rules.


@classify.rule("rule 1 comes first: an expected_revision other than the case's revision is a conflict "
               "stale_revision with current_revision, whatever the proposal")
def classify_stale(check):
    table_first(check, PROPOSAL_TYPES, stale=True)

    @check.forall(currents(), proposals(PROPOSAL_TYPES + UNKNOWN_TYPES), st.sampled_from([-2, -1, 1, 3]),
                  examples=check.budget("table"))
    def stale(current, proposal, offset):
        expect_verdict(check, current, {**proposal, "expected_revision": current["revision"] + offset})


@classify.rule("evidence_added is accepted; payment_found conflicts with a different known payment id "
               "(payment_id_mismatch); risk_assessed needs a level in RISK_LEVELS (else rejected invalid_risk_level)")
def classify_facts(check):
    table_first(check, ("evidence_added", "payment_found", "risk_assessed"))

    @check.forall(classify_cases(("evidence_added", "payment_found", "risk_assessed")), examples=check.budget("table"))
    def facts(case):
        expect_verdict(check, *case)


@classify.rule("an approval is checked in order: effect already applied, high risk (with required_inputs), "
               "no payment id, amount above the payment; else accepted")
def classify_approval(check):
    table_first(check, (APPROVAL,))

    @check.forall(classify_cases((APPROVAL,)), examples=check.budget("table"))
    def approval(case):
        expect_verdict(check, *case)


@classify.rule("a rejection conflicts only when effects were applied; any other type is rejected unknown_proposal_type")
def classify_rejection(check):
    table_first(check, (REJECTION, "refund_requested"))

    @check.forall(classify_cases((REJECTION, *UNKNOWN_TYPES)), examples=check.budget("table"))
    def rejection(case):
        expect_verdict(check, *case)


# -- branches.optimistic --------------------------------------------------------------------------------
optimistic = task("branches.optimistic")
_events = st.fixed_dictionaries({"type": st.sampled_from(["evidence_added", "payment_found", "note"]),
                                 "n": st.integers(0, 9)})


def _stream_outcome(outcome) -> str:
    return f"raised {outcome['raised']}" if "raised" in outcome else f"returned {show(outcome['returned'])}"


@optimistic.rule("append at the current version returns the new version; events() lists copies, oldest first")
def stream_appends(check):
    @check.forall(case_ids, st.lists(_events, min_size=1, max_size=5))
    def appends(stream_id, events):
        got = check.probe("stream_script", stream_id, [[event, number] for number, event in enumerate(events)])
        for number, (event, outcome) in enumerate(zip(events, got["outcomes"])):
            if outcome.get("returned") != number + 1 or outcome["version"] != number + 1:
                raise Failure(f"on a stream at version {number}, append({show(event)}, expected_version={number}) "
                              f"{_stream_outcome(outcome)} and left version {outcome['version']}; expected {number + 1} both")
        if got["events"] != events:
            raise Failure(f"after appending {show(events)}, events() returned {show(got['events'])}; expected them in order")
        if got["events_after_tampering"] != events:
            raise Failure("changing an event after appending it, or a list events() returned, changed the stream's history "
                          f"to {show(got['events_after_tampering'])}; store and return copies")


@optimistic.rule("an append at any other version raises StaleVersion(expected, actual) and appends nothing")
def stream_stale(check):
    @check.forall(st.lists(st.tuples(_events, st.sampled_from([0, 0, -1, 1, 2])), min_size=1, max_size=6))
    def stale(script):
        appends, version = [], 0
        for event, offset in script:
            appends.append([event, version + offset])
            version += offset == 0
        got = check.probe("stream_script", "case", appends)
        version = 0
        for (event, expected), outcome in zip(appends, got["outcomes"]):
            call = f"append({show(event)}, expected_version={expected}) on a stream at version {version}"
            if expected == version:
                version += 1
                if outcome.get("returned") != version:
                    raise Failure(f"{call} {_stream_outcome(outcome)}; expected {version}")
            elif "StaleVersion" not in outcome.get("mro", []):
                raise Failure(f"{call} {_stream_outcome(outcome)}; expected StaleVersion: "
                              "someone else appended since you read the stream")
            elif outcome["attrs"] != {"expected": expected, "actual": version} or outcome["version"] != version:
                raise Failure(f"{call} raised StaleVersion with {show(outcome['attrs'])} and left version "
                              f"{outcome['version']}; expected expected={expected}, actual={version}, nothing appended")


@optimistic.rule("threads racing to append at the same version: exactly one wins, the others get StaleVersion")
def stream_race(check):
    @check.forall(st.integers(2, 6), examples=check.budget("threads"))
    def race(writers):
        got = check.probe("stream_race", writers, 25, limit=10.0)
        for number, round_ in enumerate(got["rounds"]):
            wins = [r for r in round_["results"] if r and "returned" in r]
            stale = [r for r in round_["results"] if r and "StaleVersion" in r.get("mro", [])]
            if len(wins) != 1 or len(stale) != writers - 1 or round_["version"] != round_["expected"] + 1:
                raise Failure(f"{writers} threads appended at version {round_['expected']} at once (round {number + 1}): "
                              f"{len(wins)} won, {len(stale)} got StaleVersion, the stream went to version {round_['version']}; "
                              "expected exactly one winner: compare and append in one step (a lock)")


def _conflict(case_id, ids, revision=2):
    return {"conflict_id": f"{case_id}:approval_conflicts_with_high_risk:{revision}", "stream_id": case_id, "status": "open",
            "kind": "approval_conflicts_with_high_risk", "current_revision": revision, "proposals": sorted(ids),
            "required_action": "human override or rejection", "resolution": None}


def _resolutions(events, conflict_id):
    return [e for e in events if isinstance(e, dict) and e.get("type") == "conflict_resolved" and e.get("conflict_id") == conflict_id]


def _prior(ids):
    return [{"type": APPROVAL, "event_id": event_id} for event_id in ids]


_ids = st.lists(case_ids, min_size=1, max_size=3, unique=True)


# -- branches.conflicts ----------------------------------------------------------------------------------
conflicts = task("branches.conflicts")
RECORD_KEYS = ["conflict_id", "current_revision", "kind", "proposals", "required_action", "resolution", "status", "stream_id"]
_kinds = st.sampled_from(TABLE_KINDS)


@st.composite
def conflict_inputs(draw):
    case = {"case_id": draw(case_ids), "revision": draw(st.integers(0, 9)), "payment_id": None, "payment_amount": None,
            "risk_level": "high", "effects_applied": False, "decision": None}
    found = [draw(proposals((APPROVAL, REJECTION), case["revision"])) for _ in range(draw(st.integers(1, 3)))]
    unique = list({p["event_id"]: p for p in found}.values())
    return case, unique, draw(_kinds), draw(st.sampled_from(["human override or rejection", "confirm the payment"]))


@conflicts.rule("open_conflict returns a record, never an error string: conflict_id, stream_id, status 'open', kind, "
                "current_revision, proposals (their event ids, sorted), required_action, resolution None")
def conflict_record(check):
    @check.forall(conflict_inputs())
    def record(inputs):
        case, found, kind, action = inputs
        call = check.value("open_conflict", case, found, kind, action)
        got = call.result
        if type(got) is not dict:
            raise Failure(f"{call.text()} returned {show(got)}; expected a record (a dict): a conflict is data the "
                          "graph keeps and a person resolves, not an error message", call.counterexample("a dict"))
        expected = {"stream_id": case["case_id"], "status": "open", "kind": kind, "current_revision": case["revision"],
                    "proposals": sorted(p["event_id"] for p in found), "required_action": action, "resolution": None}
        wrong = {key: got.get(key) for key, value in expected.items() if got.get(key) != value}
        if sorted(got) != RECORD_KEYS or wrong or type(got.get("conflict_id")) is not str or not got["conflict_id"]:
            raise Failure(f"{call.text()} returned {show(got)}; expected exactly the keys {RECORD_KEYS} with {show(expected)} "
                          f"and a non-empty str conflict_id" + (f" (wrong: {show(wrong)})" if wrong else ""))
        if call.args_after != [case, found, kind, action]:
            raise Failure(f"{call.text()} changed its arguments; open_conflict must not mutate the case or the proposals")


@conflicts.rule("the same conflict always gets the same conflict_id; another kind gets another one")
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
            raise Failure(f"open_conflict gave the ids {show(ids[0])}, {show(ids[1])} (same proposals, other order) and "
                          f"{show(ids[2])} (kind {other_kind!r}); expected the first two equal and the third different")


def _resolved(check, conflict, prior, calls):
    got = check.probe("resolve_sequence", conflict, prior, calls)
    if isinstance(got, Raised):
        raise Failure(f"resolve_conflict(stream, {show(conflict)}, ...) raised {got.sentence()}", status="error")
    return got


@conflicts.rule("resolve_conflict appends one conflict_resolved event naming the conflict, the decision, "
                "who (actor), which rule and what was rejected, and returns the record resolved")
def conflict_resolution(check):
    @check.forall(case_ids, _ids, st.booleans(), st.sampled_from(["alice", "bob"]), st.sampled_from(["four-eyes", "risk-first"]))
    def resolves(case_id, ids, pick_one, actor, rule):
        conflict = _conflict(case_id, ids)
        decision = ids[-1] if pick_one else "reject_all"
        got = _resolved(check, conflict, _prior(ids), [[decision, actor, rule]])
        added = got["events"][len(ids):]
        expected = {"type": "conflict_resolved", "conflict_id": conflict["conflict_id"], "decision": decision,
                    "actor": actor, "rule": rule, "rejected": [i for i in sorted(ids) if i != decision]}
        call = f"resolve_conflict(stream, conflict, {decision!r}, {actor!r}, {rule!r})"
        if len(added) != 1 or any(added[0].get(key) != value for key, value in expected.items()):
            raise Failure(f"{call} appended {show(added)}; expected one event {show(expected)}")
        result = got["results"][0]
        if type(result) is not dict or result.get("status") != "resolved" or \
                {k: v for k, v in result.items() if k not in ("status", "resolution")} != \
                {k: v for k, v in conflict.items() if k not in ("status", "resolution")} or \
                not isinstance(result.get("resolution"), dict) or result["resolution"].get("decision") != decision:
            raise Failure(f"{call} returned {show(result)}; expected the conflict's record with status 'resolved' "
                          "and its resolution (the event)")


@conflicts.rule("resolving never rewrites history: earlier events and the conflict passed in stay as they were")
def conflict_history(check):
    @check.forall(case_ids, _ids, st.sampled_from(["alice", "bob"]))
    def kept(case_id, ids, actor):
        conflict = _conflict(case_id, ids)
        prior = _prior(ids)
        got = _resolved(check, conflict, prior, [["reject_all", actor, "four-eyes"]])
        if got["events"][:len(prior)] != prior:
            raise Failure(f"after resolve_conflict the stream's earlier events are {show(got['events'][:len(prior)])}; "
                          f"expected them unchanged, {show(prior)}: append what happened, never edit the past")
        if got["conflict_after"] != conflict:
            raise Failure(f"resolve_conflict changed the conflict passed in to {show(got['conflict_after'])}; "
                          "return a new record, the open one is history")


@conflicts.rule("a conflict is resolved once: resolving it again appends nothing and returns the first resolution")
def conflict_once(check):
    @check.forall(case_ids, _ids)
    def once(case_id, ids):
        conflict = _conflict(case_id, ids)
        got = _resolved(check, conflict, _prior(ids), [["reject_all", "alice", "four-eyes"], [ids[0], "bob", "override"]])
        found = _resolutions(got["events"], conflict["conflict_id"])
        second = got["results"][1] if type(got["results"][1]) is dict else {}
        if len(found) != 1 or (second.get("resolution") or {}).get("actor") != "alice":
            raise Failure(f"alice resolved the conflict, then bob resolved it again: the stream holds {len(found)} "
                          f"conflict_resolved events and bob got {show(second.get('resolution'))}; expected one event "
                          "and alice's resolution")


@conflicts.rule("a resolver that loses the race re-reads the stream and decides again: "
                 "the conflict is resolved once, by the winner, never by a blind retry")
def resolver_race(check):
    @check.forall(case_ids, _ids, st.sampled_from(["alice", "bob"]))
    def interleaved(case_id, ids, me):
        conflict = _conflict(case_id, ids)
        mine, theirs = [ids[0], me, "four-eyes"], ["reject_all", f"{me}-colleague", "risk-first"]
        got = check.probe("resolve_interleaved", conflict, _prior(ids), mine, theirs)
        if isinstance(got, Raised):
            raise Failure(f"resolve_conflict raised {got.sentence()} after another resolver committed between its read "
                          "and its append; catch StaleVersion, re-read the stream and decide again")
        found = _resolutions(got["events"], conflict["conflict_id"])
        resolution = (got["mine"] or {}).get("resolution") if isinstance(got["mine"], dict) else None
        if len(found) != 1 or not isinstance(resolution, dict) or resolution.get("actor") != theirs[1] \
                or resolution.get("decision") != "reject_all":
            raise Failure(f"another resolver ({theirs[1]!r}, 'reject_all') committed just before {me!r} appended; the stream "
                          f"then held {len(found)} conflict_resolved events and {me!r} got the resolution {show(resolution)}; "
                          f"expected one event and the winner's resolution: on StaleVersion re-read, never retry blindly")

    @check.forall(_ids, st.integers(2, 5), examples=check.budget("threads"))
    def threads(ids, count):
        conflict = _conflict("race", ids)
        calls = [[ids[0] if n % 2 else "reject_all", f"resolver-{n}", "four-eyes"] for n in range(count)]
        got = check.probe("resolve_threads", conflict, _prior(ids), calls, limit=10.0)
        found = _resolutions(got["events"], conflict["conflict_id"])
        if len(found) != 1 or any(not r or "result" not in r for r in got["results"]):
            raise Failure(f"{count} threads resolved the same conflict at once: the stream holds {len(found)} "
                          f"conflict_resolved events, answers {show(got['results'])}; expected exactly one resolution")


# -- branches.order_independent ------------------------------------------------------------------------
order_task = task("branches.order_independent")
OUTPUT_KEYS = ["case", "conflicts", "effects_done", "events", "evidence", "proposals"]
PERMUTATIONS = [list(order) for order in itertools.permutations(BRANCHES)]
# Each branch delivered twice: at once, and again after the others.
DUPLICATED = [[name, name, *[b for b in BRANCHES if b != name]] for name in BRANCHES] + \
             [[*BRANCHES[::-1], name] for name in BRANCHES]
_FRESH = {"case_id": "R1", "revision": 3, "payment_id": None, "payment_amount": None, "risk_level": None,
          "effects_applied": False, "decision": None}


def _signals(payment_id="P-1", payment_amount=80, risk_level="low", requested_amount=50, policy_ok=True):
    return {"payment_id": payment_id, "payment_amount": payment_amount, "risk_level": risk_level,
            "requested_amount": requested_amount, "policy_ok": policy_ok}


_HIGH_RISK = (_FRESH, _signals(risk_level="high"))
# One case per outcome of the table, checked before the random ones: rare rows are never left to chance.
FIXED_REFUNDS = [_HIGH_RISK, (_FRESH, _signals()), (_FRESH, _signals(risk_level="unknown")),
                 (_FRESH, _signals(payment_id=None)), (_FRESH, _signals(requested_amount=81)),
                 (_FRESH, _signals(requested_amount=80, risk_level="medium")), (_FRESH, _signals(policy_ok=False))]


def _graph_text(case, signals) -> str:
    return f"build_refund_graph(effects).invoke({{'case': {show(case)}, 'signals': {show(signals)}}})"


def refund_runs(check, case, signals, orders):
    got = check.probe("refund_orders", case, signals, orders, limit=10.0)
    if isinstance(got, Raised):
        raise Failure(f"{_graph_text(case, signals)} raised {got.sentence()}", status="error")
    if got["missing_branches"]:
        raise Failure(f"{_graph_text(case, signals)} never ran the branch nodes {got['missing_branches']}; "
                      f"expected the nodes {list(BRANCHES)} in parallel")
    return got


def expect_decided(case, signals, output) -> None:
    """The plain run's output against the model of the decision table."""
    text = _graph_text(case, signals)
    if type(output) is not dict or sorted(output) != OUTPUT_KEYS:
        keys = sorted(output) if type(output) is dict else output
        raise Failure(f"{text} returned the keys {show(keys)}; expected exactly {OUTPUT_KEYS}")
    expected = model_refund(case, signals)
    if output["case"] != expected["case"]:
        raise Failure(f"{text} left the case {show(output['case'])}; expected {show(expected['case'])}",
                      {"call": "build_refund_graph", "args": [case, signals], "expected": expected["case"], "got": output["case"]})
    by_id = {p.get("event_id"): (p.get("actor"), p.get("type")) for p in output["proposals"] if isinstance(p, dict)}
    if sorted(by_id.values()) != expected["proposals"] or [p.get("event_id") for p in output["proposals"]] != sorted(by_id):
        raise Failure(f"{text} kept the proposals {show(output['proposals'])}; expected one per (actor, type) "
                      f"{show(expected['proposals'])}, sorted by event_id")
    records = output["conflicts"]
    if type(records) is not list or not all(type(r) is dict and r.get("status") == "open" and r.get("resolution") is None
                                            and isinstance(r.get("proposals"), list) for r in records):
        raise Failure(f"{text} gave conflicts {show(records)}; expected conflict records (dicts with status 'open', "
                      "proposals, resolution None), never error strings")
    kinds = {}
    for record in records:
        if record.get("kind") in TABLE_KINDS:
            kinds.setdefault(record["kind"], []).extend(by_id.get(i) for i in record["proposals"])
    kinds = {kind: sorted(who) for kind, who in sorted(kinds.items())}
    if kinds != expected["conflicts"]:
        raise Failure(f"{text} recorded the conflicts {show(kinds)} (kind: [(actor, type)]); expected {show(expected['conflicts'])}")
    ids = [e.get("id") if isinstance(e, dict) else e for e in output["evidence"]]
    if ids != sorted(set(ids), key=str):
        raise Failure(f"{text} kept the evidence ids {show(ids)}; expected each id once, sorted (merge_evidence)")
    types = [e.get("type") for e in output["events"] if isinstance(e, dict)]
    if types != expected["events"]:
        raise Failure(f"{text} left the events {show(types)}; expected {expected['events']}")


@order_task.rule("decide follows the table: facts first, then decisions against the case with the facts applied; "
                 "conflicts become records; a high-risk case is never approved")
def graph_decides(check):
    def decided(inputs):
        case, signals = inputs
        expect_decided(case, signals, refund_runs(check, case, signals, [])["plain"]["output"])

    for inputs in FIXED_REFUNDS:  # small hand-picked cases first: their failure needs no shrinking
        decided(inputs)
    check.forall(refund_cases(), examples=check.budget("refund"))(decided)


def _same_everywhere(check, case, signals, orders, what: str):
    got = refund_runs(check, case, signals, PERMUTATIONS + DUPLICATED)
    plain = got["plain"]
    for run in got["runs"]:
        same_ledger = sorted(map(str, run["ledger"])) == sorted(map(str, plain["ledger"]))
        if run["order"] in orders and (run["output"] != plain["output"] or not same_ledger):
            differs = sorted(k for k in OUTPUT_KEYS if (run["output"] or {}).get(k) != plain["output"].get(k)) or ["effects run"]
            raise Failure(f"{_graph_text(case, signals)}: with the branch results delivered {what} {run['order']}, "
                          f"{', '.join(differs)} came out different: {show({k: (run['output'] or {}).get(k) for k in differs})} "
                          f"instead of {show({k: plain['output'].get(k) for k in differs})}")


@order_task.rule("the output is the same in every completion order of the four branches")
def graph_every_order(check):
    @check.forall(refund_cases(), examples=check.budget("run"), first=(_HIGH_RISK,))
    def every_order(inputs):
        case, signals = inputs
        _same_everywhere(check, case, signals, PERMUTATIONS, "in the order")


@order_task.rule("a branch result delivered twice changes nothing")
def graph_duplicates(check):
    @check.forall(refund_cases(), examples=check.budget("run"), first=(_HIGH_RISK,))
    def duplicated(inputs):
        case, signals = inputs
        _same_everywhere(check, case, signals, DUPLICATED, "with one twice:")


# -- branches.effects_once ------------------------------------------------------------------------------
effects_task = task("branches.effects_once")
_APPROVABLE = st.fixed_dictionaries({"payment_id": st.sampled_from(["P-1", "pay_9"]), "payment_amount": st.integers(100, 500),
                                     "risk_level": st.sampled_from(["low", "medium"]), "requested_amount": st.integers(0, 100),
                                     "policy_ok": st.just(True)})


def _calls(ledger):
    return sorted((c.get("effect"), c.get("key")) for c in ledger)


@effects_task.rule("an approved refund runs each effect once with idempotency key f'{case_id}:{effect_name}' and the case; "
                   "a refund not approved runs none")
def effects_run(check):
    def once(inputs):
        case, signals = inputs
        plain = refund_runs(check, case, signals, [])["plain"]
        expected = model_refund(case, signals)
        wanted = sorted((key.rsplit(":", 1)[1], key) for key in expected["effects_done"])
        if _calls(plain["ledger"]) != wanted or any(c.get("case_id") != case["case_id"] for c in plain["ledger"]):
            raise Failure(f"{_graph_text(case, signals)} ran the effects {show(plain['ledger'])}; expected {show(wanted)} "
                          f"(effect, idempotency key), each called with the case "
                          f"({'approved' if wanted else 'not approved: no email, no transfer'})")
        done = plain["output"].get("effects_done") if isinstance(plain["output"], dict) else None
        if sorted(done or []) != expected["effects_done"]:
            raise Failure(f"{_graph_text(case, signals)} left effects_done {show(done)}; expected {expected['effects_done']}")

    for inputs in FIXED_REFUNDS:
        once(inputs)
    check.forall(refund_cases(), examples=check.budget("refund"))(once)


def _redelivered(check, how: str, what: str):
    @check.forall(case_ids, _APPROVABLE, examples=check.budget("run"))
    def redelivered(case_id, signals):
        case = {"case_id": case_id, "revision": 0, "payment_id": None, "payment_amount": None, "risk_level": None,
                "effects_applied": False, "decision": None}
        got = check.probe("refund_redelivered", case, signals, how, limit=10.0)
        if isinstance(got, Raised):
            raise Failure(f"{what} raised {got.sentence()}", status="error")
        wanted = sorted((name, f"{case_id}:{name}") for name in ("create_transfer", "send_email"))
        if _calls(got["ledger"]) != wanted:
            raise Failure(f"{_graph_text(case, signals)} approved the refund, then {what}: the effects ran "
                          f"{show(_calls(got['ledger']))}; expected each once, {show(wanted)}: skip keys already done")


@effects_task.rule("a redelivered approval_confirmed runs no effect again")
def effects_confirmation(check):
    _redelivered(check, "confirmation", "decide's write (the confirmation) was delivered again")


@effects_task.rule("a retried request on the same thread runs no effect again")
def effects_retried(check):
    _redelivered(check, "input", "the same request was invoked again on the same thread")
