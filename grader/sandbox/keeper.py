"""Each task's learner process, from birth to the end of its sandbox, kept by the zygote (``grader.sandbox.zygote``).

The zygote never runs learner code. For a sandboxed task (``Task``) it

1. makes the task's cgroup (as root, where the machine has one);
2. spawns bubblewrap as the task's uid, and waits until ``cat`` inside
   echoes the ping: the sandbox is complete;
3. points its own next child at the sandbox's pid namespace, forks the
   *learner*, points its children back home and says the learner's pid on
   the control socket (``grader.sandbox.allowance``). The learner joins the
   cgroup, drops to the task's uid, enters the sandbox's other namespaces,
   drops every capability and runs ``run_learner``: process plumbing, then
   ``grader.child.serve``;
4. when the learner ends, or the grading side asks it to stop (``Session``
   closes its end of the control socket), SIGKILLs the sandbox's first
   process — the kernel then kills every process in the pid namespace, and
   the mount and IPC namespaces (with ``/tmp``, ``/dev/shm`` and SysV shared
   memory) go with them — removes the cgroup, and reports how the learner
   ended, as one JSON line, before closing the control socket.

One fork of the large zygote per task, the learner's own: bwrap is spawned,
and the zygote's loop keeps every running task. A root grader's learner uid
cannot read paths under a private directory (root's home is 0700, and so may
be the lab's checkout): ``View`` bind-mounts what the sandbox needs, in the
zygote's private mount namespace, under a directory any uid can reach.

Without a sandbox (``keep_unsandboxed``) a keeper process of its own forks
the learner, as a subreaper that kills whatever the learner detached.
"""

import gc
import json
import os
import select
import signal
import tempfile
from multiprocessing.connection import Connection
from pathlib import Path

from grader.child import serve
from grader.sandbox import bubblewrap, cgroups, namespaces
from grader.sandbox.limits import (
    Limits,
    alive,
    apply_in_child,
    become_subreaper,
    close_fds_except,
    kill_descendants,
    switch_uid,
    tasks_of_uid,
)

__all__ = ["Task", "View", "keep_unsandboxed", "run_learner"]

# bwrap's two processes and cat run as the task's uid besides the learner's own.
_SANDBOX_PROCESSES = 3
# The zygote's running tasks, by control fd. A learner is a fork of the zygote: it forgets them at once.
RUNNING: dict[int, "Task"] = {}
_STARTED = [0]  # tasks this zygote has started: each cgroup's name


class View:
    """The sandbox's sources bind-mounted under one folder any uid can reach (a root grader's zygote only).

    The runtime is mounted once per zygote; each task's submission for the
    length of the task. The mounts live in the zygote's private mount
    namespace: on the machine the folder is empty, and it goes with the zygote.
    """

    def __init__(self):
        self.scratch = tempfile.mkdtemp(prefix=f"agstate-sandbox-{os.getpid()}-", dir=_view_parent())  # named after its zygote
        os.chmod(self.scratch, 0o711)
        self.folder = os.path.join(self.scratch, "view")
        os.mkdir(self.folder, 0o755)
        namespaces.unshare_mounts()
        namespaces.mount_tmpfs(self.folder, size=2**20)
        self.runtime = {path: self._bind(path, f"runtime-{number}")
                        for number, path in enumerate(bubblewrap.runtime_paths())}

    def _bind(self, source: str, name: str) -> str:
        target = os.path.join(self.folder, name)
        os.mkdir(target)
        namespaces.bind(source, target)
        return target

    def add(self, source: str, name: str) -> str:
        return self._bind(source, name)

    def remove(self, target: str) -> None:
        namespaces.unmount(target)
        os.rmdir(target)

    def close(self) -> None:
        namespaces.unmount(self.folder)
        os.rmdir(self.folder)
        os.rmdir(self.scratch)

    @staticmethod
    def sweep() -> None:
        """Remove the (empty) folders of zygotes that died before they could."""
        places = dict.fromkeys((tempfile.gettempdir(), _view_parent()))  # the same folder once
        for path in (found for place in places for found in Path(place).glob("agstate-sandbox-*-*")):
            owner = path.name.split("-")[2]
            if owner.isdigit() and not alive(int(owner)):
                for folder in (path / "view", path):
                    try:
                        folder.rmdir()
                    except OSError:
                        pass


