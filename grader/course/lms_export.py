"""``nbgrader export --exporter``: the final grades from the gradebook, as Canvas or Moodle imports them.

``agstate-grade --lms`` writes the LMS's file from the grader's reports:
the autograded points only. The final grade lives in nbgrader's gradebook,
where the formgrader adds the points an instructor gives for the written
answers (a manual score replaces an autograded one; extra credit adds;
nbgrader's late penalty is taken off). These plugins write that grade, in
the same layout and by the same rules (``grader.reports.lms``), one row per
roster student with a submission::

    nbgrader export --exporter grader.course.lms_export.CanvasExport --to grades.canvas.csv \\
        --CanvasExport.roster canvas-export.csv --CanvasExport.lms_assignment "agstate lab (1234)"

(``MoodleExport`` likewise). The roster is the LMS's own export; its
``roster_id`` column holds nbgrader's student ids. Warnings (a student
missing from the roster, points possible that differ) go to nbgrader's log.
"""

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin
from traitlets import Unicode

from grader.reports import lms

__all__ = ["CanvasExport", "MoodleExport"]


class _LmsExport(ExportPlugin):
    fmt = ""
    roster = Unicode("", help="the LMS's own export of its gradebook or participants (CSV)").tag(config=True)
    roster_id = Unicode("", help="the roster column holding nbgrader's student ids (default: Canvas 'SIS Login ID', "
                                 "Moodle 'Username')").tag(config=True)
    lms_assignment = Unicode("agstate lab", help="the LMS's assignment column (Canvas: 'Name (id)' as the roster "
                                                 "writes it)").tag(config=True)

    def export(self, gradebook: Gradebook) -> None:
        if not self.roster:
            raise lms.LmsError(f"give the LMS's roster: --{type(self).__name__}.roster FILE.csv")
        assignment = self._assignment(gradebook)
        roster = lms.load_roster(self.roster, self.fmt, self.roster_id or None)
        grades = []
        for student in gradebook.students:
            if self.student and student.id not in self.student:
                continue
            try:
                submission = gradebook.find_submission(assignment.name, student.id)
            except MissingEntry:  # no submission: no row, the LMS keeps its grade (C6, M5)
                continue
            score = max(0.0, submission.score - (submission.late_submission_penalty or 0.0))
            grades.append({"submission": f"{student.id}/{assignment.name}", "student": student.id,
                           "score": score, "max_score": assignment.max_score})
        if not grades:
            raise lms.LmsError(f"no student has a graded submission of {assignment.name!r}; run nbgrader autograde first")
        destination = self.to or f"grades.{self.fmt}.csv"
        for warning in lms.export(self.fmt, grades, roster, destination, self.lms_assignment):
            self.log.warning("%s export: %s", self.fmt, warning)
        self.log.info("Wrote %s: the final grades of %d students of %s", destination, len(grades), assignment.name)

    def _assignment(self, gradebook: Gradebook):
        chosen = [a for a in gradebook.assignments if not self.assignment or a.name in self.assignment]
        if len(chosen) != 1:
            names = ", ".join(a.name for a in chosen) or "none"
            raise lms.LmsError(f"an LMS file holds one assignment; the gradebook has {names}: pass --assignment NAME")
        return chosen[0]


class CanvasExport(_LmsExport):
    """The final grades in Canvas's gradebook import layout."""

    fmt = "canvas"


class MoodleExport(_LmsExport):
    """The final grades in Moodle's grade import layout."""

    fmt = "moodle"
