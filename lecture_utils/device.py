"""Which device to run on, and how to wait for it.

GPU work is asynchronous: a kernel launch returns before the kernel finishes, so any clock
read around it must first wait for the device (``synchronize``).
"""

from __future__ import annotations

import os

import torch

ENV_VAR = "LECTURE_DEVICE"


def available_devices() -> list[str]:
    """Device types usable here, fastest first; "cpu" is always last."""
    found = []
    if torch.cuda.is_available():
        found.append("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        found.append("mps")
    found.append("cpu")
    return found


def get_device(prefer: str | None = None) -> torch.device:
    """The device the notebooks use: ``prefer``, else $LECTURE_DEVICE, else CUDA > MPS > CPU.

    Asking for a device that is not present raises a ValueError that lists what is present,
    rather than failing later inside a kernel launch.
    """
    wanted = prefer or os.environ.get(ENV_VAR) or available_devices()[0]
    device = torch.device(wanted)
    if device.type not in available_devices():
        raise ValueError(
            f"device {wanted!r} is not available here; available: {available_devices()}"
            f" (unset ${ENV_VAR} or pass one of those)"
        )
    return device


def synchronize(device: torch.device | str | None = None) -> None:
    """Block until all queued work on ``device`` has finished (no-op on CPU)."""
    device = torch.device(device) if device is not None else get_device()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def device_name(device: torch.device | str | None = None) -> str:
    """Human-readable name: the GPU's marketing name, or "cpu"/"mps"."""
    device = torch.device(device) if device is not None else get_device()
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    if device.type == "mps":
        return "Apple MPS"
    return "cpu"


def pick_size(device: torch.device | str, *, cpu: int, gpu: int, mps: int | None = None) -> int:
    """A problem size that suits the device: small on a laptop CPU, lecture-sized on CUDA.

    Apple MPS gets ``mps`` when given, else the CPU size: a laptop GPU is far from a data-centre
    one, and lecture-sized work there would overrun a notebook's one-minute budget.
    """
    kind = torch.device(device).type
    if kind == "cuda":
        return gpu
    if kind == "mps":
        return cpu if mps is None else mps
    return cpu
