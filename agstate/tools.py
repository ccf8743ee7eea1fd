"""Provided helper (not an exercise, never graded): the lab's fake tools.

Every "agent" in the lab calls these instead of a model or a web API, so
each run is offline and gives the same result every time.
"""

import hashlib

__all__ = ["search_docs", "relevance"]


def _stable_int(text: str) -> int:
    # hash() is salted per process; a digest keeps runs repeatable.
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def search_docs(question: str, round_no: int) -> list[str]:
    """Document ids a search for `question` returns in lookup round `round_no`.

    Like a real search engine it keeps returning its best hit: every round
    re-cites ``doc-<n>`` of round 1, so a naive merge collects duplicates.
    """
    first = f"doc-{_stable_int(question) % 90 + 10}"
    if round_no == 1:
        return [first]
    return [first, f"doc-{_stable_int(f'{question}/{round_no}') % 900 + 100}"]


def relevance(question: str, round_no: int) -> int:
    """A relevance score for a lookup round; the first round scores negative."""
    if round_no == 1:
        return -(_stable_int(question) % 5 + 1)
    return _stable_int(f"{question}#{round_no}") % 50
