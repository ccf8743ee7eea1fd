"""Every failing rule is reported, each with its own shrunk counterexample: in the JSON, the scorecard and check()."""

import json

import pytest
from support.cli import run_cli
from support.corpus import Corpus

from grader.notebook.check import scorecard_html
from grader.reports.safe import ALSO

pytestmark = pytest.mark.part


def _graded(tmp_path, *options):
    submission = tmp_path / "set-dedupe"
    if not submission.exists():
        Corpus("state").build_submission("merge_via_set", submission)  # breaks four rules of state.dedupe
    return run_cli(str(submission), "--seed", "3", "--task", "state.dedupe", *options)


def test_every_failing_rule_has_its_own_shrunk_counterexample(tmp_path):
    task = json.loads(_graded(tmp_path, "--json").stdout)["tasks"][0]
    failing = [rule for rule in task["rules"] if rule["status"] == "failed"]
    assert len(failing) >= 3
    calls = [rule["counterexample"] for rule in failing if rule["counterexample"]["call"] == "merge_sources"]
    assert len(calls) >= 3 and all(c["got"] != c["expected"] for c in calls)
    for example in calls:  # shrunk: a handful of short items, not the long random lists drawn first
        assert len(json.dumps(example["args"])) < 40, example
    first, *others = failing
    assert task["feedback"].startswith(first["feedback"]) and task["counterexample"] == first["counterexample"]
    assert task["feedback"].split(ALSO)[1].rstrip(".").split("; ") == \
        [f"({n}) {rule['rule']}" for n, rule in enumerate(others, 2)]


def test_the_scorecard_shows_the_first_in_full_and_the_others_one_line_each(tmp_path):
    short = _graded(tmp_path).stdout.splitlines()
    verbose = _graded(tmp_path, "--verbose").stdout.splitlines()
    numbered = [line.strip() for line in short if line.strip().startswith("(")]
    assert [line[:3] for line in numbered] == [f"({n})" for n in range(2, len(numbered) + 2)] and len(numbered) >= 2
    assert all(len(line) <= 160 for line in numbered)
    assert short[-1] == "every failing rule in full: add --verbose (or --json for the counterexamples)"
    assert not verbose[-1].startswith("every failing rule") and len(verbose) == len(short) - 1
    assert ALSO.strip() not in "\n".join(short)


def test_check_folds_the_other_failing_rules_under_the_first(tmp_path):
    report = json.loads(_graded(tmp_path, "--json").stdout)
    page = scorecard_html(report)
    failing = [rule for rule in report["tasks"][0]["rules"] if rule["status"] == "failed"]
    assert f"<summary>{len(failing) - 1} more rules not passing</summary>" in page
    assert page.count("<li value=") == len(failing) - 1 and ALSO.strip() not in page
