"""The sandbox a learner's code runs in, as a bubblewrap command line (docs/explanation/sandbox.md).

bubblewrap (``bwrap``, Debian package ``bubblewrap``) builds it: new user,
pid, IPC, network, UTS, cgroup and mount namespaces, no way to make further
user namespaces, and a root that holds only

- the Python runtime and the lab's installed dependencies, read-only, at
  their own paths (so LangGraph's lazy imports still find their files);
- ``/submission``: the task's private copy of the submission, read-only;
- ``/tmp`` and ``/dev/shm``: fresh tmpfs, each capped in size;
- a minimal ``/dev`` and the sandbox's own ``/proc``.

No repository, no other submission, no gradebook, no course folder, no home
directory, no ``/etc``. The grader's own package is hidden even where it is
installed inside the runtime (a wheel in site-packages). Everything in the
sandbox — files, shared memory, processes — goes when its pid namespace's
first process is killed. The sandboxed command is ``cat``: it echoes one
byte once the sandbox is ready and then holds the namespaces open until the
keeper (``grader.sandbox.keeper``) ends the task; the learner's process is forked
from the warm zygote and joins those namespaces (``grader.sandbox.namespaces``).
"""

import functools
import json
import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

from grader.sandbox import namespaces
from grader.sandbox.limits import Limits

__all__ = ["SUBMISSION", "SHARED", "UID_SLOTS", "Sandbox", "executable", "choice", "adopt", "CHOICE", "unavailable", "runtime_paths",
           "command", "read_until_eof",
           "INSTALL_HINT", "NOT_INSTALLED", "learner_uid", "passable"]

SUBMISSION = "/submission"  # where the sandbox sees its submission
SHARED = "/shared"  # where it sees its task's shared folder, when the task has one (grader.sandbox.shared)
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
NOT_INSTALLED = f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
# Learner uids when the grader runs as root: one per running task, far above real accounts, and below
# 2**31 (pids stay below 2**22), which bubblewrap cannot map (it parses uids as signed ints).
_UID_BASE = 2_000_000_000
_TOP_LEVEL = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
_READY_TIMEOUT = 30.0
_EXIT_TIMEOUT = 2.0
_SETPRIV = shutil.which("setpriv") or "/usr/bin/setpriv"


UID_SLOTS = 32  # tasks of one zygote at once, each with a uid of its own


def learner_uid(zygote_pid: int, slot: int) -> int:
    """The uid a task's sandbox runs as: when the grader is root, one no other running task has."""
    return _UID_BASE + (zygote_pid % 2**22) * UID_SLOTS + slot if os.geteuid() == 0 else os.getuid()


# The zygote's bubblewrap is the one the grading side chose (``Zygote`` says which, ``adopt`` takes it): the zygote's
# PATH is its own, and a grading side that found no sandbox must not get sandboxed tasks from its zygote.
_CHOSEN: list[str] = []
def passable(path) -> bool:
    """Whether any uid may go through ``path`` and every folder above it (each lets others search it): a task's uid,
    and bubblewrap running as it, reach what lies below only then."""
    resolved = Path(path).resolve()
    return all(os.stat(folder).st_mode & stat.S_IXOTH for folder in (resolved, *resolved.parents))


CHOICE = "AGSTATE_BWRAP"  # the grading side's choice, in the zygote's environment: bwrap's path, or "" for none


def executable() -> str | None:
    if _CHOSEN:
        return _CHOSEN[0] or None
    return shutil.which("bwrap")


def choice() -> str:
    """What the grading side hands its zygote: bwrap's path when a sandbox can be made here, else ""."""
    return "" if unavailable() else executable()


def adopt(chosen: str) -> None:
    """In the zygote: use the grading side's ``choice()`` (an empty one: no sandbox at all)."""
    _CHOSEN[:] = [chosen]
    unavailable.cache_clear()


