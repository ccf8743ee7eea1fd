"""Provided helpers for Part F (written from the contract page alone)."""
from __future__ import annotations

from typing import Protocol


class Inbox(Protocol):
    def send(self, key: str, message: dict) -> None: ...  # a message to a person


class Payments(Protocol):
    def pay(self, key: str, payee: str, amount: int) -> str: ...  # a payment; returns its receipt


class Stock(Protocol):
    def needs(self, question: str) -> bool: ...  # whether a form's question must be asked


def merge_tags(old: list[str] | None, new: list[str]) -> list[str]:
    """A reducer: union, first-seen order.

    ``old`` is kept as it is (a person's edit may have left a duplicate in
    it on purpose); each tag of ``new`` not yet present is appended once.
    Neither argument is modified.
    """
    out: list[str] = list(old or [])
    seen: set[str] = set(out)
    for tag in new or []:
        if tag not in seen:
            seen.add(tag)
            out.append(tag)
    return out


FORM = ["size", "colour", "gift_wrap", "engraving", "delivery_day"]

VERSIONS = {
    1: {"version": "last", "items": "append", "total": "last"},
    2: {"version": "last", "lines": "append", "total": "last"},
    3: {"version": "last", "lines": "append", "total": "last", "currency": "last", "archive": "last"},
}
