"""A seed repeats: the same seed and files give a byte-identical JSON report, from separate processes.

In-process repeats (tests/test_parts.py) share one interpreter; here each run
is a fresh ``agstate-grade``, as two instructors grading the same class are.
The submissions are chosen to depend on what differs between processes when
nothing is fixed: string hashing (a ``set``'s order) and memory addresses.
"""

import pytest
from conftest import run_cli
from mutants import state_mutants

ADDRESS_IN_RESULT = [("    return merged\n", "    return merged + [object()]\n")]  # an object: its repr holds an address


@pytest.mark.parametrize("name", ["merge_via_set", "address_in_result"])
def test_one_seed_gives_one_report_in_separate_processes(make_submission, name, tmp_path):
    if name == "merge_via_set":
        mutant = next(m for m in state_mutants.MUTANTS if m.name == name)
        submission = state_mutants.build_submission(mutant, tmp_path / name)
    else:
        submission = make_submission(edits=ADDRESS_IN_RESULT, name=name)
    runs = [run_cli(str(submission), "--json", "--seed", "4", "--task", "state.dedupe", "--examples", "40") for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout
    assert '"status": "failed"' in runs[0].stdout and '"counterexample": {' in runs[0].stdout
