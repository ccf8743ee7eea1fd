"""Notebook 25, branches.classify: ``classify_proposal`` follows the decision table; the first matching rule wins.

Each rule checks the table's hand-picked rows of its proposal types first
(``model.table_rows``), then random cases; a call costs microseconds, so
the table gets more random cases than other rules (``check.budget("table")``).
"""

from grader.engine.registry import task
from grader.i18n import N_
from grader.parts.branches.checks import expect_verdict, table_first
from grader.parts.branches.model import APPROVAL, PROPOSAL_TYPES, REJECTION
from grader.parts.branches.strategies import UNKNOWN_TYPES, classify_cases, currents, proposals, stale_offsets

classify = task("branches.classify")


@classify.rule(N_("rule 1 comes first: an expected_revision other than the case's revision is a conflict "
               "stale_revision with current_revision, whatever the proposal"))
def classify_stale(check):
    table_first(check, PROPOSAL_TYPES, stale=True)

    @check.forall(currents(), proposals(PROPOSAL_TYPES + UNKNOWN_TYPES), stale_offsets, examples=check.budget("table"))
    def stale(current, proposal, offset):
        expect_verdict(check, current, {**proposal, "expected_revision": current["revision"] + offset})


@classify.rule(N_("evidence_added is accepted; payment_found conflicts with a different known payment id "
               "(payment_id_mismatch); risk_assessed needs a level in RISK_LEVELS (else rejected invalid_risk_level)"))
def classify_facts(check):
    table_first(check, ("evidence_added", "payment_found", "risk_assessed"))

    @check.forall(classify_cases(("evidence_added", "payment_found", "risk_assessed")), examples=check.budget("table"))
    def facts(case):
        expect_verdict(check, *case)


@classify.rule(N_("an approval is checked in order: effect already applied, high risk (with required_inputs), "
               "no payment id, amount above the payment; else accepted"))
def classify_approval(check):
    table_first(check, (APPROVAL,))

    @check.forall(classify_cases((APPROVAL,)), examples=check.budget("table"))
    def approval(case):
        expect_verdict(check, *case)


@classify.rule(N_("a rejection conflicts only when effects were applied; any other type is rejected unknown_proposal_type"))
def classify_rejection(check):
    table_first(check, (REJECTION, "refund_requested"))

    @check.forall(classify_cases((REJECTION, *UNKNOWN_TYPES)), examples=check.budget("table"))
    def rejection(case):
        expect_verdict(check, *case)