@functools.cache
def unavailable() -> str | None:
    """None when a sandbox can be made here; otherwise why not, and what to do."""
    if _CHOSEN:  # in the zygote: the grading side has tried already
        return None if _CHOSEN[0] else "the grading side found no sandbox"
    bwrap = executable()
    if bwrap is None:
        return NOT_INSTALLED
    # The same kind of sandbox a task gets, run as the same kind of uid.
    args = [bwrap, *_namespaces(), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true"]
    as_learner = {}
    if os.geteuid() == 0:
        uid = learner_uid(os.getpid(), 0)
        as_learner = {"user": uid, "group": uid, "extra_groups": []}
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL, **as_learner)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap could not run ({exc}): {INSTALL_HINT}"
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return (f"bubblewrap cannot make a sandbox here ({reason}); it needs unprivileged user namespaces "
                "(sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also "
                "kernel.apparmor_restrict_unprivileged_userns=0)")
    return None


def _namespaces() -> list[str]:
    return ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
            "--hostname", "agstate"]


# What of /usr, and of the interpreter's and the environment's prefixes, the learner's Python needs: programs, shared
# libraries, the standard library and the lab's packages, data (zoneinfo, locales). Never a prefix or /usr whole: a
# checkout or a course placed under one (a container's WORKDIR /usr/src/app, a venv in the checkout) stays out of sight.
_USR_RUNTIME = ("bin", "sbin", "lib", "lib32", "lib64", "libx32", "libexec", "share")
_PREFIX_RUNTIME = ("bin", "lib", "lib32", "lib64", "libx32")


def runtime_paths() -> list[str]:
    """Host directories the learner's Python needs: of /usr, of the interpreter's prefix and of the lab's environment."""
    candidates = {f"/usr/{name}" for name in _USR_RUNTIME}
    for prefix in {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}:
        candidates |= {os.path.join(prefix, name) for name in _PREFIX_RUNTIME}
    candidates.add(os.path.dirname(os.path.realpath(sys.executable)))
    found = []
    for path in sorted(candidates, key=lambda path: (len(path), path)):  # parents before their subdirectories
        if os.path.isdir(path) and not any(_within(path, outer) for outer in found):
            found.append(path)
    return found


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _hidden(bound: list[str]) -> list[str]:
    """Directories to cover with an empty tmpfs: the grader's own package, if it lies inside a bound one."""
    grader = str(Path(__file__).resolve().parent.parent)  # grader/, not grader/sandbox/
    return [grader] if any(_within(grader, path) for path in bound) else []


def command(sources: dict[str, str], tmp_bytes: int, shm_bytes: int, info_fd: int,
            writable: dict[str, str] | None = None) -> list[str]:
    """bwrap's command line; ``sources`` maps each sandbox path to where bwrap reads it on the host.

    ``sources`` holds every ``runtime_paths()`` entry and ``SUBMISSION``; the caller may point
    them at bind mounts of its own (a root grader does, see ``grader.sandbox.keeper``).
    ``writable``: the same for the one folder the sandbox may write to and
    the grading side reads (``SHARED``), when the task has one.
    """
    args = [executable(), *_namespaces()]
    # The fresh file systems first: a runtime that lives under /tmp (a checkout made by mktemp) is then
    # bound on top of the sandbox's own /tmp, not hidden under it.
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(shm_bytes), "--tmpfs", "/dev/shm",
             "--size", str(tmp_bytes), "--tmpfs", "/tmp"]
    for name in _TOP_LEVEL:  # merged-/usr systems have symlinks here; others real directories (/usr: runtime_paths)
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir() and str(host) not in sources and name != "usr":
            args += ["--ro-bind", str(host), str(host)]
    for dest, source in sources.items():
        args += ["--ro-bind", source, dest]
    for dest, source in (writable or {}).items():
        args += ["--bind", source, dest]  # a mount of its own: --remount-ro / below leaves it writable
    for path in _hidden(list(sources)):
        args += ["--size", "4096", "--tmpfs", path]
    args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp",
             "--info-fd", str(info_fd), "--", shutil.which("cat") or "/bin/cat"]
    return args


