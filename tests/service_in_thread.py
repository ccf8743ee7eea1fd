"""The grading service's app (grader/service/app.py) served in a thread of this process, with the hub stood in for.

The hub's answer to "whose token is this" is a header here: a request names
its student in ``X-Test-Student`` (``_Handler.hub_user`` is replaced while
the service runs, and put back by ``close()``). tests/test_hub_service.py
runs the service under a real JupyterHub, with the students' real tokens;
this is for the tests and the benchmark that measure the service itself.
"""

import asyncio
import json
import threading
from pathlib import Path

import requests
from lab_server import free_port

from grader.service import app as service

__all__ = ["ServiceInThread", "STUDENT_HEADER"]

STUDENT_HEADER = "X-Test-Student"
PREFIX = "/services/grader/"


async def _as_the_header_says(handler) -> dict | None:
    name = handler.request.headers.get(STUDENT_HEADER)
    return {"kind": "user", "name": name} if name else None


class ServiceInThread:
    """The service with ``settings``, on a free port of loopback, until ``close()``."""

    def __init__(self, settings: service.Settings):
        self.settings, self.port = settings, free_port()
        self.api = f"http://127.0.0.1:{self.port}{PREFIX}api/"
        self._hub_user = service._Handler.hub_user
        service._Handler.hub_user = _as_the_header_says
        service.clear_work(settings.work)
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve():
            asyncio.set_event_loop(self.loop)
            self.checks = service.Checks(settings)
            service.make_server(service.make_app(self.checks, PREFIX)).listen(self.port, "127.0.0.1")
            self.loop.call_soon(ready.set)
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        if not ready.wait(30):
            raise RuntimeError("the grading service did not start in 30 s")

    def post(self, student: str, files: dict[str, str], target: str | None = None, timeout: float = 600):
        return requests.post(self.api + "check", data=json.dumps({"files": files, "target": target}),
                             headers={STUDENT_HEADER: student}, timeout=timeout)

    def results(self, student: str):
        return requests.get(self.api + "results", headers={STUDENT_HEADER: student}, timeout=30)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        service._Handler.hub_user = self._hub_user


def settings(folder: Path, **chosen) -> service.Settings:
    """Settings as a course's, in ``folder``; ``chosen`` overrides them."""
    defaults = dict(practice_secret="practice-secret-of-the-tests", parts=["state"], examples=None, timeout=None, jobs=2,
                    per_minute=3, check_limit=120.0, log=folder / "checks.jsonl", work=folder / "work")
    return service.Settings(**{**defaults, **chosen})
