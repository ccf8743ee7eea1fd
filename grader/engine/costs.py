"""What grading costs: each task's random cases and wall seconds, and, when profiling, where the time went.

A task's ``cases`` (the random and hand-picked examples its rules ran) are
part of its report and repeat with the seed; its ``seconds`` do not, so they
are kept apart (``runner``: only where timings are asked for). A profile
splits each rule's time into the grader's own work and the learner's child:

- ``drawing``: Hypothesis drawing the rule's examples (once per batch: a bank);
- ``judging``: the grader running the rule on the answers: the model, the comparing;
- ``shrinking``: Hypothesis finding the smallest failing example again and shrinking it;
- ``child``: what the learner's process spent answering, by probe (its calls and graph runs),
  as that process measured it: a learner could misstate it, so it is never more than a profile;
- ``transport``: waiting on the child beyond that (the round trips, encoding, decoding).

Each task adds ``start`` (the sandbox and the learner's process made) and
``import`` (the learner's module imported, as the child measured it).
"""

from collections import Counter
from dataclasses import dataclass, field

__all__ = ["RuleCost", "TaskCost"]


@dataclass
class RuleCost:
    """One rule's cases and, when profiled, its seconds by kind of work."""

    cases: int = 0
    drawing: float = 0.0
    judging: float = 0.0
    shrinking: float = 0.0
    transport: float = 0.0
    child: Counter = field(default_factory=Counter)  # probe name -> seconds, as the child measured them

    def as_dict(self) -> dict:
        return {"cases": self.cases, "drawing": self.drawing, "judging": self.judging, "shrinking": self.shrinking,
                "transport": self.transport, "child": dict(self.child)}


@dataclass
class TaskCost:
    """A task's start-up (its sandbox and the import of the learner's module) and its rules' costs."""

    start: float = 0.0
    imported: float = 0.0
    rules: list = field(default_factory=list)  # RuleCost, in the task's rule order
    asked: set = field(default_factory=set)  # what the task asked of its learner processes (runner.rests_on)

    @property
    def cases(self) -> int:
        return sum(rule.cases for rule in self.rules)

    def as_dict(self) -> dict:
        return {"start": self.start, "import": self.imported, "rules": [rule.as_dict() for rule in self.rules]}