def _view_parent() -> str:
    """The temporary directory when every uid may pass through it; else /tmp. A temporary directory inside a private
    folder (a batch's own, made 0700; a TMPDIR in a 0700 home) would stop each task's uid at that folder, and every
    task would fail as the grader's ("bwrap: Can't find source path …/view/runtime-0: Permission denied")."""
    temporary = tempfile.gettempdir()
    return temporary if bubblewrap.passable(temporary) else "/tmp"


class Task:
    """One sandboxed task: started by the constructor, ended by ``finish``; ``watched`` fds say when."""

    def __init__(self, request: dict, fds: list[int], view: View | None, own_pid_namespace: int):
        self.conn_fd, self.output_fd, self.control = fds
        self.limits = Limits(**request["limits"])
        _STARTED[0] += 1
        self.number = _STARTED[0]
        taken = {task.slot for task in RUNNING.values()}
        self.slot = min(set(range(bubblewrap.UID_SLOTS)) - taken, default=0)
        self.uid = bubblewrap.learner_uid(os.getpid(), self.slot)
        self.view, self.group, self.sandbox, self.submission, self.shared = view, None, None, None, None
        self.learner = self.learner_fd = self.setup_r = None
        try:
            self._start(request, own_pid_namespace)
        except BaseException as exc:  # the grader's failure: said on the control socket, the task goes
            for fd in (self.conn_fd, self.output_fd):  # the learner's ends: its session sees them close
                if fd is not None:
                    os.close(fd)
            self.finish(stopping=True, error=f"{type(exc).__name__}: {exc}")
            raise

    def _start(self, request: dict, own_pid_namespace: int) -> None:
        root = os.geteuid() == 0
        sources = {path: path for path in bubblewrap.runtime_paths()}
        sources[bubblewrap.SUBMISSION] = request["submission"]
        writable = {bubblewrap.SHARED: request["shared"]} if request.get("shared") else {}
        if self.view is not None:
            self.submission = self.view.add(request["submission"], f"submission-{self.control}")
            sources = {**self.view.runtime, bubblewrap.SUBMISSION: self.submission}
            if writable:
                self.shared = writable[bubblewrap.SHARED] = self.view.add(request["shared"], f"shared-{self.control}")
        found = cgroups.detected()
        if isinstance(found, cgroups.Cgroups):
            self.group = found.create(os.getpid(), self.number, self.limits.memory_bytes, self.limits.processes + 1)
        self.sandbox = bubblewrap.Sandbox(sources, self.limits, self.uid, writable).__enter__()
        running = tasks_of_uid(self.uid)
        found_ns = self.sandbox.namespaces()
        self.setup_r, setup_w = os.pipe()
        namespaces.enter_pid(found_ns)  # the next child is born in the sandbox's pid namespace
        try:
            self.learner = os.fork()
        finally:
            if self.learner != 0:
                namespaces.return_pid(own_pid_namespace)
        if self.learner == 0:
            os.close(self.setup_r)
            _become_learner(found_ns, self.uid if root else None, self.group, request, self.limits, running,
                            self.conn_fd, self.output_fd, setup_w)
        # The learner's pid, first: the grading side counts its waits for a core (grader.sandbox.allowance).
        _send(self.control, {"learner": self.learner})
        for fd in (setup_w, self.conn_fd, self.output_fd):
            os.close(fd)
        self.conn_fd = self.output_fd = None
        found_ns.close()
        self.learner_fd = os.pidfd_open(self.learner)

    def watched(self) -> list[int]:
        return [self.control, self.learner_fd, self.sandbox.init_fd]

    def finish(self, stopping: bool, error: str | None = None) -> None:
        """End the sandbox, clean up, tell the grading side how the learner ended; close the control socket."""
        ended, raw, pid = ({"error": error} if error else None), None, None
        if self.learner:
            os.close(self.learner_fd)
            pid, raw = os.waitpid(self.learner, os.WNOHANG)
        if self.sandbox is not None:
            self.sandbox.kill()  # the kernel ends every process of the pid namespace, the learner's included
        if self.learner and not pid:
            _, raw = os.waitpid(self.learner, 0)
        if self.sandbox is not None:
            self.sandbox.__exit__()
        if self.setup_r is not None:
            failure = bubblewrap.read_until_eof(self.setup_r, 0).decode(errors="replace")
            os.close(self.setup_r)
            if not error:
                # "entering": the session says "entering the sandbox failed: ..." (the grader's sentence, in the
                # learner's language: this process, the learners' zygote, loads no catalog).
                ended = {"error": failure, "entering": True} if failure else None if stopping else _describe_status(raw)
        limits_hit = {}
        if self.group is not None:
            limits_hit = {"memory_limit": self.group.hit_memory_limit(), "process_limit": self.group.hit_process_limit()}
            self.group.close()
        for bound in (self.submission, self.shared):
            if bound is not None:
                self.view.remove(bound)
        _send(self.control, {**(ended or {"stopped": True}), **({} if error else limits_hit)})
        os.close(self.control)


