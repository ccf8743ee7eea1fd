"""The grading service's app (grader/service/app.py) served in a thread of this process, with the hub stood in for.

The hub's answer to "whose token is this" is a header here: a request names
its student in ``X-Test-Student`` (``_Handler.hub_user`` is replaced while
the service runs, and put back by ``close()``). tests/test_hub_course.py
runs the service under a real JupyterHub, with the students' real tokens;
this is for the tests and the benchmark that measure the service itself.
"""

import asyncio
import json
import sys
import threading
from pathlib import Path

if __name__ == "__main__":  # run as a file, Python put tests/support/ first on sys.path: tests/ instead, whose package this is
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import requests

from grader.service import app as service
from support.lab_server import free_port

__all__ = ["ServiceInThread", "STUDENT_HEADER"]

STUDENT_HEADER = "X-Test-Student"
PREFIX = "/services/grader/"


async def _as_the_header_says(handler) -> dict | None:
    name = handler.request.headers.get(STUDENT_HEADER)
    return {"kind": "user", "name": name} if name else None


class ServiceInThread:
    """The service with ``settings``, on a free port of loopback, until ``close()``; ``app``: the service's module
    (another revision's, for a benchmark); ``warm``: its warm grader started at once, as the service's ``main`` does
    (else at the first check: a test that grades nothing starts none)."""

    def __init__(self, settings: service.Settings, app=service, warm: bool = False, port: int | None = None):
        self.settings, self.port, self.app = settings, port or free_port(), app
        self.api = f"http://127.0.0.1:{self.port}{PREFIX}api/"
        self._hub_user = app._Handler.hub_user
        app._Handler.hub_user = _as_the_header_says
        app.clear_work(settings.work)
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve():
            asyncio.set_event_loop(self.loop)
            self.checks = app.Checks(settings)
            guards = {name: getattr(settings, name) for name in ("max_connections", "max_unauthenticated", "header_deadline")
                      if hasattr(settings, name)}
            app.make_server(app.make_app(self.checks, PREFIX), **guards).listen(self.port, "127.0.0.1")
            if warm and hasattr(self.checks, "start"):
                self.loop.create_task(self.checks.start())
            self.loop.call_soon(ready.set)
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        if not ready.wait(30):
            raise RuntimeError("the grading service did not start in 30 s")

    def post(self, student: str, files: dict[str, str], target: str | None = None, timeout: float = 600, lang: str = "en"):
        # English unless a test asks otherwise: the service's own locale must not change what a test compares.
        return requests.post(self.api + "check", data=json.dumps({"files": files, "target": target, "lang": lang}),
                             headers={STUDENT_HEADER: student, "Accept-Language": lang.replace("_", "-")}, timeout=timeout)

    def results(self, student: str):
        return requests.get(self.api + "results", headers={STUDENT_HEADER: student}, timeout=30)

    def close(self) -> None:
        if hasattr(self.checks, "close"):
            asyncio.run_coroutine_threadsafe(self.checks.close(), self.loop).result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.app._Handler.hub_user = self._hub_user


def settings(folder: Path, **chosen) -> service.Settings:
    """Settings as a course's, in ``folder``; ``chosen`` overrides them."""
    defaults = dict(practice_secret="practice-secret-of-the-tests", parts=["state"], examples=None, timeout=None, jobs=2,
                    per_minute=3, check_limit=120.0, log=folder / "checks.jsonl", work=folder / "work")
    return service.Settings(**{**defaults, **chosen})


if __name__ == "__main__":
    # A service of its own process (python tests/support/service_in_thread.py FOLDER '<settings as JSON>'), with the descriptors
    # its parent gave it: it prints its port, and serves until its stdin closes. The JSON's "port" (default: a free one)
    # and "warm" (default true: its warm grader started at once) are the server's, not the service's settings.
    chosen = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    port, warm = chosen.pop("port", None), chosen.pop("warm", True)
    running = ServiceInThread(settings(Path(sys.argv[1]), **chosen), warm=warm, port=port)
    print(json.dumps({"port": running.port}), flush=True)
    sys.stdin.read()
    running.close()
