"""nbgrader's exchange, as a shared server needs it: ``collect`` trusts only a student's own folder and never follows
a link, ``release_feedback`` never dies half-way, ``fetch_feedback`` brings the summary.

``agstate-course init`` names these classes in the course's configuration
(``c.ExchangeFactory.collect``) and ``agstate-course config student`` in the
students' (``c.ExchangeFactory.fetch_feedback``); the commands stay nbgrader's own.

- ``ReleaseAssignment``: nbgrader's, with the sticky bit on ``inbound/``
  (which every account may write): a folder there can then be removed or
  renamed only by the account that made it, and by the instructor.
- ``Submit`` (the students'): nbgrader's submit leaves the student's folder
  in ``inbound/`` writable by every account (0777) and its files, the
  submission's secret among them, readable by all: whoever learns its name
  may change the submission, or fetch its feedback with the secret. This
  one leaves it writable by its student only, and closed to everyone but
  the instructor, through its group: ``inbound/``'s, which every folder made
  there gets (where the exchange has no such group, readable by all).
- ``Collect``: of the folders in ``inbound/``, only those its student made
  with ``nbgrader submit`` are collected (``grader.course.inbound``); a
  folder another account made in a student's name, one dated in the
  future, one without nbgrader's files or that the instructor cannot read
  is left where it is, named in a warning, and the student's own latest
  submission is collected as if it were not there. nbgrader's collect
  copies a student's inbound folder with
  ``shutil.copytree``, which follows symbolic links, as the instructor. The
  student owns that folder after submitting, so a link placed there
  (``agstate/state.py -> ~instructor/lab/solutions/agstate/state.py``) was
  copied as the linked file: the reference solution graded as the student's,
  or an instructor-only file put in the student's feedback. Here a link, or
  anything that is not a plain file or folder (a FIFO would hang the copy), is
  never copied: it is left out and named, student and file, in a warning.
  The collected copy is the instructor's alone: no bit for others, and no
  write bit but the owner's, whatever mode the exchange gave it (0777).
- ``FetchFeedback``: ``release_feedback`` puts every page of a student's
  feedback folder in the exchange, the summary ``index.html`` included, under
  a hash of the student's secret and the page's name; nbgrader's
  ``fetch_feedback`` looks only for the pages of the submitted notebooks. This
  one also fetches the summary, into the same folder as the notebooks' pages,
  whose links it follows.
- ``List``: nbgrader's Assignment List shows a submission's time and a link to
  its feedback, never its score. This one shows the score beside the time,
  once the feedback is fetched: the sum of the notebooks' pages, as
  ``generate_feedback`` wrote them from the gradebook (points given by hand
  included, late penalty taken off).
- ``ReleaseFeedback``: nbgrader's dies on the first student whose feedback
  folder lacks ``timestamp.txt`` or ``submission_secret.txt``, and the
  students after them get no feedback. This one names that student, says
  what to do, and releases everyone else's.
"""

import glob
import os
import re
import shutil
import stat
from collections import defaultdict
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.exchange.default.fetch_feedback import ExchangeFetchFeedback
from nbgrader.exchange.default.list import ExchangeList
from nbgrader.exchange.default.release_assignment import ExchangeReleaseAssignment
from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback
from nbgrader.exchange.default.submit import ExchangeSubmit
from nbgrader.utils import check_mode, ignore_patterns, notebook_hash

from grader.course.inbound import inbound_submissions
from grader.course.inspection import irregular_entries

__all__ = ["ReleaseAssignment", "Submit", "Collect", "ReleaseFeedback", "FetchFeedback", "List", "SUMMARY_ID",
           "feedback_score"]

SUMMARY_ID = "index"  # the summary page, index.html, as release_feedback names a page: without .html
_PRIVATE_DIR, _PRIVATE_FILE = 0o750, 0o640  # the owner, and a co-instructor's group, may read: nobody else


class ReleaseAssignment(ExchangeReleaseAssignment):
    """nbgrader's release_assignment; ``inbound/`` gets the sticky bit."""

    def init_dest(self):
        super().init_dest()
        mode = os.stat(self.inbound_path).st_mode
        if not mode & stat.S_ISVTX:
            os.chmod(self.inbound_path, stat.S_IMODE(mode) | stat.S_ISVTX)


class Submit(ExchangeSubmit):
    """nbgrader's submit; the folder it makes in ``inbound/`` is the student's to write, and the instructor's to read."""

    def copy_files(self):
        super().copy_files()
        folder = os.path.join(self.inbound_path, self.assignment_filename)
        # The folder was made in inbound/, which is setgid: its group is the instructor's (the files in it are not:
        # nbgrader's copy resets the bit, and a student may not give a file a group they are not in). So the folder
        # alone is closed to others, and what is in it is readable by whoever may enter: the instructor.
        instructors = os.stat(folder).st_gid == os.stat(self.inbound_path).st_gid != os.getegid()
        for directory, _, names in os.walk(folder):
            os.chmod(directory, 0o750 if instructors and directory == folder else 0o755)
            for name in names:
                path = os.path.join(directory, name)
                if not os.path.islink(path):
                    os.chmod(path, 0o644)


