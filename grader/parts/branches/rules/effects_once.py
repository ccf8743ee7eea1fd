"""Notebook 27, branches.order_independent and branches.effects_once: the refund graph.

Its output is decided by the table and is the same in every order the four
branches' writes arrive in, also when one arrives twice; the branches run
in one step and write only evidence and proposals; its effects run
once per idempotency key, also on a redelivered confirmation or a retried
request. Each graph run is one probe (``refund_orders``, ``refund_redelivered``).
"""

from grader.engine.checking import Abort, Counterexample, Failure, no_raise
from grader.engine.registry import task
from grader.engine.showing import contrast, show
from grader.i18n import N_, _
from grader.parts.branches.checks import (
    expect_decided,
    expect_decision,
    expect_decision_events,
    expect_same_everywhere,
    graph_text,
    refund_runs,
)
from grader.parts.branches.model import model_decide, model_refund
from grader.parts.branches.strategies import (
    DUPLICATED,
    FIXED_REFUNDS,
    HIGH_RISK,
    PERMUTATIONS,
    approvable_signals,
    case_ids,
    decide_states,
    proposal_lists,
    refund_cases,
)

# -- branches.order_independent ------------------------------------------------------------------------
order_task = task("branches.order_independent")
# RefundState's keys and the merge rule of each (None: overwritten), as its docstring gives them.
REFUND_STATE = {"case": None, "signals": None, "evidence": "merge_evidence", "proposals": "merge_proposals",
                "conflicts": None, "events": None, "effects_done": None}


@order_task.rule(N_("merge_proposals on its own: the union of two proposal lists by event_id, sorted by it, whichever "
                 "comes first and when one comes again"))
def proposals_merged(check):
    @check.forall(proposal_lists())
    def union(lists):
        a, b = lists
        expected = sorted({proposal["event_id"]: proposal for proposal in a + b}.values(), key=lambda p: p["event_id"])
        for left, right in ((a, b), (b, a), (a + b, b)):
            got = check.value("merge_proposals", left, right).result
            if got != expected:
                raise Failure(_("merge_proposals({left}, {right}) returned {got}; expected {expected}: each event id once, sorted by "
                                "it, so the order branches finish in and a redelivered proposal change nothing (the laws of "
                                "merge_evidence)").format(left=show(left), right=show(right), got=show(got), expected=show(expected)))


@order_task.rule(N_("RefundState on its own: evidence merged by merge_evidence, proposals by merge_proposals; case, "
                 "signals, conflicts, events and effects_done overwritten by their one writer"))
def refund_state(check):
    got = no_raise(check.probe("channels", "RefundState"), "building a StateGraph over RefundState")
    if not got["keys"]:  # the stub's class: not written yet, not a wrong answer
        raise Abort("not_implemented", _("{id}: RefundState has no keys yet; complete it in agstate/branches.py (notebook "
                                         "{notebook})").format(id=order_task.id, notebook=order_task.notebook))
    found = {key: got["channels"][key]["reducer"] for key in got["keys"]}
    missing = [key for key in REFUND_STATE if key not in found]
    if missing:
        raise Failure(_("RefundState has the keys {keys}; it lacks {missing}: the graph's state needs every key of its "
                        "docstring, {REFUND_STATE}").format(keys=show(got['keys']), missing=show(missing), REFUND_STATE=list(REFUND_STATE)))
    wrong = {key: found[key] for key, rule in REFUND_STATE.items() if found[key] != rule}
    if wrong:
        key = next(iter(wrong))
        rule = REFUND_STATE[key]
        raise Failure(_("RefundState.{key} is merged by {value}; expected {value2}").format(
                          key=key, value=wrong[key] or 'nothing (overwrite)',
                          value2=_("Annotated[..., {rule}]: parallel branches add to it").format(rule=rule) if rule
                          else _("no merge rule: one node writes it, so its write is the value")))


@order_task.rule(N_("_decide on its own: facts first, then each decision against the case with the facts applied; one "
                 "conflict record per kind; one accepted outcome and no conflict decides; the revision goes up by one"))
def decide_alone(check):
    @check.forall(decide_states())
    def decides(state):
        text = f"_decide({{'case': {show(state['case'])}, 'proposals': {show(state['proposals'])}}})"
        got = check.value("_decide", state).result
        if type(got) is not dict or not {"case", "conflicts", "events"} <= set(got):
            raise Failure(_("{text} returned {got}; expected a dict with 'case', 'conflicts' and 'events' (the node's write)").format(
                              text=text, got=show(got)), Counterexample("_decide", [state], "{'case', 'conflicts', 'events'}", got))
        expected = model_decide(state["case"], state["proposals"])
        by_id = {p["event_id"]: (p["actor"], p["type"]) for p in state["proposals"]}
        kinds = expect_decision(text, state["case"], got, expected, by_id,
                                Counterexample("_decide", [state], expected["case"], got["case"]))
        if kinds != expected["conflicts"]:
            shown, wanted = contrast(kinds, expected["conflicts"])
            raise Failure(_("{text} recorded the conflicts {shown} (kind: [(actor, type)]); expected {wanted}").format(
                              text=text, shown=shown, wanted=wanted),
                          Counterexample("_decide", [state], expected["conflicts"], kinds))
        expect_decision_events(text, state["case"], got, expected, by_id)


@order_task.rule(N_("decide follows the table: facts first, then decisions against the case with the facts applied; "
                 "conflicts become records; a high-risk case is never approved"))
