"""Who a submission belongs to, and the seed of a student's own variant (``--seed-per-student``).

In nbgrader's layout a submission is ``submitted/<student>/<assignment>``
(``autograded/<student>/<assignment>`` once autograded), so the student is the
folder's parent; elsewhere (``class/alice``) it is the folder itself. A batch
whose folders all share one name (``clones/*/agstate-lab``) names its students
by the parents (``student_ids``). Ids are compared in Unicode's composed form
(NFC): a zip made on macOS spells ``Noël`` decomposed, an LMS composed.

A student's seed is derived from the batch's seed and the student id alone, so
neighbours get different random cases, and regrading one student, in any
process, on any machine, draws the same cases again.
"""

import hashlib
import os
import unicodedata
from collections import Counter
from pathlib import PurePath

__all__ = ["StudentIdError", "student_id", "student_ids", "student_of", "student_seed"]

_NBGRADER_FOLDERS = ("submitted", "autograded", "feedback")


def student_id(submission: str) -> str:
    """The student a submission directory (as given on the command line) belongs to."""
    path = PurePath(os.path.abspath(submission))  # "." is the folder it names; links are not followed
    if path.parent.parent.name in _NBGRADER_FOLDERS and path.parent.name:
        return _composed(path.parent.name)
    return _composed(path.name or "/")


def _composed(name: str) -> str:
    return unicodedata.normalize("NFC", name)


class StudentIdError(ValueError):
    """Two submissions of a batch would be one student."""


def student_ids(submissions: list[str]) -> dict[str, str]:
    """Each submission's student, told apart: by ``student_id``, else by the folders' parents; else an error."""
    ids = {path: student_id(path) for path in submissions}
    if len(set(ids.values())) < len(ids):
        parents = {path: _composed(PurePath(os.path.abspath(path)).parent.name) for path in submissions}
        if len(set(parents.values())) == len(parents):
            return parents
        shared = sorted(i for i, count in Counter(ids.values()).items() if count > 1)
        raise StudentIdError(f"several submissions would be the same student {shared[0]!r}: give each student a "
                             "folder of their own (nbgrader's submitted/<student>/<assignment>, or class/<student>)")
    return ids


def student_of(report: dict) -> str:
    """The student of a graded report: as the batch told them apart (``"student"``), else by its folder."""
    return report.get("student") or student_id(report["submission"])


def student_seed(batch_seed: int, student: str) -> int:
    """The seed of ``student``'s variant of a batch graded with ``batch_seed``: a stable hash, in [0, 2**31)."""
    digest = hashlib.sha256(f"{batch_seed}\0{student}".encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % 2**31
