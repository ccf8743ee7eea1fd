"""The research graph's fake tools, on the grading side: the grader's own ``search_docs`` and ``relevance``.

The kit's ``agstate/tools.py`` is the learner's copy of the same functions
(the lab's notebooks call it); a graded run lends these to the learner's
module instead (``grader.parts.state.scenarios.tool_calls_run``), so what
each call returned is recorded where the learner's code cannot reach it.
``tests/test_fakes.py`` holds the two equal.
"""

import hashlib

__all__ = ["search_docs", "relevance"]


def _stable_int(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def search_docs(question: str, round_no: int) -> list[str]:
    """Document ids a search for ``question`` returns in lookup round ``round_no`` (round 1's again in every round)."""
    first = f"doc-{_stable_int(question) % 90 + 10}"
    if round_no == 1:
        return [first]
    return [first, f"doc-{_stable_int(f'{question}/{round_no}') % 900 + 100}"]


def relevance(question: str, round_no: int) -> int:
    """A relevance score for a lookup round; the first round scores negative."""
    if round_no == 1:
        return -(_stable_int(question) % 5 + 1)
    return _stable_int(f"{question}#{round_no}") % 50
