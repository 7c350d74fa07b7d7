"""The local Dask cluster ``grade`` starts by default is not on the network.

It runs in the grading process (one worker, threads): its comms are in-process, and the HTTP
servers Dask always starts for the scheduler and the worker listen on 127.0.0.1 and serve
nothing, unless the instructor asks for the dashboard, which then stays on loopback. Before
this, every default ``grade`` served Dask's dashboard (student ids in task names) on all
interfaces, port 8787, without authentication.

The cluster is started exactly as ``run_on_dask`` starts it (``cluster._client``).
"""

from __future__ import annotations

import ipaddress
import urllib.error
import urllib.request

import psutil
import pytest

from autograder.cluster import ClusterOptions, _client
from autograder.course_dirs import GradeError

DASK_DASHBOARD_PORT = 8787  # Dask's default
PAGES = ["/health", "/info/main/workers.html", "/metrics", "/status", "/json/index.html"]


def _listening() -> set[tuple[str, int]]:
    """(address, port) of every TCP socket this process listens on."""
    return {(c.laddr.ip, c.laddr.port)
            for c in psutil.Process().net_connections(kind="inet")
            if c.status == psutil.CONN_LISTEN}


def _http_status(port: int, page: str) -> int | None:
    """The HTTP status 127.0.0.1:port answers for page, or None if nothing answers."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{page}", timeout=5) as reply:
            return reply.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def test_local_cluster_listens_on_loopback_only_and_serves_nothing() -> None:
    before = _listening()
    dashboard_was_up = _http_status(DASK_DASHBOARD_PORT, "/health") is not None
    with _client(ClusterOptions(), jobs=2) as client:
        opened = _listening() - before
        assert client.scheduler.address.startswith("inproc://")  # comms never leave us
        public = [(ip, port) for ip, port in opened if not ipaddress.ip_address(ip).is_loopback]
        assert not public, f"the local cluster listens on the network: {public}"
        assert DASK_DASHBOARD_PORT not in {port for _, port in opened}
        if not dashboard_was_up:  # (something else on this machine may own the port)
            assert _http_status(DASK_DASHBOARD_PORT, "/health") is None
        for _, port in opened:  # Dask's HTTP servers: bound, but with no pages at all
            assert {page: _http_status(port, page) for page in PAGES} == \
                {page: 404 for page in PAGES}
    assert _listening() <= before  # and all closed with the cluster


def test_dashboard_on_request_is_on_loopback() -> None:
    before = _listening()
    with _client(ClusterOptions(dashboard_port=0), jobs=1) as client:
        opened = _listening() - before
        assert opened and all(ipaddress.ip_address(ip).is_loopback for ip, _ in opened)
        port = client.cluster.scheduler.http_server.port
        assert _http_status(port, "/health") == 200
        assert _http_status(port, "/info/main/workers.html") == 200


def test_dashboard_is_for_the_local_cluster_only() -> None:
    options = ClusterOptions(scheduler="tls://grader.example.edu:8786", dashboard_port=8787)
    with pytest.raises(GradeError, match="dashboard"), _client(options, jobs=1):
        pass
