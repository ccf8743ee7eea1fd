"""Where the lab lives does not matter: a checkout in a 0700 folder grades the whole reference with full marks.

As root the learner's processes run under uids of their own, which cannot
read a private folder (root's home is 0700, and so is the folder `mktemp -d`
makes): the sandbox must reach the lab's own environment all the same. As an
ordinary user the grader runs as that user, from that user's own checkout.
``tests/support/private_clone.py`` builds the checkouts (copies of this working
tree with their own venvs); the hostile corpus runs from the same ones. As
root, the ordinary user's checkout grades every part's reference in
``test_unsandboxed.py`` (its sandboxed run must give 100), so it is not graded
here again.
"""

import json
import os
import subprocess

import pytest
from support.private_clone import as_account, private_clone

from grader.engine.registry import MODULES

pytestmark = pytest.mark.slow


@pytest.mark.slow
def test_a_private_checkout_grades_the_reference_with_full_marks():
    clone = private_clone()
    # Every part from the checkout, at a quarter of the default examples: what is tested is where the grader runs from
    # (paths, permissions, its own venv), not the rules, which test_parts.py holds on many seeds.
    assert os.stat(clone.lab.parent).st_mode & 0o777 == 0o700 and os.stat(clone.lab.parent).st_uid == clone.uid
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": clone.home, "LANG": "C.UTF-8"}
    done = subprocess.run(as_account(clone, [str(clone.python), "-m", "grader", "solutions", "--json", "--seed", "17",
                                             "--jobs", "1", "--examples", "20"]), capture_output=True, text=True, cwd=clone.lab, env=env,
                          timeout=900)
    report = json.loads(done.stdout)
    lost = [(t["id"], t["status"], t["feedback"][:200]) for t in report["tasks"] if t["status"] != "passed"]
    assert report["sandbox"] == "bubblewrap" and report["score"] == report["max_score"] == 100.0 * len(MODULES), lost
    assert done.returncode == 0, done.stderr[-2000:]