class Sandbox:
    """A running bwrap whose ``cat`` has echoed the ping; ``stop`` kills its whole pid namespace.

    ``uid``: the uid bwrap runs as; a root grader starts it through util-linux's
    ``setpriv``, so that bwrap is spawned (vfork and exec) rather than forked
    from the large keeper. bwrap's own processes stay out of the task's
    cgroup: only the learner's processes are counted there.
    """

    def __init__(self, sources: dict[str, str], limits: Limits, uid: int, writable: dict[str, str] | None = None):
        self.sources, self.limits, self.uid, self.writable = sources, limits, uid, writable
        self.pid = self.init = self.init_fd = None
        self._ping = self._echo = self._errors = None

    def __enter__(self):
        ping_r, self._ping = os.pipe()
        self._echo, echo_w = os.pipe()
        info_r, info_w = os.pipe()
        self._errors, errors_w = os.pipe()
        args = command(self.sources, self.limits.tmp_bytes, self.limits.shm_bytes, info_w, self.writable)
        if os.geteuid() == 0:
            args = [_SETPRIV, f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups", "--", *args]
        os.set_inheritable(info_w, True)
        try:
            self.pid = os.posix_spawn(args[0], args, {"PATH": "/usr/bin:/bin"},
                                      file_actions=[(os.POSIX_SPAWN_DUP2, ping_r, 0), (os.POSIX_SPAWN_DUP2, echo_w, 1),
                                                    (os.POSIX_SPAWN_DUP2, errors_w, 2)])
        finally:
            for fd in (ping_r, echo_w, info_w, errors_w):
                os.close(fd)
        try:
            info = json.loads(read_until_eof(info_r, _READY_TIMEOUT) or b"{}")
            self.init = info.get("child-pid")
            if not self.init:
                raise RuntimeError(f"bubblewrap did not start: {self._complaint()}")
            self.init_fd = os.pidfd_open(self.init)
            os.write(self._ping, b"x")
            if not select.select([self._echo], [], [], _READY_TIMEOUT)[0] or os.read(self._echo, 1) != b"x":
                raise RuntimeError(f"the sandbox did not come up: {self._complaint()}")
        except BaseException:
            self.__exit__()
            raise
        finally:
            os.close(info_r)
        return self

    def namespaces(self) -> namespaces.Namespaces:
        return namespaces.Namespaces.of(self.init_fd)

    def _complaint(self) -> str:
        self.stop()
        text = read_until_eof(self._errors, 1.0).decode(errors="replace").strip()
        return text.splitlines()[-1] if text else "no message"

    def kill(self) -> None:
        """SIGKILL the sandbox's first process: the kernel kills every other process of its pid namespace.

        The first process's exit completes once those are reaped: a caller that
        forked one of them (the learner) reaps it before ``stop`` waits for bwrap.
        """
        if self.init_fd is not None:
            try:
                signal.pidfd_send_signal(self.init_fd, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.close(self.init_fd)
            self.init_fd = None

    def stop(self) -> None:
        self.kill()
        if self.pid is not None:
            # bwrap's own process reaps the sandbox's first one and exits; SIGKILL only if it does not
            # (its --die-with-parent children then follow).
            outer = os.pidfd_open(self.pid)
            if not select.select([outer], [], [], _EXIT_TIMEOUT)[0]:
                os.kill(self.pid, signal.SIGKILL)
            os.close(outer)
            os.waitpid(self.pid, 0)
            self.pid = None

    def __exit__(self, *exc):
        self.stop()
        for fd in (self._ping, self._echo, self._errors):
            if fd is not None:
                os.close(fd)
        self._ping = self._echo = self._errors = None


def read_until_eof(fd: int, timeout: float) -> bytes:
    """Everything on ``fd`` until EOF or ``timeout`` seconds."""
    data, deadline = b"", time.monotonic() + timeout
    while True:
        if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            return data
        chunk = os.read(fd, 65536)
        if not chunk:
            return data
        data += chunk
