"""JupyterHub 5 for one nbgrader course of this repository (see docs/jupyterhub.md).

Every student and instructor is a Unix user; each gets their own single-user server, started
by the hub as that user (LocalProcessSpawner). Formgrader runs as a hub service under its own
Unix user, the grader account, which owns the course directory and the gradebook. Only members
of the hub group ``formgrade-<course>`` may open it; ``nbgrader-<course>`` lists the students.

Settings come from the environment of the hub's process (a systemd unit's ``Environment=``
lines, say), with these defaults:

  CS336_COURSE          course id, as in the repository's nbgrader_config.py
  CS336_GRADER          Unix user that runs formgrader and the grader
  CS336_COURSE_DIR      the course directory (a checkout of this repository), the grader's
  CS336_EXCHANGE        nbgrader's exchange, laid out by setup-exchange.sh
  CS336_INSTRUCTORS     space-separated hub users who may open formgrader
  CS336_STUDENTS        space-separated hub users of the course
  CS336_DEPLOY          this folder (its student/ and grader/ configs are passed on)
  CS336_ENV             the course environment (a Python prefix with this repository
                        installed; its checkout closed by close-checkout.sh, so that
                        students run it but cannot read the answer key)
  CS336_SERVICE_PORT    the port formgrader listens on, on 127.0.0.1

Authentication is left to the site (set ``c.JupyterHub.authenticator_class`` after loading
this file); the users it lets in must be Unix users.
"""

import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 - injected by traitlets

COURSE = os.environ.get("CS336_COURSE", "cs336-lecture2")
GRADER = os.environ.get("CS336_GRADER", "grader-cs336")
COURSE_DIR = os.environ.get("CS336_COURSE_DIR", f"/home/{GRADER}/{COURSE}")
EXCHANGE = os.environ.get("CS336_EXCHANGE", "/srv/nbgrader/exchange")
INSTRUCTORS = os.environ.get("CS336_INSTRUCTORS", "").split()
STUDENTS = os.environ.get("CS336_STUDENTS", "").split()
DEPLOY = Path(os.environ.get("CS336_DEPLOY", Path(__file__).resolve().parent))
ENV = Path(os.environ.get("CS336_ENV", sys.prefix))
SERVICE_PORT = int(os.environ.get("CS336_SERVICE_PORT", "9999"))
BIN = ENV / "bin"
# what nbgrader_exchange_config.py reads, in every server and in formgrader
NBGRADER = {"CS336_COURSE": COURSE, "CS336_EXCHANGE": EXCHANGE}

# Every user's server: the course environment's JupyterLab, as that Unix user, in their home
# (which must be 0700: Debian's useradd makes it 0755, readable by every other student).
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [str(BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.environment = {
    # nbgrader shells out to alembic, installed beside it
    "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin",
    # nbgrader and Jupyter Server read student/nbgrader_config.py from here
    "JUPYTER_CONFIG_PATH": str(DEPLOY / "student"),
    **NBGRADER,
}
c.Authenticator.allowed_users = set(INSTRUCTORS) | set(STUDENTS)

c.JupyterHub.load_groups = {
    f"formgrade-{COURSE}": {"users": INSTRUCTORS},
    f"nbgrader-{COURSE}": {"users": STUDENTS},
}

# Formgrader: a Jupyter server run by the hub as the grader account, in the course directory.
c.JupyterHub.services = [{
    "name": COURSE,
    "url": f"http://127.0.0.1:{SERVICE_PORT}",
    "command": [str(BIN / "jupyterhub-singleuser")],
    "user": GRADER,
    "cwd": COURSE_DIR,
    "oauth_no_confirm": True,
    "environment": {
        "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin",
        "JUPYTER_CONFIG_PATH": str(DEPLOY / "grader"),
        "CS336_COURSE_DIR": COURSE_DIR,
        **NBGRADER,
        # formgrader opens in its own tab (docs/jupyterhub.md: the frame-ancestors policy)
        "JUPYTERHUB_DEFAULT_URL": "/formgrader",
    },
}]

# JupyterHub 5 grants nothing by default beyond a user's own server (RBAC):
c.JupyterHub.load_roles = [
    {   # instructors reach formgrader, and nobody else does
        "name": f"formgrade-{COURSE}",
        "groups": [f"formgrade-{COURSE}"],
        "scopes": [f"access:services!service={COURSE}"],
    },
    {   # nbgrader's JupyterHubAuthPlugin, in each user's server, reads that user's groups
        # to list their courses: the default server scopes plus exactly that
        "name": "server",
        "scopes": ["users:activity!user", "access:servers!server", "read:users:groups!user",
                   "read:users:name!user"],
    },
]
