"""Which URLs a student's markup may keep (pure functions; imports only the standard library).

Everything here reads a URL the way a browser would, and then accepts only a narrow, plain
form of it, so that no trick of the URL parser (numeric or octal IP addresses, user info,
back slashes, percent-encoded or non-ASCII host names, trailing dots) can name a host other
than the one this module checked. Two rules follow from where the pages are opened:

- nothing may point at the instructor's own machine or network: formgrader runs in the
  instructor's logged-in Jupyter session, where ``<img src="http://localhost:8888/logout">``
  would act with that session the moment the page loads. So no IP address literal at all,
  no single-label name (``localhost``, ``jupyter``, a search-domain name), no reserved
  local suffix (``.localhost``, ``.local``, ``.internal``, ...), and no relative URL;
- images load by themselves, links only when clicked: an image may come from the web only
  from a host the instructor lists (``image_hosts``); otherwise only embedded PNG, JPEG,
  GIF or WebP data. Links may go to public web hosts, to mail addresses and within the page.
"""

from __future__ import annotations

import re
from collections.abc import Collection

# Host names that never leave the instructor's machine or network (RFC 6761, RFC 6762,
# RFC 8375 and common private conventions), matched as the last labels of the name.
LOCAL_SUFFIXES = ("localhost", "local", "internal", "lan", "home.arpa", "localdomain",
                  "intranet", "corp", "private", "test", "invalid", "example")
RASTER_DATA = re.compile(r"^data:image/(png|jpeg|gif|webp)[;,]", re.IGNORECASE)

# Browsers drop tab, CR and LF anywhere in a URL, and C0 controls and spaces at its ends.
_IGNORED_INSIDE = re.compile(r"[\t\n\r]")
_ENDS = "".join(chr(i) for i in range(0x21))
# The plain form accepted for http(s): scheme, two slashes, an ASCII host name (no user
# info, no brackets, no percent signs), an optional port, and a path, query or fragment
# without back slashes (which special URLs read as slashes).
_WEB = re.compile(r"^https?://([A-Za-z0-9.-]{1,253})(?::[0-9]{1,5})?(?:[/?#][^\\]*)?$",
                  re.IGNORECASE)
_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
# WHATWG's "ends in a number": such a host is parsed as an IPv4 address (2130706433,
# 0x7f.1, 0177.0.0.1, 127.1 are all 127.0.0.1)
_NUMBER = re.compile(r"^(?:[0-9]+|0x[0-9a-f]*)$")
_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]{0,20}):")


def as_browser_reads(url: str) -> str:
    """``url`` (an attribute's value, character references already decoded) as a browser
    hands it to its URL parser."""
    return _IGNORED_INSIDE.sub("", url).strip(_ENDS)


def public_host(url: str) -> str | None:
    """The host of an http(s) URL in plain form, lower case and without a final dot, when
    it is a public DNS name; None for anything else (IP literals, local names, odd forms)."""
    match = _WEB.match(url)
    if not match:
        return None
    host = match.group(1).lower()
    host = host[:-1] if host.endswith(".") else host
    labels = host.split(".")
    if len(labels) < 2 or not all(_LABEL.match(label) for label in labels):
        return None
    if _NUMBER.match(labels[-1]):
        return None
    if any(host == suffix or host.endswith("." + suffix) for suffix in LOCAL_SUFFIXES):
        return None
    return host


def normalised_hosts(hosts: Collection[str]) -> frozenset[str]:
    """An instructor's list of image hosts, in the form :func:`public_host` returns."""
    return frozenset(h.strip().lower().rstrip(".") for h in hosts if h.strip())


def scheme(url: str) -> str | None:
    """The URL's scheme in lower case (plain ASCII names only), or None if it has none."""
    match = _SCHEME.match(url.lower())
    return match.group(1) if match else None


def link_problem(url: str) -> str | None:
    """Why ``<a href=url>`` may not stay (plain words), or None when it may."""
    if url.startswith("#"):
        return None
    kind = scheme(url)
    if kind == "mailto":
        return None
    if kind in ("http", "https"):
        return None if public_host(url) else "a link to a local or private address"
    return _other_scheme(kind, "<a href>")


def image_problem(url: str, image_hosts: Collection[str]) -> str | None:
    """Why ``<img src=url>`` may not stay (plain words), or None when it may; web hosts
    only from ``image_hosts`` (as :func:`normalised_hosts` makes them)."""
    if RASTER_DATA.match(url):
        return None
    kind = scheme(url)
    if kind in ("http", "https"):
        host = public_host(url)
        if host is None:
            return "an image from a local or private address"
        return None if host in image_hosts else f"an image from the web ({host})"
    return _other_scheme(kind, "<img src>")


def _other_scheme(kind: str | None, where: str) -> str:
    return f"a {kind}: URL in {where}" if kind else f"a relative URL in {where}"
