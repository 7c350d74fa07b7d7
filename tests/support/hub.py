"""Real Unix users, commands run as them, and a JupyterHub run from deploy/jupyterhub/, for the
hub tests. Test support, not product; needs root.

Where the Python installation or the checkout lies under a folder other users cannot enter
(``/root/.pyenv``, say), every process started here runs in a private mount namespace in
which that folder is replaced by an open tmpfs holding binds of just the needed subtrees;
nothing changes for the rest of the machine. In the same namespace the checkout is closed as
deploy/jupyterhub/close-checkout.sh closes the hub's (see ``close_script``).
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from autograder.course import NBGRADER_CONFIG, REPO, instructor_notebook
from support import mounts
from support.nbgrader_course import Course

BIN = Path(sys.executable).parent
DEPLOY = REPO / "deploy" / "jupyterhub"
COURSE = "cs336-lecture2"
PASSWORD = "hub-test"  # the dummy authenticator's, for the browser's log-in
START_S = 300  # for the hub, formgrader and the students' servers together


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def expose_script(hold: Path) -> str:
    """Shell lines that, in a private mount namespace, let every user reach this Python and
    this checkout (``support.mounts``)."""
    return mounts.expose_script(
        [Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), REPO], hold)


def model_checkout(hold: Path) -> Path:
    """A checkout's top level as deploy/jupyterhub/close-checkout.sh leaves it: an empty
    entry for each of this repository's, closed by the script itself (under ``hold``, which
    is root's)."""
    hold.mkdir(mode=0o700, exist_ok=True)
    model = hold / "checkout"
    model.mkdir()
    for entry in REPO.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            (model / entry.name).mkdir()
        else:
            (model / entry.name).touch()
    subprocess.run(["bash", str(DEPLOY / "close-checkout.sh"), str(model)], check=True,
                   capture_output=True)
    return model


def close_script(hold: Path) -> str:
    """Shell lines that, in a private mount namespace, give this checkout the modes of
    ``model_checkout``'s: the entries the script leaves open to others are this checkout's
    own (bound), the others are empty and closed as the script closed them (the hub and the
    grader read nothing of them). The real checkout is not changed."""
    model = hold / "checkout"
    if not model.is_dir():
        return ""
    keep = hold / "repo"
    lines = [f"mkdir -p {keep}", f"mount --bind {REPO} {keep}",
             f"mount -t tmpfs -o mode={model.stat().st_mode & 0o7777:o} tmpfs {REPO}"]
    for entry in sorted(model.iterdir()):
        mode = entry.stat().st_mode
        place = shlex.quote(str(REPO / entry.name))
        if mode & 0o005 == (0o005 if entry.is_dir() else 0o004):  # others may read it
            make = "mkdir" if entry.is_dir() else "touch"
            lines += [f"{make} {place}",
                      f"mount --bind {shlex.quote(str(keep / entry.name))} {place}"]
        elif entry.is_dir():
            lines.append(f"mkdir -m {mode & 0o7777:o} {place}")
        else:
            lines.append(f"install -m {mode & 0o7777:o} /dev/null {place}")
    return "\n".join(lines)


def in_namespace(command: str, hold: Path) -> list[str]:
    """argv that runs the shell ``command`` in a private mount namespace with this Python
    and checkout open to all users, the checkout closed as close-checkout.sh closes it
    once ``model_checkout`` has run."""
    script = "\n".join(["set -e", f"mkdir -p -m 700 {hold}", expose_script(hold),
                         close_script(hold), command])
    return ["unshare", "--mount", "--propagation", "private", "bash", "-c", script]


def account(argv: list[str], check: bool = True) -> None:
    """useradd, groupadd, userdel or groupdel, again while another test holds the lock on
    /etc/passwd or /etc/group (shadow's tools give up at once: "cannot lock ...")."""
    for _ in range(100):
        done = subprocess.run(argv, capture_output=True, text=True)
        if "lock" not in done.stderr:
            break
        time.sleep(0.1)
    if check and done.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)}: {done.stderr}")


