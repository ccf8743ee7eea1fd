"""Part C's model: what a correct ``agstate/events.py`` gives, as pure functions of an example.

The state a fold of events must give, a resumed run's output, what the
invoice graph must write, and how to read a run's log and its ledger of side
effects. Nothing here judges (``checks``) or draws (``strategies``).
"""

from collections import Counter

from grader.parts.events.clock import EVENT_KEYS  # noqa: F401  (the rules read it here, with the model)
from grader.parts.events.tools import INVOICE_TOOLS

EVENT_TYPES = ("agent.started", "tool.called", "tool.result", "agent.crashed", "task.completed")


def reorder(payload: dict) -> dict:
    """The same payload with its keys in reverse order: equal, but not the same JSON text."""
    return dict(reversed(list(payload.items())))


# -- the fold ----------------------------------------------------------------------------------------
def model_state(events: list) -> dict:
    state = {"status": "new", "last_seq": 0, "tool_results": {}, "output": None}
    for event in events:
        state["last_seq"] = event["seq"]
        if event["type"] == "agent.crashed":
            state["status"] = "crashed"
        elif event["type"] == "task.completed":
            state.update(status="completed", output=event["payload"]["output"])
        else:
            state["status"] = "running"
            if event["type"] == "tool.result":
                state["tool_results"] = {**state["tool_results"], event["payload"]["call_id"]: event["payload"]["result"]}
    return state


# -- runs ---------------------------------------------------------------------------------------------
def expected_output(plan, answers) -> list:
    return [answers[f"{step['tool']}/{step['args']['n']}"] for step in plan]


def last_point(plan, mode) -> int:
    """The last crash point of a run: its final append (started, called/result per step, completed) or tool call."""
    return 2 * len(plan) + 2 if mode == "kill_after_append" else len(plan)


def logged_results(log) -> set:
    return {e["payload"].get("call_id") for e in log if e["type"] == "tool.result" and isinstance(e["payload"], dict)}


def executions(ledger, phase) -> Counter:
    return Counter((entry["tool"], args_text(entry["args"])) for entry in ledger if entry["phase"] == phase)


def args_text(args) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in sorted(args.items()))


# -- the invoice graph ----------------------------------------------------------------------------------
INVOICE = ["fetch_client", "validate_amounts", "create_invoice", "send_invoice"]


def invoice_expected(task_id, customer, amount) -> dict:
    client = INVOICE_TOOLS["fetch_client"][1]({"customer": customer})
    checked = INVOICE_TOOLS["validate_amounts"][1]({"amount": amount})
    invoice = INVOICE_TOOLS["create_invoice"][1]({"client": client, "amount": checked})
    sent = INVOICE_TOOLS["send_invoice"][1]({"invoice_id": invoice})
    return {"task_id": task_id, "customer": customer, "amount": checked, "client": client, "invoice_id": invoice, "sent": sent}
