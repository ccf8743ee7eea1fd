"""Mutation tests of the grader: each realistic bug, in every part, fails exactly the tasks it breaks.

Every mutant of the corpora in ``tests/mutants/`` is built as a submission
(a copy of ``solutions/agstate`` with the mutant's module) and graded on two
seeds: on the first, the whole part, where the grader must fail exactly the
mutant's ``breaks``, with learner feedback (no grader internals), and give
every other task full marks; on the second, the tasks it breaks, which must
fail again (caught by the rules, not by a lucky draw): there the verdicts
alone, a broken rule's example unshrunk (``shrink=False``). A task it leaves
alone is the reference's code, which ``test_parts.py`` grades on many seeds;
grading them again on the second seed was two fifths of this file's time.
A part's mutants share its few seeds (``SEEDS_PER_PART``), so that each is
drawn once per worker: the seeds pick the examples, the mutants differ.

A mutant the grader misses is a grader bug: fix the grader, never the mutant.
"""

import json
import re
import zlib

import pytest
from support.corpus import Mutant, StaleMutant, apply_edits, corpora
from support.paths import REFERENCE

from grader.engine.registry import MODULES
from grader.engine.runner import grade_submission

pytestmark = pytest.mark.corpus

CORPORA = corpora()  # one per part, found by its name


def _internal_words() -> set[str]:
    """Names a learner never wrote, which feedback must not show: the probes' and scenarios', the grader's types and
    paths."""
    from grader.child import probes
    from grader.engine.remote import SCENARIOS

    probes.load()
    learner_names = set()
    for path in REFERENCE.glob("*.py"):
        learner_names |= set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", path.read_text(encoding="utf-8")))
    return {name for name in [*probes.PROBES, *SCENARIOS] if "_" in name and name not in learner_names} | \
        {"Traceback", "grader/", "Raised(", "Opaque(", "Counterexample(", "Missing:", "_Pending", "wire.", "<locals>",
         "TrustedStream", "trusted_stream", "GraderStream", "GraderStore", "Killed"}


INTERNAL_WORDS = _internal_words()
TIMEOUT = 10.0  # seconds per task; the reference needs about 1 s per task


# A part's mutants share a few seeds: each seed's examples are drawn once in a worker (grader.engine.bank keeps them),
# where a seed per mutant drew them for every grading (a third of this file's time, half of part board's).
SEEDS_PER_PART = 3


def seeds_of(corpus, mutant: Mutant) -> tuple[int, int]:
    """Two seeds per mutant, the same on every run: one of its part's ``SEEDS_PER_PART``, picked by its name, and
    another past it."""
    picked = zlib.crc32(mutant.name.encode()) % SEEDS_PER_PART
    base = zlib.crc32(f"{corpus.name}/{picked}".encode()) % 1_000_000
    return base, base + 1_000_003


MUTANTS = [pytest.param(corpus, mutant, id=f"{corpus.name}-{mutant.name}") for corpus in CORPORA for mutant in corpus.mutants]
# (corpus, mutant, seed, whole part?): the first seed grades the whole part, the second the tasks the mutant breaks
CASES = [pytest.param(corpus, mutant, seed, seed == seeds_of(corpus, mutant)[0], id=f"{corpus.name}-{mutant.name}-seed{seed}")
         for corpus in CORPORA for mutant in corpus.mutants for seed in seeds_of(corpus, mutant)]


# -- the corpora themselves -------------------------------------------------------------------
def test_every_part_has_a_corpus():
    assert sorted(corpus.name for corpus in CORPORA) == sorted(MODULES)


@pytest.mark.parametrize("corpus", CORPORA, ids=[corpus.name for corpus in CORPORA])
def test_corpus_is_large_and_covers_every_task(corpus):
    part = set(corpus.task_ids)
    assert len(corpus.mutants) >= corpus.min_mutants, \
        f"only {len(corpus.mutants)} mutants; the corpus needs at least {corpus.min_mutants}"
    names = [mutant.name for mutant in corpus.mutants]
    assert len(names) == len(set(names)), "mutant names must be unique"
    for mutant in corpus.mutants:
        assert isinstance(mutant.breaks, frozenset) and mutant.breaks, f"{mutant.name}: breaks must be a non-empty frozenset"
        assert mutant.breaks <= part, f"{mutant.name}: unknown task ids {sorted(mutant.breaks - part)}"
        assert mutant.why.strip() and "\n" not in mutant.why, f"{mutant.name}: why must be one line"
    never_broken = part - set().union(*(mutant.breaks for mutant in corpus.mutants))
    assert not never_broken, f"no mutant breaks {sorted(never_broken)}"


@pytest.mark.parametrize(("corpus", "mutant"), MUTANTS)
def test_edits_apply_exactly_once(corpus, mutant):
    """A change to the reference that makes a mutant stale fails here, naming the mutant and the edit."""
    reference = (REFERENCE / corpus.module).read_text(encoding="utf-8")
    source = corpus.mutant_source(mutant)  # raises StaleMutant unless every old text occurs exactly once
    assert source != reference
    compile(source, f"{mutant.name}/agstate/{corpus.module}", "exec")  # a mutant is a bug, not a syntax error


