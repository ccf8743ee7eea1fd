"""Provided helper (not an exercise, never graded): a fake invoicing provider for part C.

The invoice agent calls four tools. ``InvoiceProvider`` plays the outside
world: it keeps a ledger of what really happened (invoices created, emails
sent), so a notebook can count duplicates. Like a real API it can time out
*after* doing the work, and it honours idempotency keys: a repeated key gets
the first answer back and sends nothing.
"""

from collections import Counter

__all__ = ["ProviderTimeout", "InvoiceProvider"]


class ProviderTimeout(TimeoutError):
    """The provider did not answer in time. The request may still have been carried out."""


class InvoiceProvider:
    """Fake tools for the invoice agent, with a ledger of their side effects.

    ``timeouts``: tool name -> how many of its next calls time out after doing
    their work (the reply is lost, the effect is not). ``honours_keys``: False
    for a provider that ignores idempotency keys.
    """

    def __init__(self, timeouts: dict[str, int] | None = None, honours_keys: bool = True):
        self.timeouts = Counter(timeouts or {})
        self.honours_keys = honours_keys
        self.calls = Counter()  # tool name -> times called
        self.invoices: list[dict] = []  # created invoices
        self.emails: list[str] = []  # invoice ids e-mailed to a customer: the effect that must happen once
        self._answers: dict[str, object] = {}  # idempotency key -> first answer

    def tools(self) -> dict:
        """The four tools by name, as the agent's nodes call them."""
        return {"fetch_client": self.fetch_client, "validate_amounts": self.validate_amounts,
                "create_invoice": self.create_invoice, "send_invoice": self.send_invoice}

    def _reply(self, tool: str, answer):
        if self.timeouts[tool] > 0:
            self.timeouts[tool] -= 1
            raise ProviderTimeout(f"{tool}: no reply within 30 s")
        return answer

    def fetch_client(self, customer: str) -> dict:
        self.calls["fetch_client"] += 1
        return self._reply("fetch_client", {"name": customer, "email": f"billing@{customer.lower().replace(' ', '-')}.example"})

    def validate_amounts(self, amount) -> float:
        self.calls["validate_amounts"] += 1
        if amount < 0:
            raise ValueError(f"amount must be >= 0 (got {amount})")
        return self._reply("validate_amounts", amount)

    def create_invoice(self, client: dict, amount) -> str:
        self.calls["create_invoice"] += 1
        invoice_id = f"INV-{len(self.invoices) + 1:04d}"
        self.invoices.append({"id": invoice_id, "client": client["name"], "amount": amount})
        return self._reply("create_invoice", invoice_id)

    def send_invoice(self, invoice_id: str, idempotency_key: str | None = None) -> bool:
        self.calls["send_invoice"] += 1
        if self.honours_keys and idempotency_key is not None and idempotency_key in self._answers:
            return self._answers[idempotency_key]  # seen this key: the first answer, nothing sent again
        self.emails.append(invoice_id)
        if idempotency_key is not None:
            self._answers[idempotency_key] = True
        return self._reply("send_invoice", True)