class Collect(ExchangeCollect):
    """nbgrader's collect, of the folders a student made only, copying plain files and folders only, each left-out
    folder and entry named."""

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        if not check_mode(self.inbound_path, read=True, execute=True):
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        student = self.coursedir.student_id if self.coursedir.student_id not in ("", "*") else None
        mine = defaultdict(list)
        for submission in inbound_submissions(Path(self.inbound_path), self.coursedir.assignment_id, student):
            if submission.trusted:
                mine[submission.student].append({"username": submission.student, "filename": submission.path.name,
                                                 "timestamp": submission.timestamp})
            else:
                self.log.warning("Not collected: %s in the exchange's inbound folder, as %s",
                                 submission.path.name, submission.refused)
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                self.duedate = gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                self.duedate = None
        # nbgrader's choice, among the trusted folders: the latest; with --before-duedate, the latest before it.
        self.src_records = []
        for records in mine.values():
            records = self._sort_by_timestamp(records)
            on_time = [record for record in records if self.duedate is not None and record["timestamp"] <= self.duedate]
            self.src_records.append(on_time[0] if self.before_duedate and on_time else records[0])

    def do_copy(self, src, dest, log=None):
        student = self._path_to_record(src)["username"]
        left_out = irregular_entries(src)
        for relative, what in left_out:
            self.log.warning("Not collected from student %r: %s is %s (a submission holds plain files only)",
                             student, relative, what)
        skipped = {os.path.join(src, relative) for relative, _ in left_out}
        size = self.get_size(src)  # nbgrader's own limit, as its do_copy applies it
        if size > 1000 * self.coursedir.max_dir_size:
            self.log.error("Directory size is too big")
            raise RuntimeError(f"Directory size is too big. Size is {size}, maximum size is {1000 * self.coursedir.max_dir_size}")
        nbgrader_rules = ignore_patterns(exclude=self.coursedir.ignore, include=self.coursedir.include,
                                         max_file_size=self.coursedir.max_file_size, log=self.log)

        def ignore(directory, names):
            return set(nbgrader_rules(directory, names)) | {name for name in names if os.path.join(directory, name) in skipped}

        # symlinks=True: should a link appear between the listing above and the copy, it is copied as a link (then
        # never followed: autograde and the grader refuse links), not as the file it points at.
        shutil.copytree(src, dest, symlinks=True, ignore=ignore)
        make_private(dest)
        for made in (os.path.dirname(dest), os.path.dirname(os.path.dirname(dest))):  # submitted/<student>, submitted/
            os.chmod(made, _PRIVATE_DIR)


def make_private(folder) -> None:
    """No access for others and no write but the owner's, on every folder and file under ``folder`` (itself included)."""
    for directory, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode & _PRIVATE_FILE | stat.S_IRUSR | stat.S_IWUSR)
        os.chmod(directory, _PRIVATE_DIR)


class ReleaseFeedback(ExchangeReleaseFeedback):
    """nbgrader's release_feedback, one student at a time: a student whose feedback cannot be released is named and
    passed over, never the class after them."""

    def copy_files(self):
        every = self.src_path  # feedback/<student or *>/<assignment>: each student's folder in turn
        try:
            for folder in sorted(glob.glob(every)):
                missing = [name for name in ("timestamp.txt", "submission_secret.txt")
                           if not os.path.isfile(os.path.join(folder, name))]
                if missing:
                    student = Path(folder).parent.name
                    self.log.error("Feedback not released for student %r: %s has no %s (a submission not made by nbgrader "
                                   "submit); collect, autograde and generate_feedback that student again", student,
                                   folder, " and no ".join(missing))
                    continue
                self.src_path = folder
                super().copy_files()
        finally:
            self.src_path = every


class FetchFeedback(ExchangeFetchFeedback):
    """nbgrader's fetch_feedback, bringing the summary page along with the notebooks' pages."""

    def init_src(self):
        super().init_src()
        for submission in sorted(os.listdir(self.cache_path)) if os.path.isdir(self.cache_path) else []:
            parts = submission.split("+")
            secret_path = os.path.join(self.cache_path, submission, "submission_secret.txt")
            if len(parts) != 3 or not os.path.isfile(secret_path):
                continue
            if self.coursedir.assignment_id and parts[1] != self.coursedir.assignment_id:
                continue
            with open(secret_path) as secret:
                page = os.path.join(self.outbound_path, f"{notebook_hash(secret=secret.read(), notebook_id=SUMMARY_ID)}.html")
            if os.path.isfile(page):
                self.feedback_files.append((SUMMARY_ID, parts[2], page))
                self.log.info("Found the summary page for '%s/%s' submitted at %s", self.coursedir.course_id, parts[1],
                              parts[2])


# The heading nbgrader's feedback template (formgrader/templates/feedback/index.html.j2) gives a notebook's page.
_PAGE_SCORE = re.compile(r"<h4>.*? \(Score: (-?[0-9.]+) / ([0-9.]+)\)</h4>")


def feedback_score(pages) -> tuple[float, float] | None:
    """The score and maximum of a submission, summed over its notebooks' feedback pages; None if a page has none."""
    score = maximum = 0.0
    for page in pages:
        try:
            with open(page, encoding="utf-8") as html:
                found = _PAGE_SCORE.search(html.read())
        except (OSError, UnicodeDecodeError):
            return None
        if found is None:
            return None
        score, maximum = score + float(found[1]), maximum + float(found[2])
    return score, maximum


class List(ExchangeList):
    """nbgrader's list; a student's submission whose feedback is fetched shows its score beside its time."""

    def parse_assignments(self):
        assignments = super().parse_assignments()
        if not self.cached:  # the student's own submissions: their fetched pages are the student's files
            return assignments
        for assignment in assignments:
            for submission in assignment["submissions"]:
                if not submission.get("has_local_feedback") or submission.get("feedback_updated"):
                    continue  # nothing fetched, or newer feedback waits in the exchange: no stale score
                found = feedback_score(notebook["local_feedback_path"] for notebook in submission["notebooks"])
                if found is not None:
                    # The Assignment List shows a submission's "timestamp" as text and uses it for nothing else
                    # (nbgrader 0.9); the score goes there, after the time, so sorting by it is unchanged.
                    submission["timestamp"] += f" \N{EM DASH} score {found[0]:g} / {found[1]:g}"
        return assignments
