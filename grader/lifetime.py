"""A helper process that must not outlive the one that started it.

Linux's ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: when the parent dies, however
it dies (SIGKILL included), the kernel kills this process too. A batch's
worker, a warm grader's drawer and the grading service's gradings each hold
sandboxes (which follow with bubblewrap's ``--die-with-parent``) and
folders their parent removes: left running, they would grade for nobody.
"""

import ctypes
import signal

__all__ = ["die_with_parent"]

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """From now on, this process is killed when its parent dies (call it in the child, after fork)."""
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
