"""A real Dask cluster on this machine for the grader's tests: TLS certificates made with
openssl, a `dask scheduler` and `dask worker` processes started as an instructor would
(docs/cluster.md), all on 127.0.0.1, all stopped at the end."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from support.lab import free_port

REPO = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).with_name("dask")
OPENSSL = shutil.which("openssl")


@dataclass
class Certificates:
    ca: Path
    cert: Path  # one certificate for scheduler, workers and client (CN and SAN 127.0.0.1)
    key: Path

    def flags(self) -> list[str]:
        return ["--tls-ca-file", str(self.ca), "--tls-cert", str(self.cert),
                "--tls-key", str(self.key)]


def make_certificates(folder: Path) -> Certificates:
    """A throw-away CA and a certificate it signed for 127.0.0.1 (openssl, a few ms)."""
    def openssl(*args: str) -> None:
        subprocess.run([OPENSSL, *args], cwd=folder, check=True, capture_output=True)

    folder.mkdir(parents=True, exist_ok=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
            "/CN=test grading CA", "-keyout", "ca.key", "-out", "ca.pem")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
            "-keyout", "node.key", "-out", "node.csr")
    (folder / "san.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                                    "extendedKeyUsage=serverAuth,clientAuth\n")
    openssl("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", "san.cnf", "-out", "node.pem")
    return Certificates(folder / "ca.pem", folder / "node.pem", folder / "node.key")


@dataclass
class Cluster:
    address: str
    certificates: Certificates | None
    folder: Path
    env: dict[str, str]
    processes: list[subprocess.Popen] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # of the workers, in processes[1:]

    def _start(self, args: list[str], log: str) -> subprocess.Popen:
        tls = self.certificates.flags() if self.certificates else []
        with (self.folder / log).open("w") as out:
            process = subprocess.Popen([str(DASK), *args, *tls], cwd=REPO, env=self.env,
                                       stdout=out, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        self.processes.append(process)
        return process

    def add_worker(self, name: str, *extra: str) -> subprocess.Popen:
        self.names.append(name)
        return self._start(["worker", self.address, "--name", name, "--nthreads", "1",
                            "--no-dashboard", "--local-directory", str(self.folder / name),
                            *extra], f"worker-{name}.log")

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-2000:]}"
                         for p in sorted(self.folder.glob("*.log")))

    def stop(self) -> None:
        for process in reversed(self.processes):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=30)


@contextmanager
def running_cluster(folder: Path, *, tls: bool = True, allowed_failures: int = 1):
    """A scheduler on 127.0.0.1 (TLS unless told otherwise), no workers yet."""
    folder.mkdir(parents=True, exist_ok=True)
    certificates = make_certificates(folder / "tls") if tls else None
    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests")]),
               DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=str(allowed_failures),
               DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION="1.0",  # as docs/cluster.md advises
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    scheme = "tls" if tls else "tcp"
    cluster = Cluster(f"{scheme}://127.0.0.1:{port}", certificates, folder, env)
    try:
        cluster._start(["scheduler", "--protocol", scheme, "--host", "127.0.0.1",
                        "--port", str(port), "--no-dashboard"], "scheduler.log")
        deadline = time.time() + 60
        while "Scheduler at" not in (folder / "scheduler.log").read_text():
            assert time.time() < deadline, f"the scheduler did not start:\n{cluster.logs()}"
            time.sleep(0.2)
        yield cluster
    finally:
        cluster.stop()


def wait_for_workers(cluster: Cluster, names: list[str], seconds: float = 120) -> None:
    """Until each named worker has registered with the scheduler (its log says so)."""
    deadline = time.time() + seconds
    for name in names:
        log = cluster.folder / f"worker-{name}.log"
        while "Registered to" not in (log.read_text() if log.exists() else ""):
            assert time.time() < deadline, f"worker {name} did not start:\n{cluster.logs()}"
            time.sleep(0.2)
