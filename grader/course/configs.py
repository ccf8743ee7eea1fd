"""The nbgrader configuration files of a course on a shared server, beyond the course's own ``nbgrader_config.py``.

- The students': the course id, the exchange, the lab's ``fetch_feedback``
  (which brings the summary page) and ``list`` (the Assignment List's score). An admin installs it once for every student,
  in the students' environment (``<env>/etc/jupyter/nbgrader_config.py``) or
  system-wide (``/etc/jupyter/nbgrader_config.py``); nothing in it is secret.
- The instructor's ``~/.jupyter/nbgrader_config.py``: a JupyterHub server starts
  in the home folder, where nbgrader finds no course; this file loads the
  course's configuration from wherever the course is, so the formgrader opens
  on the course.
"""

import ast
from pathlib import Path

__all__ = ["CourseError", "course_settings", "student_config", "instructor_config"]


class CourseError(Exception):
    """A course folder, or a request about one, that agstate-course cannot use: the sentence says why and what to do."""

_STUDENT = '''\
# nbgrader configuration for the students of the agstate lab course {course_id!r},
# written by `agstate-course config student`. Install it where every student's Jupyter reads it:
# <students' environment>/etc/jupyter/nbgrader_config.py, or /etc/jupyter/nbgrader_config.py.
c = get_config()  # noqa: F821

c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
# nbgrader's submit leaves the submission writable by every account, and its secret readable; this one does not.
c.ExchangeFactory.submit = "grader.course.exchange.Submit"
# nbgrader's fetch_feedback brings only the notebooks' pages; this one brings the summary page (index.html) too.
c.ExchangeFactory.fetch_feedback = "grader.course.exchange.FetchFeedback"
# nbgrader's Assignment List shows a submission's time only; this one adds its score once the feedback is fetched.
c.ExchangeFactory.list = "grader.course.exchange.List"
'''

_INSTRUCTOR = '''\
# The agstate lab course in {root}, for every nbgrader command and the formgrader started anywhere
# (a JupyterHub server starts in the home folder). Written by `agstate-course config instructor`.
load_subconfig({config!r})  # noqa: F821
'''


def student_config(course_id: str, exchange: str) -> str:
    return _STUDENT.format(course_id=course_id, exchange=exchange)


def instructor_config(root: Path) -> str:
    return _INSTRUCTOR.format(root=root, config=str(root / "nbgrader_config.py"))


def course_settings(directory: Path) -> dict:
    """The course in ``directory``: its id, exchange, parts, and grading settings (``examples`` and ``timeout``: None
    where the course keeps agstate-grade's defaults).

    Read, never run: the assignments of literal values in its ``nbgrader_config.py`` (``agstate-course init`` writes
    no other kind for these). Running it would import the instructor's side of the grader, which a students'
    environment lacks, and an admin writing the students' configuration as root would run a file the instructor wrote.
    """
    config = directory / "nbgrader_config.py"
    try:
        tree = ast.parse(config.read_text(), str(config))
    except (OSError, SyntaxError, ValueError) as error:
        raise CourseError(f"cannot read {config} ({error}); give the course folder agstate-course init wrote") from None
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            name = ast.unparse(node.targets[0])
            try:
                found[name] = ast.literal_eval(node.value)
            except ValueError:
                continue
    if "c.CourseDirectory.course_id" not in found or "c.Exchange.root" not in found:
        raise CourseError(f"{config} names no course id or exchange (c.CourseDirectory.course_id, c.Exchange.root, "
                          "as literal values); give the course folder agstate-course init wrote")
    return {"course_id": found["c.CourseDirectory.course_id"], "exchange": found["c.Exchange.root"],
            "parts": list(found.get("c.ScoreChecks.parts", [])), "examples": found.get("c.ScoreChecks.examples"),
            "timeout": found.get("c.ScoreChecks.grader_timeout")}
