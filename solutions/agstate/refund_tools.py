"""Provided helper (not an exercise, never graded): the refund case's fake branch tools.

Each tool plays one branch of the refund graph. It reads the case (at its
revision) and the ``signals`` — what the fake world will answer — and
returns the branch's write: ``{"evidence": [...], "proposals": [...]}``.
Proposals carry ``expected_revision``: the case revision the branch read.
Deterministic: the same case and signals give the same write every time.

``show_table`` renders rows of dicts as an HTML table in a notebook.
"""

__all__ = ["check_policy", "lookup_payment", "review_risk", "draft_reply", "new_case", "show_table"]


def _proposal(case: dict, branch: str, kind: str, payload: dict) -> dict:
    return {"event_id": f"{case['case_id']}:{branch}:{kind}", "type": kind,
            "expected_revision": case["revision"], "actor": branch, "payload": payload}


def new_case(case_id: str = "R-1", revision: int = 0) -> dict:
    """A refund case as it enters the graph: nothing known yet."""
    return {"case_id": case_id, "revision": revision, "payment_id": None, "payment_amount": None,
            "risk_level": None, "effects_applied": False, "decision": None}


def check_policy(case: dict, signals: dict) -> dict:
    """Policy branch: evidence of the policy verdict, and an approval or rejection proposal."""
    verdict = {"id": f"{case['case_id']}:policy", "source": "policy_check",
               "policy_ok": signals["policy_ok"], "requested_amount": signals["requested_amount"]}
    kind = "refund_approval_proposed" if signals["policy_ok"] else "refund_rejection_proposed"
    return {"evidence": [verdict],
            "proposals": [_proposal(case, "policy_check", "evidence_added", {"evidence_id": verdict["id"]}),
                          _proposal(case, "policy_check", kind, {"amount": signals["requested_amount"]})]}


def lookup_payment(case: dict, signals: dict) -> dict:
    """Payment branch: the payment found (if any) as evidence and a ``payment_found`` proposal."""
    if signals["payment_id"] is None:
        return {"evidence": [{"id": f"{case['case_id']}:payment", "source": "payment_lookup", "found": False}],
                "proposals": []}
    payload = {"payment_id": signals["payment_id"], "amount": signals["payment_amount"]}
    return {"evidence": [{"id": f"{case['case_id']}:payment", "source": "payment_lookup", "found": True, **payload}],
            "proposals": [_proposal(case, "payment_lookup", "payment_found", payload)]}


def review_risk(case: dict, signals: dict) -> dict:
    """Risk branch: the risk level as evidence and a ``risk_assessed`` proposal."""
    level = signals["risk_level"]
    return {"evidence": [{"id": f"{case['case_id']}:risk", "source": "risk_review", "risk_level": level}],
            "proposals": [_proposal(case, "risk_review", "risk_assessed", {"risk_level": level})]}


def draft_reply(case: dict, signals: dict) -> dict:
    """Reply branch: drafts "your refund is approved" — without seeing the risk review."""
    return {"evidence": [],
            "proposals": [_proposal(case, "reply_draft", "refund_approval_proposed",
                                    {"amount": signals["requested_amount"], "email": "Your refund is approved."})]}


def show_table(rows: list[dict], columns: list[str] | None = None):
    """An HTML table of ``rows`` (a list of dicts) for a notebook; columns default to every row's keys, first seen first."""
    from html import escape

    from IPython.display import HTML

    columns = columns or list(dict.fromkeys(key for row in rows for key in row))  # a later row's own keys show too
    head = "".join(f"<th>{escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(row.get(c, '')))}</td>" for c in columns) + "</tr>" for row in rows)
    return HTML(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
