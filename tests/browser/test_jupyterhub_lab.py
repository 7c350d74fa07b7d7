"""The course's hub (deploy/jupyterhub/) in Chromium: a student logs in and JupyterLab's
Assignments panel lists the released assignment; the instructor opens formgrader in its own
tab (docs/jupyterhub.md: the hub's frame-ancestors policy blanks it inside JupyterLab) and
it lists the assignment. The hub itself is set up as in tests/test_jupyterhub.py."""

from __future__ import annotations

import os
import re
import shutil

import pytest
from support.hub import COURSE, PASSWORD, course_hub
from support.lab import menu

A = "00_napkin_math"  # any assignment: nothing is graded here
pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="makes Unix users and starts servers as "
                       "them, which needs root"),
    pytest.mark.skipif(not (shutil.which("unshare") and shutil.which("setpriv")
                            and shutil.which("useradd")),
                       reason="needs util-linux's unshare and setpriv, and useradd"),
]


@pytest.fixture(scope="module")
def hub():
    with course_hub(A, roles=("alice",)) as running:
        running.formgrader("assign", A)
        running.formgrader("release", A)
        yield running


def _log_in(page, hub, user: str) -> None:
    page.goto(f"{hub.hub.url}/hub/login")
    page.fill("input[name=username]", user)
    page.fill("input[name=password]", PASSWORD)
    page.click("input[type=submit], button[type=submit]")
    page.wait_for_url(re.compile(r".*/(user|hub)/.*"), timeout=60_000)


def test_a_students_lab_lists_the_released_assignment(browser, hub):
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    student = hub.students["alice"]
    _log_in(page, hub, student)
    page.goto(f"{hub.hub.url}/user/{student}/lab")
    page.locator(".lm-MenuBar-itemLabel").first.wait_for(timeout=120_000)
    menu(page, "Nbgrader", "Assignment List")
    released = page.locator("#released_assignments_list")
    released.get_by_text(A).first.wait_for(timeout=60_000)
    assert COURSE in released.text_content()
    page.context.close()


def test_the_instructor_opens_formgrader_in_its_own_tab(browser, hub):
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    _log_in(page, hub, hub.instructor)
    response = page.goto(f"{hub.hub.url}/services/{COURSE}/formgrader/manage_assignments")
    page.locator("td.name a", has_text=re.compile(f"^{A}$")).wait_for(timeout=60_000)
    # shown at the top level, under the hub's own policy: nothing was loosened for it
    assert "frame-ancestors 'none'" in response.headers.get("content-security-policy", "")
    page.context.close()
