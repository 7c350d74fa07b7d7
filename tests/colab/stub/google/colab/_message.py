"""The twin's `google.colab._message`: the kernel → front-end requests of Colab's API.

On Colab, `blocking_request(request_type, request="", timeout_sec=5, parent=None)` (signature
from colabtools' google/colab/_message.py) sends a request to the browser and returns its reply,
or None on timeout; for "get_ipynb" the reply is `{"ipynb": <the open notebook as a dict>}`.
The twin has no browser: it reads that notebook from the file named by COLAB_TWIN_NOTEBOOK.
"""

from __future__ import annotations

import json
import os
from typing import Any


class MessageError(Exception):
    """What Colab raises when the front end answers a request with an error."""


def blocking_request(request_type: str, request: Any = "", timeout_sec: float | None = 5,
                     parent: Any = None) -> Any:
    if request_type != "get_ipynb":
        raise MessageError(f"the Colab twin does not answer {request_type!r} requests")
    path = os.environ.get("COLAB_TWIN_NOTEBOOK")
    if not path:
        return None  # as on Colab when the front end does not answer in time
    with open(path, encoding="utf-8") as file:
        return {"ipynb": json.load(file)}
