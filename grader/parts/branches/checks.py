"""Part D's judging helpers: the checks several rules share, each raising ``Failure`` with the learner's words.

Calls that may raise on purpose (a collision, a violation, a stale version)
come back as a value or a ``Raised``; ``expect_*`` compare them with the
model (``model.py``). The refund graph's helpers run and judge the plain run
and the runs in other delivery orders.
"""

from collections import Counter

from grader.engine.checking import Counterexample, Failure, Raised, no_raise
from grader.engine.showing import contrast, show
from grader.i18n import _
from grader.parts.branches.model import BRANCHES, OUTPUT_KEYS, model_classify, model_refund, table_rows
from grader.parts.branches.strategies import DUPLICATED, PERMUTATIONS


def _text(name: str, args) -> str:
    return f"{name}({', '.join(show(a) for a in args)})"


# -- calls that may raise -------------------------------------------------------------------
def catching(check, name: str, args: list, attrs=(), pure: bool = True):
    """``name(*args)`` through ``call_catching``: its result, or a ``Raised`` with the exception's ``attrs``.

    ``pure``: changed arguments fail the rule (rules about laws leave that to the purity rule).
    """
    answer = check.probe("call_catching", name, list(args), list(attrs))
    if pure and answer["args_after"] != answer["args_before"]:
        raise Failure(_("{text} changed its arguments to {args_after}; it must never mutate them").format(
                          text=_text(name, args), args_after=show(answer['args_after'])))
    return answer["result"]


def stream_built(got, stream_id: str):
    """A stream probe's reply, unless building the learner's ``CaseStream(stream_id)`` raised: that is the rule's error."""
    if isinstance(got, dict) and "stream_raised" in got:
        no_raise(got["stream_raised"], f"CaseStream({stream_id!r})", hint=_("nothing could be appended to it"))
    return got


def on_a_stream(check, stream_id: str, probe: str, *args, limit: float | None = None) -> dict:
    """Run a probe on the learner's own stream; building it, or anything else of it, raising is the rule's error."""
    got = stream_built(check.probe(probe, *args, limit=limit), stream_id)
    return no_raise(got, _("a CaseStream({stream_id}) being appended to").format(stream_id=repr(stream_id)))


def outcome_text(outcome) -> str:
    """``"raised StaleVersion"`` or ``"returned 3"``: what one call did, in feedback's words."""
    return f"raised {outcome.type}" if isinstance(outcome, Raised) else f"returned {show(outcome)}"


def expect_raises(check, name: str, args: list, error: str, attrs: dict, why: str):
    """``name(*args)`` raises ``error`` (or a subclass) carrying exactly ``attrs``."""
    got = catching(check, name, args, list(attrs))
    if not (isinstance(got, Raised) and got.is_a(error)):
        gave = got.type if isinstance(got, Raised) else show(got)
        raise Failure(_("{text} gave {gave}; expected {error}: {why}").format(
                          text=_text(name, args), gave=gave, error=error, why=why), Counterexample(name, list(args), error, gave))
    if got.attrs != attrs:
        shown, wanted = contrast(got.attrs, attrs)
        raise Failure(_("{text} raised {error} with {shown}; expected {wanted}").format(
                          text=_text(name, args), error=error, shown=shown, wanted=wanted))


def expect_records(check, name: str, args: list, expected):
    """A call returning exactly ``expected`` (a list of records); an exception is the learner's error."""
    call = check.value(name, *args)
    if type(call.result) is not list or call.result != expected:
        gave, wanted = contrast(call.result, expected)
        raise Failure(_("{text} returned {gave}; expected {wanted}").format(text=call.text(), gave=gave, wanted=wanted),
                      call.counterexample(expected))
    return call.result


