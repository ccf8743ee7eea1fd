"""``agstate-course hub-config``: the whole ``jupyterhub_config.py`` of a hub course, from the course and its layout.

One file an admin installs as it is: who may log in (the students' and
the instructors' Unix groups, through PAM, JupyterHub's default
authenticator: the accounts are the server's own), each account's server
started from its environment (students: the course kit, with the grading
service's address; instructors: their own, with the Formgrader), the
grading service declared as a hub-managed service run as its own account
with the course's parts, examples and timeout (read from the course's
``nbgrader_config.py``, so practice grades as autograde will), its secret
in a file (never on a command line, nor in this file), and the roles that
let students' servers, and only them, use it. TLS with ``--ssl-cert`` and
``--ssl-key``; without them the hub listens on loopback only, for a TLS
proxy in front of it. The layout is recorded in the course folder for
``agstate-course audit`` (``grader.course.hub_layout``).
"""

import pwd
import sys
from pathlib import Path

from grader.course.configs import CourseError, course_settings
from grader.course.hub_layout import HubLayout, layout_of, record_layout

__all__ = ["hub_config", "run"]

_TEMPLATE = '''\
# JupyterHub's configuration of the agstate lab course {course_id!r}, written by `agstate-course hub-config`
# (docs/instructor/hub-course.md). It holds no secret: install it as root, mode 0600, in {config_dir}.
c = get_config()  # noqa: F821

# Who may log in: the server's own accounts (PAM, JupyterHub's default authenticator), in these groups.
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.allowed_groups = {groups}
{listen}
c.JupyterHub.db_url = "sqlite:///{state_dir}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{state_dir}/jupyterhub_cookie_secret"

STUDENTS_SERVER = "{students_env}/bin/jupyterhub-singleuser"
INSTRUCTORS = {instructors!r}
GRADING_SERVICE = "http://127.0.0.1:{port}/services/agstate-grader/"


def each_account_its_environment(spawner):
    """A student's server runs the course kit, which asks the grading service; an instructor's their own environment."""
    server = INSTRUCTORS.get(spawner.user.name, STUDENTS_SERVER)
    spawner.cmd = [server]
    # PATH: the hub's own may point into root's home, where no other account may look.
    spawner.environment = {{"PATH": server.rsplit("/", 1)[0] + ":/usr/local/bin:/usr/bin:/bin",
                           "AGSTATE_GRADING_SERVICE": GRADING_SERVICE}}


c.Spawner.pre_spawn_hook = each_account_its_environment
c.Spawner.default_url = "/lab"

# The grading service: run by the hub as its own account, from its private environment, with the course's settings.
c.JupyterHub.services = [
    {{
        "name": "agstate-grader",
        "url": "http://127.0.0.1:{port}",
        "command": {command!r},
        "user": {service_user!r},
        "cwd": {service_home!r},
        "environment": {{"PATH": "{service_env}/bin:/usr/local/bin:/usr/bin:/bin"}},
    }},
]
# Every user may use it (it grades each as themself only); a server's token carries that scope to check().
c.JupyterHub.load_roles = [
    {{"name": "user", "scopes": ["self", "access:services!service=agstate-grader"]}},
]
c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server", "access:services!service=agstate-grader"]
'''


def hub_config(course: Path, instructors: list[str], layout: HubLayout, ssl_cert: Path | None = None,
               ssl_key: Path | None = None) -> str:
    """The configuration's text for the course in ``course``."""
    settings = course_settings(course)
    if (ssl_cert is None) != (ssl_key is None):
        raise CourseError("give both --ssl-cert and --ssl-key, or neither (then put a TLS proxy in front of the hub)")
    servers = {}
    for given in instructors:
        name, _, env = given.partition("=")
        try:
            home = pwd.getpwnam(name).pw_dir
        except KeyError:
            raise CourseError(f"no account named {name!r} on this server: sudo useradd -m {name}") from None
        servers[name] = f"{env or home + '/agstate-lab/.venv'}/bin/jupyterhub-singleuser"
    # The students' group is the roster: each one's practice examples drawn as the service starts (a first check
    # then draws none).
    command = [f"{layout.service_env}/bin/agstate-grading-service", "--secret-file", layout.secret_file,
               "--instructors", layout.instructors_group, "--roster-group", layout.students_group]
    if settings["parts"]:
        command += ["--part", *settings["parts"]]
    if settings["examples"] is not None:
        command += ["--examples", str(settings["examples"])]
    if settings["timeout"] is not None:
        command += ["--timeout", f"{float(settings['timeout']):g}"]
    if ssl_cert is not None:
        listen = (f'c.JupyterHub.bind_url = "https://:443"\nc.JupyterHub.ssl_cert = {str(ssl_cert)!r}\n'
                  f"c.JupyterHub.ssl_key = {str(ssl_key)!r}")
    else:
        listen = ('# No certificate given: the hub listens on loopback, behind a proxy that terminates TLS (nginx, Caddy).\n'
                  'c.JupyterHub.bind_url = "http://127.0.0.1:8000"')
    groups = "{" + ", ".join(map(repr, sorted({layout.students_group, layout.instructors_group}))) + "}"  # one order
    return _TEMPLATE.format(course_id=settings["course_id"], config_dir=layout.hub_config_dir, groups=groups, listen=listen,
                            state_dir=layout.hub_state_dir, students_env=layout.students_env, instructors=servers,
                            port=layout.service_port, command=command, service_user=layout.service_user,
                            service_home=layout.service_home, service_env=layout.service_env)


def run(args) -> int:
    layout = layout_of(args)
    course = args.directory.resolve()
    text = hub_config(course, args.instructor, layout, args.ssl_cert, args.ssl_key)
    record_layout(course, layout)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    args.output.write_text(text)
    args.output.chmod(0o600)
    print(f"wrote {args.output}; the layout it names is recorded in {course / 'hub-layout.json'} for agstate-course audit; "
          f"as root: install -m 600 {args.output} {layout.hub_config_dir}/jupyterhub_config.py", file=sys.stderr)
    return 0

