"""One cgroup per learner task: memory and processes limited for the whole tree, not per process.

rlimits bound one process at a time: 64 processes may each hold the whole
``--memory``. A cgroup bounds what the task's processes hold together (tmpfs
pages included) and how many there are. Used when the grader runs as root
and the machine offers the ``memory`` and ``pids`` controllers, through
cgroup v2 or the v1 hierarchies; otherwise ``detect()`` says why not and the
rlimits alone apply (docs/explanation/sandbox.md). ``AGSTATE_CGROUPS=off``
turns cgroups off, to grade (and test) that path on a machine that has them.

Each task's cgroup is created beside the grader's own (under the cgroup the
grader runs in, so the machine's limits on the grader still hold), named
after the process that made it; ``sweep`` removes the ones whose grader died.
"""

import functools
import os
import re
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from grader.sandbox.limits import alive

__all__ = ["Cgroups", "TaskCgroup", "detect", "detected", "DISABLE"]

DISABLE = "AGSTATE_CGROUPS"
_NAME = re.compile(r"agstate-(\d+)-(\d+)")


@dataclass(frozen=True)
class Cgroups:
    """Where task cgroups are made: ``parents`` maps a controller file prefix to the parent directory."""

    version: int
    parents: tuple[tuple[str, Path], ...]  # (("memory", dir), ("pids", dir)) for v1; (("", dir),) for v2

    def describe(self) -> str:
        return f"cgroup v{self.version} (memory and pids for the whole task)"

    def create(self, owner: int, task: int, memory_bytes: int, processes: int) -> "TaskCgroup":
        made = []
        try:
            for controller, parent in self.parents:
                path = parent / f"agstate-{owner}-{task}"
                path.mkdir()
                made.append((controller, path))
            group = TaskCgroup(self.version, tuple(made))
            group.limit(memory_bytes, processes)
            return group
        except OSError:
            TaskCgroup(self.version, tuple(made)).close()
            raise

    def sweep(self) -> int:
        """Remove task cgroups left by graders that are gone (killed before they could clean up)."""
        removed = 0
        for _, parent in self.parents:
            for path in parent.glob("agstate-*-*"):
                match = _NAME.fullmatch(path.name)
                if match and not alive(int(match.group(1))):
                    TaskCgroup(self.version, (("", path),)).close()
                    removed += 1
        return removed


@dataclass(frozen=True)
class TaskCgroup:
    version: int
    dirs: tuple[tuple[str, Path], ...]

    def limit(self, memory_bytes: int, processes: int) -> None:
        for controller, path in self.dirs:
            if self.version == 2:
                _write(path / "memory.max", memory_bytes)
                _write(path / "memory.swap.max", 0, missing_ok=True)
                _write(path / "pids.max", processes)
            elif controller == "memory":
                _write(path / "memory.limit_in_bytes", memory_bytes)
                _write(path / "memory.memsw.limit_in_bytes", memory_bytes, missing_ok=True)  # no swapping past it
            elif controller == "pids":
                _write(path / "pids.max", processes)

    def add(self, pid: int) -> None:
        """Move ``pid`` (0: this process) into the cgroup; its future children are born there."""
        for _, path in self.dirs:
            _write(path / "cgroup.procs", pid)

    def hit_memory_limit(self) -> bool:
        for controller, path in self.dirs:
            if self.version == 2:
                return _event(path / "memory.events", "oom_kill") > 0 or _event(path / "memory.events", "max") > 0
            if controller == "memory":
                return _event(path / "memory.oom_control", "oom_kill") > 0 or _read_int(path / "memory.failcnt") > 0
        return False

    def hit_process_limit(self) -> bool:
        return any(_event(path / "pids.events", "max") > 0 for controller, path in self.dirs
                   if self.version == 2 or controller == "pids")

    def close(self, wait: float = 5.0) -> None:
        """Kill whatever is still in the cgroup, then remove it."""
        deadline = time.monotonic() + wait
        for _, path in self.dirs:
            while path.exists():
                for pid in _pids(path):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                try:
                    path.rmdir()
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break  # sweep() takes it later
                    time.sleep(0.005)


@functools.cache
def detected() -> Cgroups | str:
    """``detect()``, once per process (the zygote asks before it forks any keeper)."""
    return detect()


def detect() -> Cgroups | str:
    """This machine's cgroups for task limits, or a sentence saying why there are none."""
    if os.environ.get(DISABLE, "").lower() in ("0", "off", "no", "false"):
        return f"cgroups are turned off ({DISABLE}={os.environ[DISABLE]})"
    if os.geteuid() != 0:
        return "cgroups need the grader to run as root"
    mounts = _cgroup_mounts()
    membership = _membership()
    if "" in mounts.get(2, {}) and "" in membership:
        found = _v2(mounts[2][""], membership[""])
        if isinstance(found, Cgroups):
            return found
    v1 = mounts.get(1, {})
    if "memory" in v1 and "pids" in v1 and "memory" in membership and "pids" in membership:
        parents = tuple((name, v1[name] / membership[name].lstrip("/")) for name in ("memory", "pids"))
        if all(os.access(parent, os.W_OK) for _, parent in parents):
            return Cgroups(1, parents)
        return "the cgroup v1 memory and pids hierarchies are not writable"
    return "this machine offers no memory and pids cgroup controllers"


def _v2(mount: Path, relative: str) -> Cgroups | str:
    parent = mount / relative.lstrip("/")
    try:
        available = (parent / "cgroup.controllers").read_text().split()
        if not {"memory", "pids"} <= set(available):
            return "cgroup v2 here lacks the memory or pids controller"
        enabled = (parent / "cgroup.subtree_control").read_text().split()
        if not {"memory", "pids"} <= set(enabled):
            # Refused (EBUSY) unless the grader's cgroup is the root one or holds no process itself.
            _write(parent / "cgroup.subtree_control", "+memory +pids")
    except OSError as exc:
        return f"cgroup v2 controllers cannot be delegated to task cgroups ({exc.strerror})"
    return Cgroups(2, (("", parent),))


def _cgroup_mounts() -> dict[int, dict[str, Path]]:
    """Mount points by cgroup version, then controller ("" for v2's one hierarchy)."""
    found: dict[int, dict[str, Path]] = {1: {}, 2: {}}
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            before, _, after = line.partition(" - ")
            fields, rest = before.split(), after.split()
            if len(fields) < 5 or len(rest) < 3:
                continue
            point = Path(fields[4].replace("\\040", " "))
            if rest[0] == "cgroup2":
                found[2].setdefault("", point)
            elif rest[0] == "cgroup":
                for option in rest[2].split(","):
                    if option in ("memory", "pids"):
                        found[1].setdefault(option, point)
    return found


def _membership() -> dict[str, str]:
    """The grader's own cgroup path per controller ("" for v2), from /proc/self/cgroup."""
    found = {}
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                found[controller] = path
    return found


def _write(path: Path, value, missing_ok: bool = False) -> None:
    try:
        with open(path, "w") as handle:
            handle.write(str(value))
    except FileNotFoundError:
        if not missing_ok:
            raise


def _read_int(path: Path) -> int:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def _event(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _pids(path: Path) -> list[int]:
    try:
        return [int(line) for line in (path / "cgroup.procs").read_text().split()]
    except OSError:
        return []
