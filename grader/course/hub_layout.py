"""Where a hub course keeps what its students must not reach, and the check that none of it is in their reach.

The paths are the ones docs/instructor/hub-course.md creates, as defaults:
the students' environment, the grading service's environment, its folder
(log, checks in progress), its practice secret, the hub's own folders, and
the groups of the service, the instructors and the students.
``agstate-course hub-config`` takes them as options, writes the hub's
configuration from them and records them in the course folder
(``hub-layout.json``); ``agstate-course audit`` then checks exactly those
paths, with ``layout_problems``: each way a student's account can read or
write them, with the command that fixes it.
"""

import argparse
import glob
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from grader.exposure import readable_by_others, writable_by_others

__all__ = ["HubLayout", "add_layout_arguments", "layout_of", "layout_problems", "record_layout", "recorded_layout", "RECORD",
           "CHECKOUT_RECORD"]

RECORD = "hub-layout.json"  # in the course folder
CHECKOUT_RECORD = Path("share") / "agstate-lab" / "checkout"  # in an environment: the checkout it was built from


@dataclass(frozen=True)
class HubLayout:
    students_env: str = "/opt/agstate-students"
    service_env: str = "/opt/agstate-grading"
    service_user: str = "agstate-grading"
    service_home: str = "/var/lib/agstate-grading"
    secret_file: str = "/etc/agstate-grading/practice-secret"
    service_port: int = 10101
    hub_config_dir: str = "/etc/jupyterhub"
    hub_state_dir: str = "/srv/jupyterhub"
    instructors_group: str = "agstate-instructors"
    students_group: str = "agstate-students"


_HELP = {
    "students_env": "the students' environment (make students-env KIT=course)",
    "service_env": "the grading service's environment (make grading-service)",
    "service_user": "the grading service's account",
    "service_home": "the grading service's folder: its log, its checks in progress",
    "secret_file": "the practice secret's file, the service's account's only",
    "service_port": "the port the service listens on, on loopback",
    "hub_config_dir": "the hub's configuration folder",
    "hub_state_dir": "the hub's database and cookie secret",
    "instructors_group": "the Unix group of the instructors: they may log in and read the service's log",
    "students_group": "the Unix group of the students: they may log in",
}


def add_layout_arguments(parser: argparse.ArgumentParser) -> None:
    for field in fields(HubLayout):
        flag = "--" + field.name.replace("_", "-")
        parser.add_argument(flag, dest=field.name, type=field.type if field.type is int else str, default=field.default,
                            help=f"{_HELP[field.name]} (default {field.default})")


def layout_of(args) -> HubLayout:
    return HubLayout(**{field.name: getattr(args, field.name) for field in fields(HubLayout)})


def record_layout(course: Path, layout: HubLayout) -> None:
    (course / RECORD).write_text(json.dumps(asdict(layout), indent=1) + "\n")


def recorded_layout(course: Path) -> HubLayout | None:
    try:
        return HubLayout(**json.loads((course / RECORD).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _group(name: str) -> frozenset[str]:
    import grp

    from grader.exposure import group_members

    try:
        return frozenset(group_members(grp.getgrnam(name).gr_gid))
    except KeyError:
        return frozenset()


def layout_problems(layout: HubLayout) -> list[str]:
    """Each way another account can reach what the layout keeps private, with its fix; a path not there is skipped."""
    service = frozenset({layout.service_user})
    private = [(layout.service_env, service, "the grading service's environment (the grader: its models and rules)"),
               (str(Path(layout.secret_file).parent), service, "the folder of the practice secret"),
               (layout.secret_file, service, "the practice secret"),
               (layout.service_home, service | _group(layout.instructors_group), "the grading service's log"),
               (layout.hub_config_dir, frozenset(), "the hub's configuration"),
               (layout.hub_state_dir, frozenset(), "the hub's database and cookie secret")]
    problems = []
    for path, trusted, what in private:
        who = readable_by_others(path, trusted)
        if who:
            recursive = "" if Path(path) == Path(layout.secret_file) else "-R "  # every other path is a folder
            problems.append(f"{who} can read {path}, {what}: sudo chmod {recursive}o-rwx {path}")
        who = writable_by_others(path, trusted)
        if who:
            problems.append(f"{who} can write {path}, {what}: sudo chmod go-w {path}")
    engine = glob.glob(str(Path(layout.students_env, "lib", "python3*", "site-packages", "grader", "engine")))
    if engine:
        problems.append(f"the students' environment {layout.students_env} holds the grader ({engine[0]}): every student "
                        f"reads its models; build it from the course kit: sudo make students-env KIT=course "
                        f"PREFIX={layout.students_env}")
    for env in (layout.students_env, layout.service_env):
        checkout = _checkout_of(env)
        if checkout is not None:
            who = readable_by_others(checkout / "solutions")
            if who:
                problems.append(f"{who} can read {checkout / 'solutions'}, the reference solutions, in the checkout "
                                f"{env} was built from: sudo chmod 700 {checkout} (or remove it)")
    return problems


def _checkout_of(env: str) -> Path | None:
    try:
        return Path((Path(env) / CHECKOUT_RECORD).read_text().strip())
    except OSError:
        return None
