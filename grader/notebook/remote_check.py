"""``check()`` through the course's grading service: the files go to the hub's service, the report comes back.

A graded course's students have the course kit, which holds no grader: in
their servers the hub sets ``AGSTATE_GRADING_SERVICE`` (the service's URL)
and ``JUPYTERHUB_API_TOKEN`` (the server's own token, which tells the
service who the student is). This module sends the workspace's
``agstate/*.py`` (plain files; links and caches stay home) and returns the
service's report, for ``check()`` to show as it shows a local one. What
the service would refuse stays home (``grader.package_files``): a notebook's
checkpoint copy fails no check. Only the standard library: the kit has no
HTTP client of its own.

While the hub restarts the service (it died, or is being upgraded), a
check waits for it, up to ``WAIT_FOR_SERVICE`` seconds, and then asks
again: the student's Shift+Enter is not lost to a restart.
"""

import importlib.util
import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path

from grader.i18n import N_, _, language
from grader.package_files import MAX_BYTES, MAX_FILES, file_bytes, read_package

__all__ = ["SERVICE_VARIABLE", "ServiceRefusal", "grade_on_service", "package_files", "service_url", "has_local_grader",
           "grades_on_service", "NO_SERVICE", "left_at_home"]

SERVICE_VARIABLE = "AGSTATE_GRADING_SERVICE"
WAIT_FOR_SERVICE = 120.0
NO_SERVICE = N_("check() grades on your course's grading service, and this server names none (AGSTATE_GRADING_SERVICE is "
                "not set): ask your instructor to add it to the hub's configuration")  # shown as _(NO_SERVICE)
_RESTARTING = {502, 503, 504}  # the hub's proxy, while the service is down


class ServiceRefusal(RuntimeError):
    """The service answered, and did not grade: its sentence says why and what to do."""


def service_url() -> str | None:
    url = os.environ.get(SERVICE_VARIABLE, "").strip()
    return (url.rstrip("/") + "/") if url else None


def has_local_grader() -> bool:
    """Whether this installation can grade by itself (the lab, the self-paced kit), or only ask a service (the course kit)."""
    return importlib.util.find_spec("grader.engine") is not None


def grades_on_service() -> bool:
    """Whether check() asks the course's service here: one is named, or there is no grader to ask instead."""
    return service_url() is not None or not has_local_grader()


def package_files(workspace: Path) -> dict[str, str]:
    """The workspace's ``agstate/`` as the service takes it: each plain ``.py`` file by its path in the package.

    Over the service's bounds, ``ServiceRefusal`` says so before a byte is sent."""
    files = read_package(workspace / "agstate")
    size = sum(len(file_bytes(text)) for text in files.values())
    if len(files) > MAX_FILES or size > MAX_BYTES:
        raise ServiceRefusal(_("agstate/ holds {files} Python files of {size} bytes; the grading service takes at most "
                               "{max_files} files of {max_size} bytes: move what the lab does not need out of agstate/").format(
            files=len(files), size=f"{size:,}", max_files=MAX_FILES, max_size=f"{MAX_BYTES:,}"))
    return files


def left_at_home(workspace: Path) -> list[str]:
    """A sentence per exercise module of ``agstate/`` that is not sent, being a link or no plain file: the service
    then says "missing", and the student should know why."""
    said = []
    for path in sorted((workspace / "agstate").glob("*.py")):
        if path.is_symlink():
            said.append(_("agstate/{name} is a symbolic link: left at home, as the grading service takes plain files "
                          "only; put the file itself there").format(name=path.name))
        elif not path.is_file():
            said.append(_("agstate/{name} is not a plain file: left at home").format(name=path.name))
    return said


def grade_on_service(url: str, workspace: Path, target: str | None, clock=time.monotonic, sleep=time.sleep) -> dict:
    """The service's report on ``workspace``'s files for ``target``; ``ServiceRefusal`` with its sentence otherwise."""
    # Lone surrogates (bytes that are not UTF-8) travel as JSON escapes: the body itself is ASCII. The student's
    # language goes along: the service grades this check in it, as a local check() would speak it.
    body = json.dumps({"files": package_files(workspace), "target": target, "lang": language()}).encode("ascii")
    token = os.environ.get("JUPYTERHUB_API_TOKEN", "")
    request = urllib.request.Request(f"{url}api/check", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"token {token}",
                                              # the service's refusals in the student's language too (es, zh-CN, ru)
                                              "Accept-Language": language().replace("_", "-")})
    deadline, pause = clock() + WAIT_FOR_SERVICE, 1.0
    while True:
        try:
            with urllib.request.urlopen(request, timeout=600) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as error:
            if error.code not in _RESTARTING or clock() > deadline:
                raise ServiceRefusal(_sentence(error)) from None
        except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
            if clock() > deadline:
                raise ServiceRefusal(_("the course's grading service at {url} does not answer ({error}): tell your "
                                       "instructor").format(url=url, error=error)) from None
        sleep(pause)  # the hub is starting it again
        pause = min(pause * 2, 10.0)


def _sentence(error: urllib.error.HTTPError) -> str:
    try:
        said = json.loads(error.read()).get("error")
    except (ValueError, AttributeError, OSError):
        said = None
    return said or _("the course's grading service answered {code} {reason}").format(code=error.code, reason=error.reason)
