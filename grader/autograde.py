"""The old name of :mod:`grader.course.autograde`, kept for course configs written before the move.

A course made before the grader was cut into rooms has a
``nbgrader_config.py`` that runs ``from grader.autograde import
autograde_steps, sanitize_steps``; this keeps it grading after an upgrade.
``agstate-course init`` writes the new name; new code imports that.
Removed on 2027-03-01 (``docs/contributing/deprecations.md``).
"""

from grader.course.autograde import autograde_steps, sanitize_steps

__all__ = ["autograde_steps", "sanitize_steps"]