# -- the decision table --------------------------------------------------------------------------
def expect_verdict(check, current, proposal):
    """``classify_proposal`` gives the table's status, reason and extra facts, and mutates nothing."""
    call = check.value("classify_proposal", current, proposal)
    expected, got = model_classify(current, proposal), call.result
    wrong = type(got) is not dict or got.get("status") != expected["status"] or got.get("reason", "<no reason key>") != expected["reason"]
    extras = {key: value for key, value in expected.items() if key not in ("status", "reason")}
    wrong = wrong or any(got.get(key) != value for key, value in extras.items())
    if wrong:
        shown, wanted = contrast(got, expected)
        raise Failure(_("{text} returned {shown}; expected {wanted} (case revision {revision}, payment {payment_id}, risk "
                        "{risk_level}, effects applied {effects_applied})").format(
                          text=call.text(), shown=shown, wanted=wanted, revision=current['revision'],
                          payment_id=repr(current['payment_id']), risk_level=repr(current['risk_level']),
                          effects_applied=current['effects_applied']), call.counterexample(expected))
    if call.args_after != [current, proposal]:
        raise Failure(_("{text} changed its arguments; classifying must never mutate the case or the proposal").format(text=call.text()))


def table_first(check, types, stale=False):
    """The table's hand-picked rows of these proposal types, checked before the random cases."""
    @check.each([(current, proposal) for current, proposal in table_rows()
                 if proposal["type"] in types and (proposal["expected_revision"] != current["revision"]) == stale])
    def row(current, proposal):
        expect_verdict(check, current, proposal)


# -- the refund graph ------------------------------------------------------------------------------
def graph_text(case, signals) -> str:
    return f"build_refund_graph(effects).invoke({{'case': {show(case)}, 'signals': {show(signals)}}})"


def refund_runs(check, case, signals, orders):
    """The plain run and one run per delivery order (``refund_orders``); the graph must run its four branches."""
    got = no_raise(check.probe("refund_orders", case, signals, orders, limit=10.0), lambda: graph_text(case, signals))
    if got["missing_branches"]:
        raise Failure(_("{graph_text} never ran the branch nodes {missing_branches}; expected the nodes {BRANCHES} in "
                        "parallel").format(graph_text=graph_text(case, signals), missing_branches=got['missing_branches'],
                          BRANCHES=list(BRANCHES)))
    return got


def expect_decided(case, signals, output) -> None:
    """The plain run's output against the model of the decision table."""
    text = graph_text(case, signals)
    if type(output) is not dict or sorted(output) != OUTPUT_KEYS:
        keys = sorted(output) if type(output) is dict else output
        raise Failure(_("{text} returned the keys {keys}; expected exactly {OUTPUT_KEYS}").format(
                          text=text, keys=show(keys), OUTPUT_KEYS=OUTPUT_KEYS))
    expected = model_refund(case, signals)
    by_id = {p.get("event_id"): (p.get("actor"), p.get("type")) for p in output["proposals"] if isinstance(p, dict)}
    kinds = expect_decision(text, case, output, expected, by_id, Counterexample("build_refund_graph", [case, signals],
                                                                                expected["case"], output["case"]))
    if sorted(by_id.values()) != expected["proposals"] or [p.get("event_id") for p in output["proposals"]] != sorted(by_id):
        raise Failure(_("{text} kept the proposals {proposals}; expected one per (actor, type) {proposals2}, sorted by "
                        "event_id").format(text=text, proposals=show(output['proposals']), proposals2=show(expected['proposals'])))
    if kinds != expected["conflicts"]:
        shown, wanted = contrast(kinds, expected["conflicts"])
        raise Failure(_("{text} recorded the conflicts {shown} (kind: [(actor, type)]); expected {wanted}").format(
                          text=text, shown=shown, wanted=wanted))
    ids = [e.get("id") if isinstance(e, dict) else e for e in output["evidence"]]
    if ids != sorted(set(ids), key=str):
        raise Failure(_("{text} kept the evidence ids {ids}; expected each id once, sorted (merge_evidence)").format(
                          text=text, ids=show(ids)))
    expect_decision_events(text, case, output, expected, by_id)