def test_a_stale_edit_fails_loudly():
    reference = (REFERENCE / "state.py").read_text(encoding="utf-8")
    missing = Mutant("missing", frozenset({"state.append"}), [("no such text in the reference", "x")], "stale")
    twice = Mutant("twice", frozenset({"state.append"}), [("### END SOLUTION", "")], "ambiguous")
    empty = Mutant("empty", frozenset({"state.append"}), [], "no edit")
    for stale, count in ((missing, "0 times"), (twice, "times"), (empty, "no edits")):
        with pytest.raises(StaleMutant, match=count):
            apply_edits(reference, stale, "state.py")


# -- the grader against each mutant -------------------------------------------------------------
def _excerpt(report: dict) -> str:
    return "\n".join(f"  {t['id']}: {t['status']} {t['score']}/{t['max_score']} {t.get('feedback', '')!r}"
                     for t in report["tasks"])


@pytest.mark.parametrize(("corpus", "mutant", "seed", "whole_part"), CASES)
def test_grader_fails_exactly_the_broken_tasks(corpus, mutant, seed, whole_part, tmp_path):
    submission = corpus.build_submission(mutant, tmp_path / "submission")
    graded = [task_id for task_id in corpus.task_ids if whole_part or task_id in mutant.breaks]
    # The second seed asks for the verdicts alone: a broken rule's first failing example is not shrunk (shrinking was
    # most of that grading's time, and the smallest counterexample's words are held on the first seed).
    report = grade_submission(str(submission), graded, seed, examples=corpus.examples, timeout=TIMEOUT, shrink=whole_part)
    tasks = {task["id"]: task for task in report["tasks"]}
    context = f"mutant {mutant.name} ({mutant.why}), seed {seed}:\n{_excerpt(report)}"

    assert list(tasks) == graded, context
    failed = {task_id for task_id, task in tasks.items() if task["status"] != "passed"}
    missed = mutant.breaks - failed
    assert not missed, f"the grader did not catch {sorted(missed)}; " + context
    extra = failed - mutant.breaks
    assert not extra, f"the grader also failed {sorted(extra)}, which this mutant does not break; " + context

    for task_id, task in tasks.items():
        for verdict in task.get("rules", []):
            assert verdict["status"] != "grader_error", f"grader error in {task_id}: {verdict['feedback']}; " + context
        if task_id in mutant.breaks:
            assert task["score"] < task["max_score"], f"{task_id} is broken but scored full marks; " + context
            feedback = task["feedback"]
            assert isinstance(feedback, str) and len(feedback.split()) >= 3, f"{task_id} feedback is no sentence; " + context
            said = [feedback] + [f"{v.get('feedback', '')} {json.dumps(v.get('counterexample'))}" for v in task.get("rules", [])]
            for internal in INTERNAL_WORDS:
                ends = r"(?!\w)" if internal[-1].isalnum() or internal[-1] == "_" else ""
                leaked = [text for text in said if re.search(rf"(?<![\w.]){re.escape(internal)}{ends}", text)]
                assert not leaked, f"{task_id} feedback names a grader internal ({internal!r}): {leaked[0]!r}; " + context
        else:
            assert task["score"] == task["max_score"], f"{task_id} passed without full marks; " + context

    if mutant.says and whole_part:  # the words that fix this mistake, in the feedback of the first task it breaks
        first = next(task_id for task_id in corpus.task_ids if task_id in mutant.breaks)
        missing = [words for words in mutant.says if words not in tasks[first]["feedback"]]
        assert not missing, f"{first}'s feedback does not say {missing}; " + context


def test_a_grading_without_shrinking_gives_the_same_verdicts(tmp_path):
    """What the second seed's ``shrink=False`` changes is each broken rule's counterexample, never a verdict: a mutant
    whose broken rules shrink, graded both ways on one seed, has the same statuses, rule by rule, and the same scores.
    (About 15 s: one task graded twice, its examples drawn.)"""
    corpus = next(corpus for corpus in CORPORA if corpus.name == "state")
    mutant = corpus.mutant("merge_last_occurrence")
    submission = corpus.build_submission(mutant, tmp_path / "submission")
    seed = seeds_of(corpus, mutant)[1]
    graded = [task_id for task_id in corpus.task_ids if task_id in mutant.breaks]
    shrunk, first = (grade_submission(str(submission), graded, seed, examples=corpus.examples, timeout=TIMEOUT, shrink=shrink)
                     for shrink in (True, False))

    def verdicts(report):
        return [(task["id"], task["status"], task["score"], [rule["status"] for rule in task.get("rules", [])])
                for task in report["tasks"]]

    assert verdicts(shrunk) == verdicts(first)
    assert any(task["status"] != "passed" for task in first["tasks"])
    # The unshrunk counterexample is the first failing one met, and not the smallest here.
    assert [t["feedback"] for t in shrunk["tasks"]] != [t["feedback"] for t in first["tasks"]]
