"""A call's limit counts the time its processes had a core (grader/sandbox/allowance.py): load never makes a timeout.

The unit cases feed an ``Allowance`` a clock and a queue of their own. The
forced case makes the load for real, and the same on every run: the
learner's process and four busy processes pinned to one core, so a call that
needs 0.15 s of CPU takes about five times that on the wall. It must answer
within an allowance of 0.4 s, and a loop must still be stopped, at the
allowance's stretch (2 s). Without the time given back, the call times out.
"""

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.paths import REFERENCE
from support.submissions import build_submission

from grader.sandbox import allowance
from grader.sandbox.allowance import Allowance
from grader.sandbox.limits import Limits
from grader.sandbox.session import ChildFailed, Session
from grader.sandbox.staging import staged


class Clock:
    def __init__(self):
        self.now, self.queued = 100.0, 0.0

    def install(self, monkeypatch):
        monkeypatch.setattr(allowance.time, "monotonic", lambda: self.now)
        monkeypatch.setattr(allowance, "_queued", lambda: self.queued)
        return self


@pytest.mark.unit
def test_an_allowance_counts_wall_time_when_nothing_waited_for_a_core(monkeypatch):
    clock = Clock().install(monkeypatch)
    allowed = Allowance(2.0)
    clock.now += 1.5
    assert allowed.left() == pytest.approx(0.5)
    clock.now += 0.5
    assert allowed.left() == 0


@pytest.mark.unit
def test_an_allowance_gives_back_the_time_spent_waiting_for_a_core_and_no_more_than_its_stretch(monkeypatch):
    clock = Clock().install(monkeypatch)
    allowed = Allowance(2.0)
    clock.now += 2.5
    clock.queued += 1.0  # of its 2.5 s, 1 s queued for a core: 0.5 s of its own time left
    assert allowed.left() == pytest.approx(0.5)
    clock.now += 0.5
    assert allowed.left() == 0
    clock.queued += 100  # a machine stalled for minutes: at most five times its seconds in all
    assert allowed.left() == pytest.approx(7.0)
    clock.now += 7.0
    assert allowed.left() == 0


@pytest.mark.unit
def test_a_learner_gone_with_its_run_delay_takes_nothing_back(monkeypatch):
    clock = Clock().install(monkeypatch)
    clock.queued = 5.0
    allowed = Allowance(1.0)
    clock.now += 1.0
    clock.queued = 3.0  # a process not unwatched before it went: the total fell
    assert allowed.left() == 0
    clock.queued = 4.0  # still below what it was given back from: nothing more
    assert allowed.left() == 0
    clock.queued = 5.5
    assert allowed.left() == pytest.approx(0.5)


BUSY = '''

def busy():  # a correct call that needs 0.15 s of CPU
    import time
    began = time.process_time()
    while time.process_time() - began < 0.15:
        pass
    return "done"


def spin():
    while True:
        pass
'''


@contextlib.contextmanager
def a_loaded_core(pid: int):
    """Process ``pid`` pinned to a core with four busy processes, each in a session of its own (the kernel shares a
    core fairly between sessions, and the learner's process has one of its own), until the block ends."""
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(pid, {core})
    hogs = [subprocess.Popen([sys.executable, "-c", f"import os\nos.setsid()\nos.sched_setaffinity(0, {{{core}}})\n"
                                                    "while True: pass"]) for _ in range(4)]
    try:
        # Each busy already: past its interpreter's start, in its loop (10 ms of CPU each, in its /proc stat).
        while any(int(Path(f"/proc/{hog.pid}/stat").read_text().rsplit(")", 1)[1].split()[11]) < 1 for hog in hogs):
            time.sleep(0.05)
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


@pytest.mark.part
def test_a_call_slowed_by_a_queue_for_its_core_answers_and_a_loop_is_still_stopped(tmp_path):
    # Costs about 6 s: a learner process started, the busy call's five-fold wall time, the loop's stretch.
    submission = build_submission(tmp_path / "busy", modules={"state.py": (REFERENCE / "state.py").read_text() + BUSY})
    with staged(submission) as (copy, _), Session(copy, "state", Limits(cpu_seconds=30)) as session:
        session.probe("call", "busy", [], timeout=30)  # the module imported, its process's pid known
        with a_loaded_core(session.learner_pid):
            began = time.monotonic()
            answer = session.probe("call", "busy", [], timeout=0.4)
            took = time.monotonic() - began
            assert answer["result"] == "done"
            assert took > 0.4, f"the call took {took:.2f} s: the core was not loaded, and this case shows nothing"

            began = time.monotonic()
            with pytest.raises(ChildFailed) as stopped:
                session.probe("call", "spin", [], timeout=0.4)
            took = time.monotonic() - began
        assert stopped.value.status == "timeout" and "took longer than 0.4 s" in stopped.value.message
        # Queued too, the loop is given back most of its wait: it is stopped at the stretch, five times 0.4 s.
        assert took < 5 * 0.4 + 1.0, f"a loop ran {took:.1f} s on an allowance of 0.4 s"
