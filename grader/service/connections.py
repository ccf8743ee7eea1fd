"""What the service holds open: its connections capped, a stranger's first to go, descriptors kept for the gradings.

Any local account reaches a port on loopback, with no token: one that held
1,100 idle connections took every file descriptor the service had (1,024)
and stalled the class's checks. So:

- a connection is a *stranger's* until a request on it comes from a user
  the hub vouches for; at most ``strangers`` of them are held, and a new
  one closes the oldest (an idle flood keeps only its latest few, and a
  student's connection comes in all the same);
- at most ``most`` connections in all, and never more than the process's
  descriptors leave once ``RESERVE`` are kept for the gradings, the log and
  the hub's lookups (``connection_cap``);
- the headers of a request must come whole within ``HEADER_DEADLINE``
  seconds of the connection's start or its last answer (tornado's
  ``idle_connection_timeout``, which bounds a header sent a byte at a time
  too).

The documented deployment adds the wall outside (docs/instructor/hub-course.md): only the hub's proxy
reaches the service's port.
"""

import os
import resource
from collections import OrderedDict

from tornado import httpserver, iostream

__all__ = ["Connections", "GuardedServer", "connection_cap", "RESERVE", "HEADER_DEADLINE"]

RESERVE = 128  # descriptors never given to connections
HEADER_DEADLINE = 10.0  # seconds for a request's headers, on a new or an idle connection


def connection_cap(wanted: int) -> int:
    """How many connections the service may hold: ``wanted``, or what its descriptors allow with ``RESERVE`` kept
    (the soft limit raised to the hard one first)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        soft = hard if hard != resource.RLIM_INFINITY else max(soft, wanted + 4 * RESERVE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    in_use = len(os.listdir("/proc/self/fd"))
    return max(1, min(wanted, soft - in_use - RESERVE))


class Connections:
    """The open connections, oldest first, each a stranger's or known (a request of a user the hub vouched for)."""

    def __init__(self, most: int, strangers: int):
        self.most, self.strangers = most, min(strangers, most)
        self._open: OrderedDict[iostream.IOStream, bool] = OrderedDict()

    def admit(self, stream: iostream.IOStream) -> bool:
        """Hold ``stream`` (the oldest strangers closed to make room); False: it was closed, every place is known."""
        for closed in [held for held in self._open if held.closed()]:
            del self._open[closed]
        strangers = [held for held, known in self._open.items() if not known]
        while strangers and (len(strangers) >= self.strangers or len(self._open) >= self.most):
            oldest = strangers.pop(0)
            del self._open[oldest]
            oldest.close()
        if len(self._open) >= self.most:
            stream.close()
            return False
        self._open[stream] = False
        return True

    def trust(self, stream: iostream.IOStream) -> None:
        """A request on ``stream`` came from a user the hub vouches for: it is no stranger's now."""
        if stream in self._open:
            self._open[stream] = True

    def forget(self, stream: iostream.IOStream) -> None:
        self._open.pop(stream, None)

    def counts(self) -> tuple[int, int]:
        """(connections held, strangers' among them)."""
        return len(self._open), sum(not known for known in self._open.values())


class GuardedServer(httpserver.HTTPServer):
    """Tornado's HTTP server with ``connections`` deciding which connection it holds."""

    connections: Connections

    def handle_stream(self, stream: iostream.IOStream, address: tuple) -> None:
        if self.connections.admit(stream):
            super().handle_stream(stream, address)

    def on_close(self, server_conn) -> None:
        self.connections.forget(server_conn.stream)
        super().on_close(server_conn)
