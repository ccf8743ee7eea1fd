"""The grading side: rules on random examples, a verdict per rule, a report per submission.

Its defaults are here, light to import (the course and the command line read them): every
other module of the engine imports Hypothesis and the rules.
"""

__all__ = ["DEFAULT_EXAMPLES", "DEFAULT_TIMEOUT"]

DEFAULT_EXAMPLES = 80  # random examples per rule; a rule whose example costs more draws a named share of them
DEFAULT_TIMEOUT = 20.0  # seconds per task