def expect_decision(text: str, case: dict, output: dict, expected: dict, by_id: dict, example: Counterexample) -> dict:
    """The decision's case and conflict records (``model_decide``); the conflicts as kind: [(actor, type)].

    ``output`` holds ``case`` and ``conflicts`` (the graph's output, or what ``_decide`` returned); ``by_id``
    maps the event ids its records may name to (actor, type).
    """
    records = output["conflicts"]
    if type(records) is not list or not all(type(r) is dict and r.get("status") == "open" and r.get("resolution") is None
                                            and isinstance(r.get("proposals"), list) for r in records):
        raise Failure(_("{text} gave conflicts {records}; expected conflict records (dicts with status 'open', proposals, "
                        "resolution None), never error strings").format(text=text, records=show(records)))
    per_kind = Counter(record.get("kind") for record in records)
    repeated = sorted((kind for kind, count in per_kind.items() if count > 1), key=str)
    if repeated:
        raise Failure(_("{text} gave {per_kind} conflict records of kind {repeated}; expected one record per kind, holding "
                        "all the proposals of that kind (open_conflict once per kind)").format(
                          text=text, per_kind=per_kind[repeated[0]], repeated=repr(repeated[0])))
    kinds = {}
    for record in records:  # every kind, the unknown ones too: a misspelt kind is shown, not dropped
        kinds.setdefault(record.get("kind"), []).extend(by_id.get(i) for i in record["proposals"])
    # repr: an unknown id, or a record without a kind, is None
    kinds = {kind: sorted(who, key=repr) for kind, who in sorted(kinds.items(), key=lambda item: repr(item[0]))}
    if output["case"] != expected["case"]:
        shown, wanted = contrast(output["case"], expected["case"])
        also = ""
        if kinds != expected["conflicts"]:  # a decision taken where a conflict was due: the conflict is the cause
            got_kinds, wanted_kinds = contrast(kinds, expected["conflicts"])
            also = (_(", and recorded the conflicts {got_kinds} (kind: [(actor, type)]); expected {wanted_kinds}: a case "
                      "with a conflict is not decided").format(got_kinds=got_kinds, wanted_kinds=wanted_kinds))
        raise Failure(_("{text} left the case {shown}; expected {wanted}{also}").format(
                          text=text, shown=shown, wanted=wanted, also=also), example)
    return kinds


def expect_decision_events(text: str, case: dict, output: dict, expected: dict, by_id: dict) -> None:
    """The decision event: its type, the case, the revision the decision makes, the proposals it rests on (by event id)."""
    if type(output["events"]) is not list or not all(type(e) is dict for e in output["events"]):
        raise Failure(_("{text} left the events {events}; expected a list of event dicts").format(text=text, events=show(output['events'])))
    types = [e.get("type") for e in output["events"]]
    if types != expected["events"]:
        raise Failure(_("{text} left the events {types}; expected {events}").format(
                          text=text, types=show(types), events=expected['events']))
    deciders = sorted((i for i, who in by_id.items() if who in expected["decided_by"]), key=str)
    for event in output["events"]:
        wanted = {"type": event["type"], "case_id": case["case_id"], "revision": case["revision"] + 1,
                  "proposals": deciders}
        got = {key: event.get(key) for key in wanted}
        if isinstance(got["proposals"], list):
            got["proposals"] = sorted(got["proposals"], key=str)
        if got != wanted:
            shown, expected_event = contrast(got, wanted)
            raise Failure(_("{text} appended the decision event {shown}; expected {expected_event}: the case id, the new "
                            "revision and the event ids of the accepted decision proposals").format(
                              text=text, shown=shown, expected_event=expected_event))


def expect_same_everywhere(check, case, signals, orders, what: str):
    """Every run in ``orders`` leaves the plain run's output and runs its effects (the runs of all orders are fetched once)."""
    got = refund_runs(check, case, signals, PERMUTATIONS + DUPLICATED)
    plain = got["plain"]
    for run in got["runs"]:
        same_ledger = sorted(map(str, run["ledger"])) == sorted(map(str, plain["ledger"]))
        if run["order"] in orders and (run["output"] != plain["output"] or not same_ledger):
            differs = sorted(k for k in OUTPUT_KEYS if (run["output"] or {}).get(k) != plain["output"].get(k)) or ["effects run"]
            raise Failure(_("{graph_text}: with the branch results delivered {what} {order}, {join} came out different: {value} "
                            "instead of {value2}").format(
                              graph_text=graph_text(case, signals), what=what, order=run['order'], join=', '.join(differs),
                              value=show({k: (run['output'] or {}).get(k) for k in differs}),
                              value2=show({k: plain['output'].get(k) for k in differs})))
