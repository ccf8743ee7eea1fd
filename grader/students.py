"""Who a submission belongs to, and the seed of a student's own variant (``--seed-per-student``).

In nbgrader's layout a submission is ``submitted/<student>/<assignment>``
(``autograded/<student>/<assignment>`` once autograded), so the student is the
folder's parent; elsewhere (``class/alice``) it is the folder itself.

A student's seed is derived from the batch's seed and the student id alone, so
neighbours get different random cases, and regrading one student, in any
process, on any machine, draws the same cases again.
"""

import hashlib
import os
from pathlib import PurePath

__all__ = ["student_id", "student_seed"]

_NBGRADER_FOLDERS = ("submitted", "autograded", "feedback")


def student_id(submission: str) -> str:
    """The student a submission directory (as given on the command line) belongs to."""
    path = PurePath(os.path.abspath(submission))  # "." is the folder it names; links are not followed
    if path.parent.parent.name in _NBGRADER_FOLDERS and path.parent.name:
        return path.parent.name
    return path.name or "/"


def student_seed(batch_seed: int, student: str) -> int:
    """The seed of ``student``'s variant of a batch graded with ``batch_seed``: a stable hash, in [0, 2**31)."""
    digest = hashlib.sha256(f"{batch_seed}\0{student}".encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % 2**31