def graph_decides(check):
    def decided(inputs):
        case, signals = inputs
        expect_decided(case, signals, refund_runs(check, case, signals, [])["plain"]["output"])

    check.each([(inputs,) for inputs in FIXED_REFUNDS])(decided)  # small hand-picked cases first: no shrinking needed
    check.forall(refund_cases(), examples=check.budget("refund"))(decided)


@order_task.rule(N_("the output is the same in every completion order of the four branches"))
def graph_every_order(check):
    @check.forall(refund_cases(), examples=check.budget("run"), first=(HIGH_RISK,))
    def every_order(inputs):
        case, signals = inputs
        expect_same_everywhere(check, case, signals, PERMUTATIONS, _("in the order"))


@order_task.rule(N_("a branch result delivered twice changes nothing"))
def graph_duplicates(check):
    @check.forall(refund_cases(), examples=check.budget("run"), first=(HIGH_RISK,))
    def duplicated(inputs):
        case, signals = inputs
        expect_same_everywhere(check, case, signals, DUPLICATED, _("with one twice:"))


@order_task.rule(N_("the four branch nodes run in parallel, all in the same step"))
def graph_parallel(check):
    for case, signals in FIXED_REFUNDS:  # how the graph is wired does not depend on the case: the fixed ones suffice
        steps = refund_runs(check, case, signals, [])["branch_steps"]
        if len(set(steps.values())) != 1:
            by_step = {step: sorted(name for name, at in steps.items() if at == step) for step in sorted(set(steps.values()))}
            raise Failure(_("{graph_text} ran the branch nodes step by step, {by_step} (step: nodes); expected all four in one "
                            "step: connect each to START, and decide to all four").format(
                              graph_text=graph_text(case, signals), by_step=show(by_step)))


@order_task.rule(N_("the branch nodes publish only evidence and proposals: they never write the case, decide does"))
def graph_branch_writes(check):
    for case, signals in FIXED_REFUNDS:  # what a branch writes hardly depends on the case: the fixed ones suffice
        written = refund_runs(check, case, signals, [])["branch_keys"]
        wrong = {name: keys for name, keys in written.items() if not isinstance(keys, list)
                 or not set(keys) <= {"evidence", "proposals"}}
        if wrong:
            raise Failure(_("{graph_text}: the branch nodes wrote {wrong}; expected only 'evidence' and 'proposals': branches "
                            "publish what they find, only decide writes the case").format(
                              graph_text=graph_text(case, signals), wrong=show(wrong)))


# -- branches.effects_once ------------------------------------------------------------------------------
effects_task = task("branches.effects_once")


def _calls(ledger):
    return sorted((c.get("effect"), c.get("key")) for c in ledger)


@effects_task.rule(N_("an approved refund runs each effect once with idempotency key f'{case_id}:{effect_name}' and the case; "
                   "a refund not approved runs none"))
def effects_run(check):
    def once(inputs):
        case, signals = inputs
        plain = refund_runs(check, case, signals, [])["plain"]
        expected = model_refund(case, signals)
        wanted = sorted((key.rsplit(":", 1)[1], key) for key in expected["effects_done"])
        if _calls(plain["ledger"]) != wanted or any(c.get("case_id") != case["case_id"] for c in plain["ledger"]):
            raise Failure(_("{graph_text} ran the effects {ledger}; expected {wanted} (effect, idempotency key), each called "
                            "with the case ({value})").format(
                              graph_text=graph_text(case, signals), ledger=show(plain['ledger']), wanted=show(wanted),
                              value=_("approved") if wanted else _("not approved: no email, no transfer")))
        done = plain["output"].get("effects_done") if isinstance(plain["output"], dict) else None
        if sorted(done or []) != expected["effects_done"]:
            raise Failure(_("{graph_text} left effects_done {done}; expected {effects_done}").format(
                              graph_text=graph_text(case, signals), done=show(done), effects_done=expected['effects_done']))

    check.each([(inputs,) for inputs in FIXED_REFUNDS])(once)
    check.forall(refund_cases(), examples=check.budget("refund"))(once)


def _redelivered(check, how: str, what: str):
    """An approved refund run once, then ``how`` (``refund_redelivered``): no effect may run a second time."""
    @check.forall(case_ids, approvable_signals, examples=check.budget("run"))
    def redelivered(case_id, signals):
        case = {"case_id": case_id, "revision": 0, "payment_id": None, "payment_amount": None, "risk_level": None,
                "effects_applied": False, "decision": None}
        got = no_raise(check.probe("refund_redelivered", case, signals, how, limit=10.0), what)
        wanted = sorted((name, f"{case_id}:{name}") for name in ("create_transfer", "send_email"))
        if _calls(got["ledger"]) != wanted:
            raise Failure(_("{graph_text} approved the refund, then {what}: the effects ran {calls}; expected each once, "
                            "{wanted}: skip keys already done").format(
                              graph_text=graph_text(case, signals), what=what, calls=show(_calls(got['ledger'])),
                              wanted=show(wanted)))


@effects_task.rule(N_("a redelivered approval_confirmed runs no effect again"))
def effects_confirmation(check):
    _redelivered(check, "confirmation", _("decide's write (the confirmation) was delivered again"))


@effects_task.rule(N_("a retried request on the same thread runs no effect again"))
def effects_retried(check):
    _redelivered(check, "input", _("the same request was invoked again on the same thread"))