def _become_learner(found: namespaces.Namespaces, uid: int | None, group, request: dict, limits: Limits, running: int,
                    conn_fd: int, output_fd: int, setup_fd: int) -> None:
    """In the zygote's fresh child: into the cgroup, the task's ``uid`` (a root grader's) and the sandbox;
    then the learner's code.

    A failure here is the grader's, told to the zygote on ``setup_fd``, which is
    closed before any learner code runs (so that code cannot write to it).
    """
    try:
        RUNNING.clear()  # the other tasks' requests are nothing of this learner's
        gc.collect()
        close_fds_except((conn_fd, output_fd, setup_fd, *found.fds.values()))
        if group is not None:
            group.add(0)
        if uid is not None:
            switch_uid(uid)
        namespaces.enter(found)
        found.close()
        namespaces.drop_capabilities()
    except BaseException as exc:
        os.write(setup_fd, f"{type(exc).__name__}: {exc}".encode())
        os._exit(1)
    os.close(setup_fd)
    run_learner(conn_fd, output_fd, request, limits, running + _SANDBOX_PROCESSES)


def keep_unsandboxed(request: dict, fds: list[int]) -> None:
    """``--no-sandbox``: in a keeper of its own, the learner runs as the grader's user, with rlimits only."""
    conn_fd, output_fd, control_fd = fds
    RUNNING.clear()
    try:
        # Counted before the fds are closed: an ordinary user's zygote counts through the machine's /proc, an fd.
        running = tasks_of_uid(os.getuid())
        close_fds_except(tuple(fds))
        become_subreaper()
        learner = os.fork()
    except BaseException as exc:  # the grader's failure, not the learner's: said on the control socket
        _send(control_fd, {"error": f"{type(exc).__name__}: {exc}"})
        os._exit(0)
    if learner == 0:
        run_learner(conn_fd, output_fd, request, Limits(**request["limits"]), running)
    _send(control_fd, {"learner": learner})  # first, as a sandboxed task's keeper says it
    os.close(conn_fd)
    os.close(output_fd)
    learner_fd = os.pidfd_open(learner)
    stopping = control_fd in select.select([control_fd, learner_fd], [], [])[0]
    pid, raw = os.waitpid(learner, os.WNOHANG)
    try:
        os.killpg(learner, signal.SIGKILL)  # the learner's session and process group...
    except (ProcessLookupError, PermissionError):
        pass
    if not pid:
        _, raw = os.waitpid(learner, 0)
    kill_descendants()  # ...then whatever it detached
    _send(control_fd, {"stopped": True} if stopping else _describe_status(raw))
    os._exit(0)


def _describe_status(raw: int) -> dict:
    if os.WIFSIGNALED(raw):
        return {"signal": signal.Signals(os.WTERMSIG(raw)).name, "code": None}
    return {"signal": None, "code": os.WEXITSTATUS(raw)}


def _send(fd: int, message: dict) -> None:
    try:
        os.write(fd, json.dumps(message).encode() + b"\n")
    except OSError:
        pass  # the grading side is gone: nobody to tell


def run_learner(conn_fd: int, output_fd: int, request: dict, limits: Limits, processes_running: int):
    """The learner's process: contained, then serving probes until the grading side hangs up; never returns."""
    try:
        os.setsid()
        # The learner's prints go to a pipe the grader drains and caps, never to
        # the grader's stdout (--json stays one clean document).
        os.dup2(output_fd, 1)
        os.dup2(output_fd, 2)
        os.close(output_fd)
        if request["sandbox"]:
            os.environ.update(HOME="/tmp", TMPDIR="/tmp")
            tempfile.tempdir = None  # the zygote's choice was the host's
            os.chdir("/tmp")
        apply_in_child(limits, keep_fds=(conn_fd,), processes_running=processes_running)
        serve.serve(Connection(conn_fd), request["learner_submission"], request["module"], request.get("hook", True))
    finally:
        os._exit(0)