class Users:
    """Unix users and groups made for one test, deleted (with their processes) at close."""

    def __init__(self, homes: Path) -> None:
        self.homes = homes
        self.tag = secrets.token_hex(2)
        self.users: list[str] = []
        self.groups: list[str] = []

    def group(self, name: str) -> str:
        name = f"t{self.tag}{name}"
        account(["groupadd", name])
        self.groups.append(name)
        return name

    def user(self, name: str, groups: tuple[str, ...] = ()) -> str:
        name = f"t{self.tag}{name}"
        home = self.homes / name
        account(["useradd", "--no-create-home", "--home-dir", str(home), "--shell",
                 "/bin/bash", "--user-group", *(["-G", ",".join(groups)] if groups else []),
                 name])
        self.users.append(name)
        home.mkdir(mode=0o700)
        os.chown(home, *self.ids(name))
        home.chmod(0o700)  # Debian's useradd would make it 0755: open to other students
        return name

    def ids(self, name: str) -> tuple[int, int]:
        import pwd

        entry = pwd.getpwnam(name)
        return entry.pw_uid, entry.pw_gid

    def home(self, name: str) -> Path:
        return self.homes / name

    def close(self) -> None:
        for name in self.users:
            for _ in range(50):  # userdel refuses while a process of the user is still dying
                subprocess.run(["pkill", "-KILL", "-u", name], check=False)
                if subprocess.run(["pgrep", "-u", name], capture_output=True).returncode:
                    break
                time.sleep(0.1)
            account(["userdel", name], check=False)
        for name in self.groups:
            account(["groupdel", name], check=False)


