"""Per-process limits on the learner's code, and the cleanup of what it leaves running.

Applied in the learner's process before its module is imported, sandbox or
not: CPU seconds, address space, open files, file size and process count
(rlimits), every inherited file descriptor closed but its own pipe and stdio.
The sandbox (``grader.sandbox.bubblewrap``) decides what the process can see; the
task's cgroup (``grader.sandbox.cgroups``), where there is one, bounds its whole tree.

Without a sandbox (``--no-sandbox``) a root grader still runs each task
under a uid of its own, and the task's keeper is a child subreaper:
processes the learner detaches (double fork, setsid) are re-parented to it,
and ``kill_descendants`` ends them.
"""

import ctypes
import os
import resource
import signal
import time
from dataclasses import asdict, dataclass

__all__ = ["Limits", "apply_in_child", "close_fds_except", "switch_uid", "keep_machine_proc", "tasks_of_uid",
           "alive", "become_subreaper", "kill_descendants",
           "DEFAULT_MEMORY_MB"]

DEFAULT_MEMORY_MB = 1024
_PR_SET_CHILD_SUBREAPER = 36


@dataclass(frozen=True)
class Limits:
    cpu_seconds: float
    memory_bytes: int = DEFAULT_MEMORY_MB * 2**20
    open_files: int = 256
    processes: int = 64
    file_bytes: int = 64 * 2**20
    tmp_bytes: int = 64 * 2**20  # the sandbox's /tmp
    shm_bytes: int = 16 * 2**20  # the sandbox's /dev/shm

    def as_dict(self) -> dict:
        return asdict(self)


def apply_in_child(limits: Limits, keep_fds: tuple[int, ...], processes_running: int) -> None:
    """Limit this (learner) process; irreversible.

    RLIMIT_NPROC counts every process and thread of the uid, machine-wide:
    ``processes_running`` is how many it had already, counted outside any sandbox.
    """
    close_fds_except(keep_fds)
    cpu = max(1, int(limits.cpu_seconds + 0.999))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, then SIGKILL if it is ignored
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    processes = processes_running + limits.processes
    resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))


def switch_uid(uid: int) -> None:
    """Become ``uid`` (and its gid, with no supplementary groups) for good; only root can."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def close_fds_except(keep: tuple[int, ...]) -> None:
    """Close every file descriptor above stderr but ``keep``: no pipe of another process stays reachable."""
    for fd in sorted(int(name) for name in os.listdir("/proc/self/fd")):
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


_MACHINE_PROC: list[int] = []  # an fd of the machine's /proc, when this process mounts one of its own


def keep_machine_proc() -> None:
    """Hold on to the machine's /proc before a /proc of another pid namespace covers it."""
    _MACHINE_PROC.append(os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))


def tasks_of_uid(uid: int) -> int:
    """Processes and threads of ``uid`` on the machine (as far as this process can see)."""
    proc = _MACHINE_PROC[0] if _MACHINE_PROC else os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        count = 0
        for pid in filter(str.isdigit, os.listdir(proc)):
            try:
                if os.stat(pid, dir_fd=proc).st_uid == uid:
                    count += len(_listdir_at(proc, f"{pid}/task"))
            except OSError:
                continue
        return count
    finally:
        if not _MACHINE_PROC:
            os.close(proc)


def _listdir_at(folder: int, path: str) -> list[str]:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=folder)
    try:
        return os.listdir(fd)
    finally:
        os.close(fd)


def alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (owned by anyone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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


def kill_descendants(rounds: int = 50) -> int:
    """SIGKILL every process below this one until none is left; how many."""
    killed = 0
    for _ in range(rounds):
        tree, found, todo = _children_of(), [], [os.getpid()]
        while todo:
            for child in tree.get(todo.pop(), []):
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
        for pid in found:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
        time.sleep(0.01)
    return killed
