"""The invoice flow's fake tools, as data: what each takes and what it answers. Both sides read it.

The learner's process builds the fake tools from it (``probes.fakes``); the
grading side's model of a run (``model``) computes what they answered. It
holds no learner code and no judging, and imports nothing.
"""

__all__ = ["INVOICE_TOOLS"]

INVOICE_TOOLS = {  # name -> (parameters, the result from the arguments)
    "fetch_client": (["customer"], lambda a: {"name": a["customer"], "vat": len(a["customer"]) % 2 == 0}),
    "validate_amounts": (["amount"], lambda a: a["amount"]),
    "create_invoice": (["client", "amount"], lambda a: f"INV-{a['client']['name'][:4]}-{a['amount']}"),
    "send_invoice": (["invoice_id", "idempotency_key=None"], lambda a: a["invoice_id"] != ""),
}
