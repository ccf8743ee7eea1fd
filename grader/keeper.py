"""One task's learner process from birth to the end of its sandbox, in a fresh child of the zygote.

The keeper runs as the grader's user, outside the sandbox, and never runs
learner code. For a sandboxed task it

1. makes the task's cgroup (as root, where the machine has one);
2. spawns bubblewrap as the task's uid, and waits until ``cat`` inside
   echoes the ping: the sandbox is complete;
3. points its own next child at the sandbox's pid namespace and forks the
   *learner*, which joins the cgroup, drops to the task's uid, enters the
   sandbox's other namespaces, drops every capability and runs
   ``grader.child.run_learner``: the first process of the sandbox that comes
   from the warm zygote;
4. waits until the learner ends or the grading side asks it to stop
   (``Session`` closes its end of the control socket), then SIGKILLs the
   sandbox's first process — the kernel then kills every process in the pid
   namespace, and the mount and IPC namespaces (with ``/tmp``, ``/dev/shm`` and
   SysV shared memory) go with them — removes the cgroup and reports how the
   learner ended, as one JSON line, before closing the control socket.

A root grader's learner uid cannot read paths under a private directory
(root's home is 0700, and so may be the lab's checkout): the keeper first
bind-mounts what the sandbox needs into a private mount namespace of its own,
under a directory that uid can reach, and points bubblewrap there.

Without a sandbox the keeper forks the learner directly, as a subreaper
that kills whatever the learner detached.
"""

import json
import os
import select
import signal
import tempfile

from grader import bubblewrap, cgroups, child, containment, namespaces
from grader.containment import Limits

__all__ = ["keep"]

# bwrap's two processes and cat run as the task's uid besides the learner's own.
_SANDBOX_PROCESSES = 3


def keep(message: bytes, fds: list[int]) -> None:
    """Entry point in the zygote's child; never returns."""
    conn_fd, output_fd, control_fd = fds
    for fd in fds:  # received inheritable: bubblewrap (and so the sandbox) must not get them through exec
        os.set_inheritable(fd, False)
    try:
        request = json.loads(message)
        limits = Limits(**request["limits"])
        if request["sandbox"]:
            ended = _sandboxed(request, limits, conn_fd, output_fd, control_fd)
        else:
            ended = _unsandboxed(request, limits, conn_fd, output_fd, control_fd)
    except BaseException as exc:  # the grader's own failure: the grading side reports it, not the learner
        ended = {"error": f"{type(exc).__name__}: {exc}"}
    _send(control_fd, ended or {"stopped": True})
    os._exit(0)


def _sandboxed(request: dict, limits: Limits, conn_fd: int, output_fd: int, control_fd: int) -> dict:
    root = os.geteuid() == 0  # asked now: inside a sandbox's user namespace an ordinary user may look like root
    uid = bubblewrap.learner_uid(os.getpid())
    sources = {path: path for path in bubblewrap.runtime_paths()}
    sources[bubblewrap.SUBMISSION] = request["submission"]
    scratch = group = ended = None
    limits_hit = {}
    found = cgroups.detected()
    try:
        if root:
            scratch = tempfile.mkdtemp(prefix=f"agstate-sandbox-{os.getpid()}-")  # named after its keeper
            sources = _reachable(scratch, sources)
        if isinstance(found, cgroups.Cgroups):
            group = found.create(os.getppid(), os.getpid(), limits.memory_bytes, limits.processes + 1)
        with bubblewrap.Sandbox(sources, limits, uid) as sandbox:
            running = containment.tasks_of_uid(uid)
            found_ns = sandbox.namespaces()
            namespaces.enter_pid(found_ns)  # the next child is born in the sandbox's pid namespace
            setup_r, setup_w = os.pipe()
            learner = os.fork()
            if learner == 0:
                os.close(setup_r)
                _become_learner(found_ns, uid if root else None, group, request, limits, running, conn_fd, output_fd,
                                setup_w)
            for fd in (setup_w, conn_fd, output_fd):
                os.close(fd)
            found_ns.close()
            learner_fd = os.pidfd_open(learner)
            stopping = _wait_fds(control_fd, [learner_fd, sandbox.init_fd])
            os.close(learner_fd)
            pid, raw = os.waitpid(learner, os.WNOHANG)
            sandbox.stop()  # the kernel ends every process of the pid namespace, the learner's included
            if not pid:
                _, raw = os.waitpid(learner, 0)
            failure = bubblewrap.read_until_eof(setup_r, 0).decode(errors="replace")
            os.close(setup_r)
            ended = {"error": failure} if failure else None if stopping else _describe_status(raw)
    finally:
        if group is not None:
            limits_hit = {"memory_limit": group.hit_memory_limit(), "process_limit": group.hit_process_limit()}
            group.close()
        if scratch is not None:
            _remove_view(scratch)
    ended = ended or {"stopped": True}  # the grading side asked: it knows why (a time-out, the task's end)
    ended.update(limits_hit)
    return ended


