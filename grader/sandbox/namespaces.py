"""The few Linux calls that put a forked process into a sandbox bubblewrap has built.

Python 3.11 has no ``os.setns``, ``mount`` or ``capset``; these are thin ctypes
wrappers around libc, each raising ``OSError`` with the call that failed.
The sequence itself (``enter``) follows what ``nsenter`` and ``flatpak enter``
do to join a running bubblewrap instance: the user namespace first, then the
others, then the nested user namespace of ``--disable-userns``; then every
capability is dropped, because entering a user namespace grants them all.
"""

import ctypes
import fcntl
import os

__all__ = ["Namespaces", "enter_pid", "return_pid", "isolate_self", "mount_own_proc", "enter", "drop_capabilities",
           "capabilities", "unshare_mounts", "mount_tmpfs", "bind", "unmount"]

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
_NS_GET_USERNS = 0xB701  # ioctl on a namespace fd: the user namespace that owns it
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC, _MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
_MNT_DETACH = 2
_PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 24, 38, 47, 4
_CAPABILITY_VERSION_3 = 0x20080522

_libc = ctypes.CDLL(None, use_errno=True)
with open("/proc/sys/kernel/cap_last_cap") as _handle:  # read now: a process entering a sandbox has no /proc/self
    _CAP_LAST = int(_handle.read())

# The namespaces of a sandbox, by the name /proc/<pid>/ns/ gives each.
KINDS = {"mnt": CLONE_NEWNS, "pid": CLONE_NEWPID, "ipc": CLONE_NEWIPC, "uts": CLONE_NEWUTS, "net": CLONE_NEWNET}


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


class Namespaces:
    """Open file descriptors of a running sandbox's namespaces (``/proc/<pid>/ns/*``)."""

    def __init__(self, fds: dict[str, int]):
        self.fds = fds

    @classmethod
    def of(cls, pidfd: int) -> "Namespaces":
        """The namespaces of the process ``pidfd`` refers to.

        /proc here may belong to another pid namespace than the caller's (an
        ordinary user's zygote has one of its own): the process's pid as /proc
        knows it comes from the pidfd's fdinfo, read again afterwards to be sure
        it is still that process (a pid is not reused while its process lives).
        """
        pid = _proc_pid(pidfd)
        fds = {}
        try:
            for name in ("user", *KINDS):
                fds[name] = os.open(f"/proc/{pid}/ns/{name}", os.O_RDONLY | os.O_CLOEXEC)
            if _proc_pid(pidfd) != pid:
                raise ProcessLookupError(f"process {pid} ended while its namespaces were opened")
        except OSError:
            cls(fds).close()
            raise
        return cls(fds)

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)
        self.fds = {}


def _proc_pid(pidfd: int) -> int:
    with open(f"/proc/self/fdinfo/{pidfd}") as handle:
        for line in handle:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    raise OSError(f"fd {pidfd} is not a pidfd")


def enter_pid(namespaces: Namespaces) -> None:
    """Make this process's next children be born in the sandbox's pid namespace (it stays where it is).

    The zygote may: it is root, or it owns the user namespace it runs in, an
    ancestor of the sandbox's (``grader.sandbox.zygote``). ``return_pid`` undoes it.
    """
    _check(_libc.setns(namespaces.fds["pid"], CLONE_NEWPID), "setns(pid)")


def return_pid(own: int) -> None:
    """This process's next children are born in its own pid namespace again (``own``: an fd of it)."""
    _check(_libc.setns(own, CLONE_NEWPID), "setns(own pid)")


def isolate_self() -> None:
    """Make this ordinary-user process the owner of new user, pid and mount namespaces (its next child is pid 1).

    Owning them lets it point its children at a sandbox's pid namespace and
    back, as root can; the user namespace maps the user to itself, so files
    on the machine see the same user as before. The next child must mount a
    /proc of its own (``mount_own_proc``): bubblewrap reads its children's
    namespaces there.
    """
    uid, gid = os.geteuid(), os.getegid()
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS), "unshare(user, pid, mount)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)


def mount_own_proc() -> None:
    """A /proc that shows this process's pid namespace (in the first child of ``isolate_self``)."""
    _check(_libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
    _check(_libc.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None), "mount proc /proc")


def enter(namespaces: Namespaces) -> None:
    """Join every other namespace of the sandbox, in a child born in its pid namespace (``enter_pid``).

    The caller is single-threaded and runs as the uid bubblewrap ran as, so it
    owns the sandbox's outer user namespace. That namespace is reached from
    the mount namespace's owner: with ``--disable-userns`` the sandbox's own
    processes sit in a second, nested user namespace, which is joined last.
    """
    if _own_user_namespace() != _outer_user_id(namespaces):
        _enter_outer_user(namespaces)
    for name, kind in KINDS.items():
        if name != "pid":
            _check(_libc.setns(namespaces.fds[name], kind), f"setns({name})")
    _check(_libc.setns(namespaces.fds["user"], CLONE_NEWUSER), "setns(nested user)")
    os.chdir("/")


def _enter_outer_user(namespaces: Namespaces) -> None:
    outer = fcntl.ioctl(namespaces.fds["mnt"], _NS_GET_USERNS)
    try:
        _check(_libc.setns(outer, CLONE_NEWUSER), "setns(user)")
    finally:
        os.close(outer)


def _outer_user_id(namespaces: Namespaces) -> int:
    outer = fcntl.ioctl(namespaces.fds["mnt"], _NS_GET_USERNS)
    try:
        return os.fstat(outer).st_ino
    finally:
        os.close(outer)


def _own_user_namespace() -> int:
    return os.stat("/proc/self/ns/user").st_ino


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities() -> None:
    """No capability left, none to regain: bounding and ambient sets cleared, no_new_privs set."""
    for cap in range(_CAP_LAST + 1):
        _check(_libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0), f"prctl(PR_CAPBSET_DROP, {cap})")
    _check(_libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "prctl(PR_CAP_AMBIENT_CLEAR_ALL)")
    header = _CapHeader(_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")
    _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")


def capabilities() -> dict[str, int]:
    """This process's capability sets, from /proc/self/status (``{"CapEff": 0, ...}``)."""
    with open("/proc/self/status") as handle:
        return {key: int(value, 16) for key, _, value in (line.partition(":\t") for line in handle)
                if key.startswith("Cap")}


def unshare_mounts() -> None:
    """A private copy of this process's mount namespace: what it mounts, nobody else sees (root only)."""
    _check(_libc.unshare(CLONE_NEWNS), "unshare(mount)")
    _check(_libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")


def mount_tmpfs(target: str, size: int, mode: int = 0o755) -> None:
    options = f"mode={mode:o},size={size}".encode()
    _check(_libc.mount(b"tmpfs", os.fsencode(target), b"tmpfs", _MS_NOSUID | _MS_NODEV, options), f"mount tmpfs {target}")


def bind(source: str, target: str) -> None:
    _check(_libc.mount(os.fsencode(source), os.fsencode(target), None, _MS_BIND | _MS_REC, None),
           f"mount --rbind {source} {target}")


def unmount(target: str) -> None:
    _check(_libc.umount2(os.fsencode(target), _MNT_DETACH), f"umount {target}")
