"""Lockstep threads (grader.child.lockstep): a racy check-then-append loses on every run; a correct one never does."""

import importlib.util
import textwrap

import pytest

from grader.child.lockstep import CooperativeLock, TracingRemoved, cooperative_locks, run_in_lockstep

pytestmark = pytest.mark.unit

STREAMS = textwrap.dedent('''
    import copy
    import threading

    MODULE_LOCK = threading.Lock()  # made at import: not a cooperative lock


    class Racy:
        def __init__(self):
            self.events = []

        def append(self, event, expected):
            if expected != len(self.events):
                return "stale"
            self.events.append(copy.deepcopy(event))
            return "won"


    class OneLine:  # the check and the append on one line: still two steps apart
        def __init__(self):
            self.events = []

        def append(self, event, expected):
            return (self.events.append(event) or "won") if expected == len(self.events) else "stale"


    class Locked:
        def __init__(self):
            self.events = []
            self.lock = threading.Lock()

        def append(self, event, expected):
            with self.lock:
                if expected != len(self.events):
                    return "stale"
                self.events.append(copy.deepcopy(event))
                return "won"


    class ModuleLocked(Locked):
        def append(self, event, expected):
            with MODULE_LOCK:
                if expected != len(self.events):
                    return "stale"
                self.events.append(event)
                return "won"


    class Atomic:  # lock-free and correct: dict.setdefault is one C call
        def __init__(self):
            self.slots = {}

        def append(self, event, expected):
            return "won" if self.slots.setdefault(expected, event) is event else "stale"


    def fails(message):
        raise ValueError(message)
''')


@pytest.fixture(scope="module")
def streams(tmp_path_factory):
    path = tmp_path_factory.mktemp("learner") / "streams.py"
    path.write_text(STREAMS)
    spec = importlib.util.spec_from_file_location("lockstep_streams", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _race(streams, name, writers, **options):
    with cooperative_locks(streams):
        stream = getattr(streams, name)()
    return run_in_lockstep([lambda i=i: stream.append({"writer": i}, 0) for i in range(writers)], streams.__file__, **options)


@pytest.mark.parametrize("name", ["Racy", "OneLine"])
def test_a_racy_append_lets_every_writer_win_on_every_run(streams, name):
    for writers in (2, 3, 6):
        for _ in range(10):
            assert _race(streams, name, writers) == ["won"] * writers


@pytest.mark.parametrize("name", ["Locked", "Atomic"])
def test_a_correct_append_has_exactly_one_winner_and_never_stalls(streams, name):
    stalls = []
    for writers in (2, 3, 6):
        for _ in range(10):
            assert sorted(_race(streams, name, writers, on_stall=stalls.append)) == ["stale"] * (writers - 1) + ["won"]
    assert stalls == []  # the cooperative lock said who waits: no thread was left to a timeout


def test_a_lock_made_before_the_locks_were_cooperative_is_still_correct_after_a_stall(streams):
    stalls = []
    got = _race(streams, "ModuleLocked", 3, stall_after=0.05, on_stall=stalls.append)
    assert sorted(got) == ["stale", "stale", "won"] and stalls  # slower, never wrong


def test_an_exception_escaping_a_call_is_raised_once_all_threads_are_done(streams):
    with pytest.raises(ValueError, match="second"):
        run_in_lockstep([lambda: 1, lambda: streams.fails("second"), lambda: streams.fails("third")], streams.__file__)


def test_a_cooperative_lock_is_an_ordinary_lock_outside_a_run():
    lock, rlock = CooperativeLock(), CooperativeLock(reentrant=True)
    with lock:
        assert lock.locked() and not lock.acquire(blocking=False)
    assert not lock.locked()
    with rlock, rlock:
        assert rlock.locked()
    assert not rlock.locked()
    with pytest.raises(RuntimeError):
        lock.release()


def test_code_that_turns_the_tracer_off_is_told_so(tmp_path):
    path = tmp_path / "dodger.py"
    path.write_text("import sys\n\n\ndef append():\n    sys.settrace(None)\n    return 'won'\n")
    spec = importlib.util.spec_from_file_location("lockstep_dodger", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(TracingRemoved, match="called sys.settrace"):
        run_in_lockstep([module.append, module.append], str(path))


def test_a_helper_file_beside_the_module_is_stepped_too(tmp_path_factory):
    # Racy code moved out of the graded module into a helper of the same package races all the same:
    # a learner's agstate/streamlib.py imported by agstate/branches.py is not one atomic step.
    folder = tmp_path_factory.mktemp("package")
    (folder / "helper.py").write_text(STREAMS)
    (folder / "module.py").write_text("")
    spec = importlib.util.spec_from_file_location("lockstep_helper", folder / "helper.py")
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    for _ in range(3):
        racy = helper.Racy()
        won = run_in_lockstep([lambda who=who, racy=racy: racy.append(who, 0) for who in "abc"], str(folder / "module.py"))
        assert won == ["won", "won", "won"] and len(racy.events) == 3