def run_as(user: str, argv: list[str], hold: Path, cwd: Path, env: dict[str, str] | None = None,
           timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``argv`` as ``user`` (with their groups) in a clean environment."""
    home = Path(os.path.expanduser(f"~{user}"))
    variables = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(home), "USER": user,
                 "LANG": "C.UTF-8", **(env or {})}
    command = (f"cd {shlex.quote(str(cwd))}\nexec setpriv --reuid={user} --regid={user} "
               f"--init-groups -- env -i "
               + " ".join(shlex.quote(f"{k}={v}") for k, v in variables.items()) + " "
               + shlex.join(argv))
    return subprocess.run(in_namespace(command, hold), capture_output=True, text=True,
                          timeout=timeout)


def python_as(user: str, code: str, hold: Path, cwd: Path) -> dict:
    """Run Python ``code`` as ``user``; it must print one JSON object, returned here."""
    run = run_as(user, [sys.executable, "-c", code], hold, cwd, timeout=120)
    if run.returncode != 0:
        raise RuntimeError(f"as {user}: {run.stderr[-2000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


class Hub:
    """HTTP to a running hub: API calls with a token, and requests through its proxy."""

    def __init__(self, url: str, admin_token: str) -> None:
        self.url = url
        self.admin_token = admin_token

    def request(self, path: str, token: str, method: str = "GET", body: object = None,
                timeout: float = 120) -> tuple[int, bytes, dict]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"token {token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.read(), dict(response.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.read(), dict(error.headers)

    def json(self, path: str, token: str, method: str = "GET", body: object = None) -> object:
        status, content, _ = self.request(path, token, method, body)
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {content[:2000]!r}")
        return json.loads(content) if content else None

    def token_for(self, user: str) -> str:
        made = self.json(f"/hub/api/users/{user}/tokens", self.admin_token, "POST",
                         {"note": "hub test"})
        return made["token"]

    def start_server(self, user: str, deadline: float) -> None:
        self.request(f"/hub/api/users/{user}/server", self.admin_token, "POST", {})
        while time.time() < deadline:
            model = self.json(f"/hub/api/users/{user}", self.admin_token)
            server = model.get("servers", {}).get("")
            if server and server.get("ready"):
                return
            time.sleep(0.5)
        raise TimeoutError(f"{user}'s server did not start")


def wait_for(url: str, deadline: float, process: subprocess.Popen,
             any_status: bool = False) -> None:
    """Until ``url`` answers 200 (any HTTP answer, with ``any_status``)."""
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the hub exited ({process.returncode})")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError:
            if any_status:
                return
            time.sleep(0.5)
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"nothing answered at {url}")


@dataclass
class CourseHub:
    """A running hub of deploy/jupyterhub/ for one course, its users and their tokens."""

    work: Path
    hold: Path
    hub: Hub
    root: Path  # the grader's course directory
    exchange: Path
    grader: str
    instructor: str
    students: dict[str, str]  # role (alice, bob, carol) -> Unix user
    env: dict[str, str]
    tokens: dict[str, str] = field(default_factory=dict)
    facts: dict = field(default_factory=dict)

    def formgrader(self, action: str, assignment: str) -> dict:
        """What the instructor's click on ``action`` in formgrader does (its API)."""
        path = f"/services/{COURSE}/formgrader/api/assignment/{assignment}/{action}"
        result = self.hub.json(path, self.tokens[self.instructor], "POST", {})
        if not result.get("success"):
            raise RuntimeError(f"formgrader {action}: {result}")
        return result


def _hub_config(work: Path, hub_port: int, admin_token: str) -> Path:
    """deploy/jupyterhub/jupyterhub_config.py, plus what a test on 127.0.0.1 needs."""
    config = work / "hub" / "jupyterhub_config.py"
    config.write_text(textwrap.dedent(f"""\
        c = get_config()
        load_subconfig({str(DEPLOY / 'jupyterhub_config.py')!r})
        c.JupyterHub.ip = "127.0.0.1"
        c.JupyterHub.port = {hub_port}
        c.JupyterHub.hub_ip = "127.0.0.1"
        c.JupyterHub.hub_port = {free_port()}
        c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{free_port()}"
        c.ConfigurableHTTPProxy.command = [{str(BIN / 'configurable-http-proxy')!r}]
        c.JupyterHub.db_url = "sqlite:///{work / 'hub' / 'jupyterhub.sqlite'}"
        c.JupyterHub.cookie_secret_file = {str(work / 'hub' / 'cookie_secret')!r}
        c.JupyterHub.authenticator_class = "dummy"
        c.DummyAuthenticator.password = {PASSWORD!r}
        c.Spawner.start_timeout = 120
        c.Spawner.http_timeout = 120
        # the test drives the hub through a token of its own
        c.JupyterHub.services.append({{"name": "hub-test", "api_token": {admin_token!r}}})
        c.JupyterHub.load_roles.append({{"name": "hub-test", "services": ["hub-test"],
            "scopes": ["admin:users", "admin:servers", "tokens", "read:users"]}})
        """), encoding="utf-8")
    return config


@contextmanager
def course_hub(assignment: str, roles: tuple[str, ...] = ("alice", "bob", "carol")
               ) -> Iterator[CourseHub]:
    """Users (the grader account, an instructor, a student per role), the grader's course
    holding ``assignment``'s source, the closed exchange, and the hub with formgrader and
    every student's server started; all of it removed afterwards, even on failure."""
    work = Path(tempfile.mkdtemp(prefix="hub-test-", dir="/tmp"))
    work.chmod(0o755)
    (work / "homes").mkdir(mode=0o755)
    (work / "hub").mkdir(mode=0o700)
    hold = work / "hold"
    users = Users(work / "homes")
    process = None
    try:
        model_checkout(hold)  # every process below sees the checkout closed as the docs say
        graders = users.group("graders")
        grader = users.user("grader", (graders,))
        instructor = users.user("inst")
        students = {role: users.user(role) for role in roles}
        root = users.home(grader) / COURSE
        Course(root)
        # the grader's course is a clone of its own (docs/jupyterhub.md), whose
        # nbgrader_config.py is the repository's: not a load of the hub's closed checkout's
        settings = root / "nbgrader_config.py"
        settings.write_text(NBGRADER_CONFIG.read_text()
                            + settings.read_text().split("\n", 2)[2])
        shutil.copy(REPO / "course.toml", root / "course.toml")
        (root / "source" / assignment).mkdir(parents=True)
        shutil.copy(instructor_notebook(assignment),
                    root / "source" / assignment / f"{assignment}.ipynb")
        subprocess.run(["chown", "-R", f"{grader}:{grader}", str(root)], check=True)
        exchange = work / "exchange"
        subprocess.run(["bash", str(DEPLOY / "setup-exchange.sh"), str(exchange), COURSE,
                        grader, graders], check=True, capture_output=True)
        service_port, hub_port = free_port(), free_port()
        env = {"CS336_COURSE": COURSE, "CS336_GRADER": grader, "CS336_COURSE_DIR": str(root),
               "CS336_INSTRUCTORS": instructor, "CS336_STUDENTS": " ".join(students.values()),
               "CS336_EXCHANGE": str(exchange), "CS336_SERVICE_PORT": str(service_port)}
        admin_token = secrets.token_hex(32)
        config = _hub_config(work, hub_port, admin_token)
        with (work / "hub" / "hub.log").open("w") as log:
            process = subprocess.Popen(
                in_namespace(f"cd {work / 'hub'}\nexec {BIN / 'jupyterhub'} -f {config}", hold),
                env={**os.environ, **env, "PATH": f"{BIN}:{os.environ['PATH']}"},
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{hub_port}"
        deadline = time.time() + START_S
        wait_for(url + "/hub/api/", deadline, process)
        hub = Hub(url, admin_token)
        wait_for(f"http://127.0.0.1:{service_port}/", deadline, process, any_status=True)
        running = CourseHub(work=work, hold=hold, hub=hub, root=root, exchange=exchange,
                            grader=grader, instructor=instructor, students=students, env=env)
        running.tokens = {name: hub.token_for(name)
                          for name in [instructor, *students.values()]}
        for name in students.values():
            hub.start_server(name, deadline)
        yield running
    except BaseException:
        log_file = work / "hub" / "hub.log"
        if log_file.exists():
            print(log_file.read_text()[-6000:], file=sys.stderr)
        raise
    finally:
        if process is not None:
            os.killpg(process.pid, 15)  # the hub stops the servers and formgrader it started
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
        users.close()
        shutil.rmtree(work, ignore_errors=True)
