"""The example bank: each rule's random examples, drawn once per seed and reused for every submission.

Hypothesis draws a rule's examples from the seed; every submission in a batch
is checked on the same examples, so the drawing is paid once per batch, not
once per submission. Worker processes send the banks they drew back to the
batch's main process (``export``/``merge``), and later workers inherit them.
"""

import hashlib
import json
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st

from grader import wire

__all__ = ["Key", "rule_seed", "rule_settings", "cases", "examples", "export", "merge", "export_json", "merge_json",
           "keep_only", "see_only", "seeds", "inherited"]

_BANK: dict[str, list] = {}
_NEW: set[str] = set()
_SET_ASIDE: list[dict[str, list]] = []  # a fork's banks of other seeds (see_only): never read, never freed


def _from_the_seed_alone() -> None:
    """Make Hypothesis draw from the seed alone, not from the source code of whatever else is loaded.

    Hypothesis mixes string and number literals of every *local* module
    loaded in the process (any module outside site-packages and the test
    folders) into its draws. A seed's examples would then depend on what else
    the grading process imported (pytest's session, the course tools) and on
    whether the grader is checked out or installed as a package: the same seed
    and files would give another report. Its draws of constants come only
    from its built-in list here. ``tests/test_engine.py`` checks this still
    holds (the hook is Hypothesis's internal ``_get_local_constants``).
    """
    from hypothesis.internal.conjecture import providers

    nothing = providers.Constants()
    providers._get_local_constants = lambda: nothing


_from_the_seed_alone()


@dataclass(frozen=True)
class Key:
    """Which examples a rule draws: a task's named example set, at one run seed and example count.

    ``name`` is the name of the test a rule decorates with ``Checker.forall``.
    Two tests of one task with the same name share their examples, and so the
    child's answers to them (a task's rules judging the same runs); the
    checker refuses two such tests drawing from different strategies.
    """

    task: str
    name: str
    run_seed: int
    count: int

    @property
    def seed(self) -> int:
        """The set's own seed, so sets draw independent examples from one run seed."""
        return rule_seed(self.run_seed, self.task, self.name)

    def __str__(self) -> str:
        return f"{self.task}/{self.name}/{self.run_seed}/{self.count}"


def rule_seed(run_seed: int, task_id: str, rule: str) -> int:
    """A rule's own seed, so rules draw independent examples from one run seed."""
    return int.from_bytes(hashlib.sha256(f"{run_seed}/{task_id}/{rule}".encode()).digest()[:8], "big")


def rule_settings(max_examples: int, shrink: bool) -> settings:
    """The same settings for drawing and for shrinking: same seed, same examples, in the same order."""
    phases = [Phase.explicit, Phase.generate] + ([Phase.shrink] if shrink else [])
    return settings(max_examples=max_examples, database=None, deadline=None, derandomize=False,
                    report_multiple_bugs=False, print_blob=False, verbosity=Verbosity.quiet,
                    phases=phases, suppress_health_check=list(HealthCheck))


def examples(bank_key: Key, strategies: tuple) -> list[tuple]:
    """The examples Hypothesis draws for ``strategies`` under ``bank_key`` (drawn once per process, then reused)."""
    key, seed_value, max_examples = str(bank_key), bank_key.seed, bank_key.count
    if key not in _BANK:
        drawn = []

        def collect(case):
            drawn.append(case)

        seed(seed_value)(rule_settings(max_examples, shrink=False)(given(cases(strategies))(collect)))()
        _BANK[key] = drawn
        _NEW.add(key)
    return _BANK[key]


def cases(strategies: tuple):
    """One strategy for a rule's arguments: drawing and shrinking both use it, so their draws match."""
    return st.tuples(*strategies)


def export() -> dict:
    """Banks drawn in this process since the last export (as plain data for another process to ``merge``)."""
    drawn = {key: wire.encode(_BANK[key]) for key in _NEW if key in _BANK}
    _NEW.clear()
    return drawn


def inherited() -> None:
    """Take every bank held now as the process's inheritance (a worker just forked): ``export`` passes on only what
    is drawn after, not again what the process it was forked from holds already."""
    _NEW.clear()


def export_json() -> bytes:
    """``export()`` as JSON, for a file or a pipe to another grading process (``merge_json`` reads it)."""
    return json.dumps(export()).encode()


def merge_json(raw: bytes, ours: bool = False) -> None:
    """``merge`` what ``export_json`` wrote (nothing when ``raw`` is empty)."""
    merge(json.loads(raw or b"{}"), ours)


def merge(banks: dict, ours: bool = False) -> None:
    """Adopt banks another grading process drew; ``ours``: it drew them for this one (a worker of its own), so
    this process's next ``export`` passes them on as if drawn here."""
    for key, data in banks.items():
        if key not in _BANK:
            _BANK[key] = [tuple(case) for case in wire.decode(data)]
            if ours:
                _NEW.add(key)


def _run_seed(key: str) -> int:
    return int(key.rsplit("/", 2)[1])  # str(Key): task/name/run_seed/count


def seeds() -> list[int]:
    """The run seeds this process holds examples of."""
    return list(dict.fromkeys(map(_run_seed, _BANK)))


def see_only(run_seeds) -> None:
    """``keep_only`` for a fork of a process that keeps many seeds (a warm grader's fork grading one student): the
    bank holds only ``run_seeds``' examples, and the others are set aside, unreachable, but not freed. Freeing them
    writes a reference count on every page that holds them, and a fork copies each page it writes: with 60
    students' part ``state`` kept, 62 ms of each check against 12 ms (``benchmarks/warm_fork.py``)."""
    global _BANK
    kept = set(run_seeds)
    _SET_ASIDE.append(_BANK)
    _BANK = {key: cases for key, cases in _BANK.items() if _run_seed(key) in kept}
    _NEW.intersection_update(_BANK)


def keep_only(run_seeds) -> None:
    """Forget the examples of every run seed but ``run_seeds``: a warm grader bounds the seeds it keeps (its fork
    that grades one student sets the others aside instead: ``see_only``)."""
    kept = set(run_seeds)
    for key in [key for key in _BANK if _run_seed(key) not in kept]:
        del _BANK[key]
        _NEW.discard(key)
