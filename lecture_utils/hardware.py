"""Datasheet peaks of common GPUs, and model FLOPs utilisation (MFU) against them.

All figures are dense (no 2:4 sparsity): NVIDIA's headline tensor-core numbers are the sparse
ones, twice these. "fp32" means plain fp32 matmuls; "tf32" applies only when
``torch.backends.cuda.matmul.allow_tf32`` is on. A device missing from the table (a CPU, an
unknown GPU) has no peak: ``peak_flops`` returns None and ``mfu`` then returns None, meaning
"undefined", rather than inventing a number or raising.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import torch

T = 1e12


@dataclass(frozen=True)
class GPUSpec:
    name: str
    pattern: str  # regex matched against torch.cuda.get_device_name()
    memory_bytes: float
    memory_bandwidth: float  # bytes/s
    peak: dict[str, float] = field(default_factory=dict)  # FLOP/s by precision key
    host_link: str = ""  # the bus to host memory, e.g. "PCIe 5.0 ×16"
    host_link_bandwidth: float = 0.0  # bytes/s per direction, nominal


# Nominal per-direction rates of a ×16 slot: ~2 GB/s per lane in PCIe 4.0, ~4 GB/s in 5.0.
PCIE4_X16 = {"host_link": "PCIe 4.0 ×16", "host_link_bandwidth": 32e9}
PCIE5_X16 = {"host_link": "PCIe 5.0 ×16", "host_link_bandwidth": 64e9}


_HOPPER_SXM = {"fp32": 67 * T, "tf32": 494.7 * T, "bf16": 989.5 * T, "fp16": 989.5 * T,
               "fp8": 1979 * T}
_A100 = {"fp32": 19.5 * T, "tf32": 156 * T, "bf16": 312 * T, "fp16": 312 * T}

# More specific patterns come first: "H200 NVL" must not match plain "H200".
GPUS: tuple[GPUSpec, ...] = (
    GPUSpec("A100 SXM", r"A100.*SXM", 80e9, 2.039e12, _A100, **PCIE4_X16),
    GPUSpec("A100 PCIe", r"A100.*PCIE", 80e9, 1.935e12, _A100, **PCIE4_X16),
    GPUSpec("H100 PCIe", r"H100.*PCIE", 80e9, 2.0e12,
            {"fp32": 51 * T, "tf32": 378 * T, "bf16": 756 * T, "fp16": 756 * T,
             "fp8": 1513 * T}, **PCIE5_X16),
    GPUSpec("H100 SXM", r"H100", 80e9, 3.35e12, _HOPPER_SXM, **PCIE5_X16),
    GPUSpec("H200 NVL", r"H200.*NVL", 141e9, 4.8e12,
            {"fp32": 60 * T, "tf32": 417.5 * T, "bf16": 835.5 * T, "fp16": 835.5 * T,
             "fp8": 1670.5 * T}, **PCIE5_X16),
    GPUSpec("H200", r"H200", 141e9, 4.8e12, _HOPPER_SXM, **PCIE5_X16),
    GPUSpec("L4", r"\bL4\b", 24e9, 300e9,
            {"fp32": 30.3 * T, "tf32": 60 * T, "bf16": 121 * T, "fp16": 121 * T,
             "fp8": 242.5 * T}, **PCIE4_X16),
    # GeForce cards run bf16/fp16 with fp32 accumulation (what torch uses) at half rate.
    GPUSpec("RTX 4090", r"RTX 4090", 24e9, 1.008e12,
            {"fp32": 82.6 * T, "tf32": 82.6 * T, "bf16": 165.2 * T, "fp16": 165.2 * T,
             "fp8": 330.3 * T}, **PCIE4_X16),
)

_DTYPE_KEYS = {
    torch.float32: "fp32",
    torch.bfloat16: "bf16",
    torch.float16: "fp16",
    torch.float8_e4m3fn: "fp8",
    torch.float8_e5m2: "fp8",
}


def find_gpu(device_name: str) -> GPUSpec | None:
    """The table entry whose pattern matches ``device_name`` (case-insensitive), else None."""
    for spec in GPUS:
        if re.search(spec.pattern, device_name, flags=re.IGNORECASE):
            return spec
    return None


def precision_key(dtype: torch.dtype | str, *, tf32: bool | None = None) -> str:
    """Table key for a dtype; fp32 becomes "tf32" when TF32 matmuls are enabled."""
    if isinstance(dtype, str):
        return dtype
    if dtype not in _DTYPE_KEYS:
        raise ValueError(f"no peak-FLOP category for {dtype}; known: {list(_DTYPE_KEYS)}")
    key = _DTYPE_KEYS[dtype]
    if key == "fp32":
        if tf32 is None:
            tf32 = torch.backends.cuda.matmul.allow_tf32
        if tf32:
            key = "tf32"
    return key


def peak_flops(
    device_name: str, dtype: torch.dtype | str = torch.float32, *, tf32: bool | None = None
) -> float | None:
    """Dense datasheet FLOP/s for ``device_name`` at ``dtype``; None if not in the table."""
    spec = find_gpu(device_name)
    if spec is None:
        return None
    return spec.peak.get(precision_key(dtype, tf32=tf32))


def device_peak_flops(
    device: torch.device | str, dtype: torch.dtype | str = torch.float32
) -> float | None:
    """Peak for a torch device; CPUs and MPS have no datasheet peak here (None)."""
    device = torch.device(device)
    if device.type != "cuda":
        return None
    return peak_flops(torch.cuda.get_device_name(device), dtype)


def mfu(flops: float, seconds: float, peak_flops_per_sec: float | None) -> float | None:
    """Achieved FLOP/s over peak FLOP/s; None (undefined) when there is no peak."""
    if peak_flops_per_sec is None or peak_flops_per_sec <= 0 or seconds <= 0:
        return None
    return flops / seconds / peak_flops_per_sec


def format_mfu(value: float | None) -> str:
    """``'0.42'``, or a plain statement that MFU is undefined without a datasheet peak."""
    return "undefined (no datasheet peak for this device)" if value is None else f"{value:.2f}"