def _become_learner(found: namespaces.Namespaces, uid: int | None, group, request: dict, limits: Limits, running: int,
                    conn_fd: int, output_fd: int, setup_fd: int) -> None:
    """In the keeper's fresh child: into the cgroup, the task's ``uid`` (a root grader's) and the sandbox; then
    the learner's code.

    A failure here is the grader's, told to the keeper on ``setup_fd``, which
    is closed before any learner code runs (so that code cannot write to it).
    """
    try:
        containment.close_fds_except((conn_fd, output_fd, setup_fd, *found.fds.values()))
        if group is not None:
            group.add(0)
        if uid is not None:
            containment.switch_uid(uid)
        namespaces.enter(found)
        found.close()
        namespaces.drop_capabilities()
    except BaseException as exc:
        os.write(setup_fd, f"entering the sandbox failed: {type(exc).__name__}: {exc}".encode())
        os._exit(1)
    os.close(setup_fd)
    child.run_learner(conn_fd, output_fd, request, limits, running + _SANDBOX_PROCESSES)


def _reachable(scratch: str, sources: dict[str, str]) -> dict[str, str]:
    """``sources`` bind-mounted under ``scratch``, which any uid can reach, in a private mount namespace."""
    os.chmod(scratch, 0o711)
    view = os.path.join(scratch, "view")
    os.mkdir(view, 0o755)
    namespaces.unshare_mounts()
    namespaces.mount_tmpfs(view, size=2**20)
    mapped = {}
    for index, (dest, source) in enumerate(sources.items()):
        target = os.path.join(view, str(index))
        os.mkdir(target)
        namespaces.bind(source, target)
        mapped[dest] = target
    return mapped


def _remove_view(scratch: str) -> None:
    view = os.path.join(scratch, "view")
    try:
        namespaces.unmount(view)
    except OSError:
        pass
    for path in (view, scratch):
        try:
            os.rmdir(path)
        except OSError:
            pass


def _unsandboxed(request: dict, limits: Limits, conn_fd: int, output_fd: int, control_fd: int) -> dict:
    """The learner runs as the grader's own user, with rlimits only: for one trusted submission."""
    containment.become_subreaper()
    learner = os.fork()
    if learner == 0:
        child.run_learner(conn_fd, output_fd, request, limits, containment.tasks_of_uid(os.getuid()))
    os.close(conn_fd)
    os.close(output_fd)
    learner_fd = os.pidfd_open(learner)
    stopping = _wait_fds(control_fd, [learner_fd])
    os.close(learner_fd)
    pid, raw = os.waitpid(learner, os.WNOHANG)
    try:
        os.killpg(learner, signal.SIGKILL)  # the learner's session and process group...
    except (ProcessLookupError, PermissionError):
        pass
    if not pid:
        _, raw = os.waitpid(learner, 0)
    containment.kill_descendants()  # ...then whatever it detached
    return None if stopping else _describe_status(raw)


def _wait_fds(control_fd: int, others: list[int]) -> bool:
    """Block until one of the fds is readable; True when it is the grading side asking to stop."""
    return control_fd in select.select([control_fd, *others], [], [])[0]


def _describe_status(raw: int) -> dict:
    if os.WIFSIGNALED(raw):
        return {"signal": signal.Signals(os.WTERMSIG(raw)).name, "code": None}
    return {"signal": None, "code": os.WEXITSTATUS(raw)}


def _send(fd: int, message: dict) -> None:
    try:
        os.write(fd, json.dumps(message).encode() + b"\n")
    except OSError:
        pass  # the grading side is gone: nobody to tell
