"""Notebook 18 (checkpointer vs log): the rules of ``build_invoice_graph``, task events.graph.

The scenario ``invoice_run`` builds the learner's graph on the grader's own
store and fake invoice tools, rebuilds it in the grading process on the
grader's checkpointer, crashes its first run where the example says (the
learner's process killed, or a tool raising), then resumes it in the next
process with ``invoke(None, config)``.
"""

from grader.engine.checking import Counterexample, Failure, no_raise
from grader.engine.registry import task
from grader.engine.showing import contrast, show
from grader.i18n import N_, _
from grader.parts.events.checks import crash_text
from grader.parts.events.model import INVOICE, executions, invoice_expected, logged_results
from grader.parts.events.strategies import amounts, customers, invoice_crashes

graph = task("events.graph")


def invoice_run(check, customer, amount, crash):
    """The probe's reply for this run, once the rules every invoice run keeps are checked."""
    got = check.probe("invoice_run", "inv-1", customer, amount, crash, limit=4 * check.call_limit)
    what = _("the invoice graph for customer={customer}, amount={amount}{crash_text}").format(
               customer=repr(customer), amount=repr(amount), crash_text=crash_text(crash))
    got = no_raise(got, f"{what}:")
    expected = invoice_expected("inv-1", customer, amount)
    example = Counterexample("build_invoice_graph", [customer, amount], expected, None)
    if crash is None:  # a run with no crash that raises: that run is the one to name, with the learner's line
        no_raise(got["first"], f"{what}: invoke({{'task_id': 'inv-1', 'customer': {customer!r}, 'amount': {amount!r}}}, "
                               "config)", example=example)
    second = no_raise(got["second"], f"{what}: invoke(None, config), resuming,", example=example)
    if second != expected:
        gave, wanted = contrast(second, expected)
        raise Failure(_("{what}: invoke(None, config) gave {gave}; expected {wanted}").format(what=what, gave=gave, wanted=wanted),
                      Counterexample("build_invoice_graph", [customer, amount], expected, second))
    logged = logged_results(got["log_after_crash"])
    runs = executions(got["ledger"], 1) + executions(got["ledger"], 2)
    for tool in INVOICE:
        count = sum(n for (name, _skip), n in runs.items() if name == tool)
        again = sum(n for (name, _skip), n in executions(got["ledger"], 2).items() if name == tool)
        if count == 0 or (tool in logged and again):
            said = _("{what}: {tool} ran {count} times, {again} after the crash although its result was logged; a logged "
                     "result must never run again") if tool in logged else \
                _("{what}: {tool} ran {count} times, {again} after the crash although its result was not logged; a logged "
                  "result must never run again")
            raise Failure(said.format(what=what, tool=tool, count=count, again=again))
    keys = {e["key"] for e in got["ledger"] if e["tool"] == "send_invoice"}
    if keys != {"inv-1:send_invoice"}:
        raise Failure(_("{what}: send_invoice got the idempotency keys {keys}; expected only 'inv-1:send_invoice', so the "
                        "invoice is sent at most once").format(what=what, keys=show(sorted(keys, key=repr))))
    return got


@graph.rule(N_("the graph runs fetch_client → validate_amounts → create_invoice → send_invoice through call_tool, "
            "writing client, amount, invoice_id and sent"))
def graph_runs(check):
    @check.forall(customers, amounts, examples=check.budget("threads"))
    def runs(customer, amount):
        got = invoice_run(check, customer, amount, None)
        if sorted(logged_results(got["log"])) != sorted(INVOICE):
            raise Failure(_("the invoice run logged results for the call ids {logged_results}; expected one per node, the call "
                            "id being the node's name: {INVOICE}").format(
                              logged_results=show(sorted(logged_results(got['log']))), INVOICE=INVOICE))


@graph.rule(N_("after a crash (a tool raising, or the process killed after a tool's result was logged), invoke(None, config) "
            "finishes the run; no logged tool runs twice; the invoice is sent at most once per idempotency key"))
def graph_resumes(check):
    @check.forall(customers, amounts, invoice_crashes, examples=check.budget("invoice"),
                  first=("ACME", 0, ("kill_after_append", 4)))
    def resumes(customer, amount, crash):
        invoice_run(check, customer, amount, list(crash))
