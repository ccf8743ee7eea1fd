"""What keeps a learner's child in its box: resource limits, an unprivileged uid, no leftovers.

Applied in the child before the learner's module is imported:
- CPU seconds, address space, open files, file size and process count (rlimits);
- when the grader runs as root, a uid and gid of the child's own (derived
  from its pid, so no two live children share one, even across concurrent
  batches), so the learner's code cannot signal the grader or another
  submission, write the grader's files, or dodge the process limit (root
  ignores RLIMIT_NPROC, and the limit counts every process of a uid);
- every inherited file descriptor closed but the child's own pipe and stdio.
A grading process is a child subreaper: processes the learner detaches
(double fork, setsid) are re-parented to it, and ``kill_descendants`` ends them.
"""

import ctypes
import os
import resource
import signal
import time
from dataclasses import dataclass

__all__ = ["Limits", "apply_in_child", "become_subreaper", "kill_descendants", "DEFAULT_MEMORY_MB"]

DEFAULT_MEMORY_MB = 1024
_PR_SET_CHILD_SUBREAPER = 36
# Far above any real account, below the 32-bit "no uid" value: files the
# learner creates belong to nobody on the machine.
_UID_BASE = 3_900_000_000


@dataclass(frozen=True)
class Limits:
    cpu_seconds: float
    memory_bytes: int = DEFAULT_MEMORY_MB * 2**20
    open_files: int = 256
    processes: int = 64
    file_bytes: int = 64 * 2**20


def _learner_uid() -> int | None:
    """This child's uid for the learner's code: its own when the grader is root, else unchanged."""
    return _UID_BASE + os.getpid() if os.geteuid() == 0 else None


def apply_in_child(limits: Limits, keep_fds: tuple[int, ...]) -> None:
    """Limit this (child) process and drop privileges; irreversible."""
    _close_inherited(keep_fds)
    cpu = max(1, int(limits.cpu_seconds + 0.999))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, then SIGKILL if it is ignored
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    uid = _learner_uid()
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
    else:
        # RLIMIT_NPROC counts every task of the user: leave room for what already runs.
        mine = _tasks_of_uid(os.getuid())
        resource.setrlimit(resource.RLIMIT_NPROC, (mine + limits.processes, mine + limits.processes))


def _close_inherited(keep: tuple[int, ...]) -> None:
    # The grading process's pipes (to other children, to the batch's main
    # process) must not be reachable from the learner's code.
    for fd in sorted(int(name) for name in os.listdir("/proc/self/fd")):
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _tasks_of_uid(uid: int) -> int:
    count = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid:
                count += len(os.listdir(f"/proc/{pid}/task"))
        except OSError:
            continue
    return count


def become_subreaper() -> bool:
    """Adopt orphaned descendants (Linux prctl); False where unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _children_of() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                # The command name may hold spaces and parentheses: parse after the last ')'.
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(pid))
    return children


def kill_descendants(spare: frozenset[int] = frozenset(), rounds: int = 50) -> int:
    """SIGKILL every process below this one, except ``spare`` and theirs, until none is left; how many."""
    killed = 0
    for _ in range(rounds):
        tree, found, todo = _children_of(), [], [os.getpid()]
        while todo:
            for child in tree.get(todo.pop(), []):
                if child not in spare:
                    found.append(child)
                    todo.append(child)
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        _reap(found)
        time.sleep(0.01)
    return killed


def _reap(pids: list[int]) -> None:
    # Only the processes killed here: a spared process's exit status belongs to its owner.
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
