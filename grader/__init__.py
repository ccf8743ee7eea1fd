"""agstate lab's auto-grader: randomized, isolated checks of the learner's modules.

From a notebook: ``from grader import check; check("state.dedupe")``.
From a terminal: ``agstate-grade [PATH ...]`` (see ``grader.cli``).
"""

__all__ = ["check"]


def check(target: str | None = None, *, seed: int | None = None):
    """Grade your workspace from disk in a fresh process; show a scorecard; return the points."""
    from grader.notebook.check import check as _check

    return _check(target, seed=seed)
