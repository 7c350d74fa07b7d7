"""Datasheet peaks of common GPUs, and model FLOPs utilisation (MFU) against them.

All figures are dense (no 2:4 sparsity): NVIDIA's headline tensor-core numbers are the sparse
ones, twice these, so the table halves them. "fp32" means plain fp32 matmuls; "tf32" applies
only when ``torch.backends.cuda.matmul.allow_tf32`` is on. Every entry names its ``source``.

Two ways in:

* ``find_gpu(device_name)`` takes what ``torch.cuda.get_device_name()`` returns and matches it
  exactly (ignoring case and runs of whitespace) against each entry's ``device_names``. A name
  the table does not list (a CPU, an unknown GPU, a MIG slice, a 40 GB card when only the 80 GB
  one were listed) gives None, never a sibling's figures: ``peak_flops`` then returns None and
  ``fraction_of_peak`` returns None, meaning "undefined", rather than inventing a number or raising.
* ``gpu(name)`` takes a display name such as ``"H100 SXM"``, for notebooks that talk about a
  GPU they are not running on; an unknown name raises a KeyError listing the known ones.

Which 16-bit type a GPU multiplies in hardware is a question of its compute capability, not of
what torch will run: ``native_bf16`` answers it, and ``format_mfu`` says why an MFU is missing
or meaningless (bf16 on a T4 runs emulated; TF32 there is plain fp32).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import torch

from lecture_utils.i18n import N_, tr_format

T = 1e12

# Ampere (compute capability 8.0) is the first NVIDIA architecture whose tensor cores take bf16
# and TF32. On older GPUs (Colab's T4 is 7.5) torch still runs bf16 matmuls, converted to fp32
# in software, and torch.cuda.is_bf16_supported() answers True there: its including_emulation
# argument defaults to True (torch/cuda/__init__.py; pytorch/pytorch PR #148322 asked for a
# warning). The notebooks therefore ask the compute capability, through ``native_bf16``.
NATIVE_BF16_CAPABILITY = (8, 0)
BF16_EMULATED = N_("{gpu} (compute capability {capability}) has no bf16 hardware: bf16 runs "
                   "emulated here, so its speed and its MFU mean nothing; fp16 is this GPU's "
                   "tensor-core path.")


@dataclass(frozen=True, kw_only=True)
class GPUSpec:
    name: str  # display name, unique: "A100 SXM4 40GB", "H100 SXM", "T4"
    device_names: tuple[str, ...]  # exact strings torch.cuda.get_device_name() returns for it
    memory_bytes: float
    memory_bandwidth: float  # bytes/s
    peak: dict[str, float] = field(default_factory=dict)  # dense FLOP/s by precision key
    host_link: str  # the bus to host memory, e.g. "PCIe 5.0 ×16"
    host_link_bandwidth: float  # bytes/s per direction, nominal
    source: str  # the datasheet (title, date) the figures come from
    note: str = ""  # where sources disagree or a figure needs a caveat, which one we follow


# Nominal per-direction rates of a ×16 slot: ~1 GB/s per lane in PCIe 3.0, ~2 in 4.0, ~4 in 5.0.
PCIE3_X16 = {"host_link": "PCIe 3.0 ×16", "host_link_bandwidth": 16e9}
PCIE4_X16 = {"host_link": "PCIe 4.0 ×16", "host_link_bandwidth": 32e9}
PCIE5_X16 = {"host_link": "PCIe 5.0 ×16", "host_link_bandwidth": 64e9}
# Grace Hopper has no PCIe hop to host memory: NVLink-C2C is 900 GB/s both ways together.
NVLINK_C2C = {"host_link": "NVLink-C2C", "host_link_bandwidth": 450e9}

# H100 SXM5: fp32 and halves of the datasheet's sparse tensor figures (1979 → 989.5, 3958 →
# 1979); TF32 494.7 is the Hopper whitepaper's unrounded dense figure (datasheet: 989 sparse).
_HOPPER_SXM = {"fp32": 67 * T, "tf32": 494.7 * T, "bf16": 989.5 * T, "fp16": 989.5 * T,
               "fp8": 1979 * T}
# The NVL cards (H100 NVL, H200 NVL) run the same GH100 at a lower power limit.
_HOPPER_NVL = {"fp32": 60 * T, "tf32": 417.5 * T, "bf16": 835.5 * T, "fp16": 835.5 * T,
               "fp8": 1670.5 * T}
# A100's compute is the same in all four variants; memory and bandwidth differ.
_A100 = {"fp32": 19.5 * T, "tf32": 156 * T, "bf16": 312 * T, "fp16": 312 * T}

_A100_40GB_SOURCE = "NVIDIA A100 Tensor Core GPU datasheet, 2020 (A100 40GB PCIe and SXM)"
_A100_80GB_SOURCE = "NVIDIA A100 Tensor Core GPU datasheet, 2021 (A100 80GB PCIe and SXM)"
_H100_SOURCE = "NVIDIA H100 Tensor Core GPU datasheet, 2023 (H100 SXM and H100 NVL columns)"
_H100_PCIE_SOURCE = "NVIDIA H100 Tensor Core GPU datasheet, 2022 (H100 SXM and H100 PCIe columns)"
_H200_SOURCE = "NVIDIA H200 Tensor Core GPU datasheet, 2024 (H200 SXM and H200 NVL columns)"

GPUS: tuple[GPUSpec, ...] = (
    GPUSpec(
        name="A100 SXM4 40GB",
        # Drivers before ~R470 reported the name without the "NVIDIA " prefix.
        device_names=("NVIDIA A100-SXM4-40GB", "A100-SXM4-40GB"),
        memory_bytes=40e9, memory_bandwidth=1.555e12, peak=_A100, **PCIE4_X16,
        source=_A100_40GB_SOURCE,
    ),
    GPUSpec(
        name="A100 SXM4 80GB",
        # "A100-SXM-80GB": what early (2021) drivers called the 80 GB SXM4 board.
        device_names=("NVIDIA A100-SXM4-80GB", "A100-SXM-80GB"),
        memory_bytes=80e9, memory_bandwidth=2.039e12, peak=_A100, **PCIE4_X16,
        source=_A100_80GB_SOURCE,
    ),
    GPUSpec(
        name="A100 PCIe 40GB",
        device_names=("NVIDIA A100-PCIE-40GB",),
        memory_bytes=40e9, memory_bandwidth=1.555e12, peak=_A100, **PCIE4_X16,
        source=_A100_40GB_SOURCE,
    ),
    GPUSpec(
        name="A100 PCIe 80GB",
        device_names=("NVIDIA A100 80GB PCIe",),
        memory_bytes=80e9, memory_bandwidth=1.935e12, peak=_A100, **PCIE4_X16,
        source=_A100_80GB_SOURCE,
    ),
    GPUSpec(
        name="H100 SXM",
        device_names=("NVIDIA H100 80GB HBM3",),
        memory_bytes=80e9, memory_bandwidth=3.35e12, peak=_HOPPER_SXM, **PCIE5_X16,
        source=_H100_SOURCE + "; TF32 dense from the NVIDIA H100 Tensor Core GPU "
        "Architecture whitepaper, 2022",
    ),
    GPUSpec(
        name="H100 PCIe",
        device_names=("NVIDIA H100 PCIe",),
        memory_bytes=80e9, memory_bandwidth=2.0e12,
        peak={"fp32": 51 * T, "tf32": 378 * T, "bf16": 756.5 * T, "fp16": 756.5 * T,
              "fp8": 1513 * T},
        **PCIE5_X16, source=_H100_PCIE_SOURCE,
    ),
    GPUSpec(
        name="H100 NVL",
        device_names=("NVIDIA H100 NVL",),
        memory_bytes=94e9, memory_bandwidth=3.9e12, peak=_HOPPER_NVL, **PCIE5_X16,
        source=_H100_SOURCE,
        note="Per GPU. The 2023 launch material quoted the NVLink-bridged pair (188 GB, "
        "7.8 TB/s); the datasheet's per-GPU column is what one torch device sees.",
    ),
    GPUSpec(
        name="H200",
        device_names=("NVIDIA H200",),
        memory_bytes=141e9, memory_bandwidth=4.8e12, peak=_HOPPER_SXM, **PCIE5_X16,
        source=_H200_SOURCE,
    ),
    GPUSpec(
        name="H200 NVL",
        device_names=("NVIDIA H200 NVL",),
        memory_bytes=141e9, memory_bandwidth=4.8e12, peak=_HOPPER_NVL, **PCIE5_X16,
        source=_H200_SOURCE,
    ),
    GPUSpec(
        name="GH200 480GB",
        # 96 GB HBM3 GPU + 480 GB LPDDR5X CPU memory. The 144 GB HBM3e superchip reports
        # "NVIDIA GH200 144G HBM3e" and has other memory figures, so it is not listed here.
        device_names=("NVIDIA GH200 480GB",),
        memory_bytes=96e9, memory_bandwidth=4.0e12, peak=_HOPPER_SXM, **NVLINK_C2C,
        source="NVIDIA GH200 Grace Hopper Superchip datasheet, 2024 (96GB HBM3 column)",
        note="The datasheet prints the H100 SXM peaks rounded (TF32 494, BF16/FP16 990, FP8 "
        "1979 dense); the table keeps H100 SXM's unrounded figures for the same GPU.",
    ),
    GPUSpec(
        name="L4",
        device_names=("NVIDIA L4",),
        memory_bytes=24e9, memory_bandwidth=300e9,
        peak={"fp32": 30.3 * T, "tf32": 60 * T, "bf16": 121 * T, "fp16": 121 * T,
              "fp8": 242.5 * T},
        **PCIE4_X16, source="NVIDIA L4 Tensor Core GPU datasheet, 2023",
    ),
    GPUSpec(
        name="RTX 4090",
        device_names=("NVIDIA GeForce RTX 4090",),
        memory_bytes=24e9, memory_bandwidth=1.008e12,
        peak={"fp32": 82.6 * T, "tf32": 82.6 * T, "bf16": 165.2 * T, "fp16": 165.2 * T,
              "fp8": 330.3 * T},
        **PCIE4_X16,
        source="NVIDIA Ada GPU Architecture whitepaper v2.02, 2023, Appendix A",
        # GeForce tensor cores run at half rate when accumulating in fp32, which is what
        # torch does: fp16/bf16 matmuls (cuBLAS compute type 32F) and fp8 ones
        # (torch._scaled_mm; cuBLASLt fp8 accumulates only in fp32).
        note="fp32-accumulate figures: fp16/bf16 165.2 (330.3 with fp16 accumulate), fp8 "
        "330.3 (660.6 with fp16 accumulate). Whitepapers before v2.02 printed 660.6 for fp8 "
        "with fp32 accumulate too; v2.02 corrected it.",
    ),
    GPUSpec(
        name="T4",
        device_names=("Tesla T4",),
        memory_bytes=16e9, memory_bandwidth=320e9,
        # Turing: fp16 tensor cores only. No bf16 and no TF32, so those keys are absent.
        peak={"fp32": 8.1 * T, "fp16": 65 * T},
        **PCIE3_X16, source="NVIDIA T4 Tensor Core GPU datasheet, 2018",
        note="fp16 is the datasheet's 'mixed precision (FP16/FP32)' 65 TFLOPS: fp16 inputs "
        "with fp32 accumulation, as torch runs them, and dense (Turing has no sparsity). "
        "Memory bandwidth: the datasheet says '320+ GB/s'. No bf16 or TF32: Turing lacks both.",
    ),
)

_DTYPE_KEYS = {
    torch.float32: "fp32",
    torch.bfloat16: "bf16",
    torch.float16: "fp16",
    torch.float8_e4m3fn: "fp8",
    torch.float8_e5m2: "fp8",
}


def _normalise(name: str) -> str:
    return " ".join(name.split()).casefold()


def _index(keys_of: Callable[[GPUSpec], Iterable[str]]) -> dict[str, GPUSpec]:
    # Built once at import; a clash would make lookups depend on table order, so refuse it.
    index: dict[str, GPUSpec] = {}
    for spec in GPUS:
        for key in keys_of(spec):
            norm = _normalise(key)
            if norm in index:
                raise ValueError(f"{key!r} names both {index[norm].name!r} and {spec.name!r}")
            index[norm] = spec
    return index


_BY_DEVICE_NAME = _index(lambda spec: spec.device_names)
_BY_NAME = _index(lambda spec: (spec.name,))


def find_gpu(device_name: str) -> GPUSpec | None:
    """The entry listing ``device_name`` (a ``torch.cuda.get_device_name()`` string), else None.

    Matching is exact apart from case and whitespace: an unlisted variant gets None, not the
    figures of a similarly named sibling.
    """
    return _BY_DEVICE_NAME.get(_normalise(device_name))


def gpu(name: str) -> GPUSpec:
    """The entry whose display ``name`` is ``name`` (e.g. ``"H100 SXM"``); KeyError if none."""
    spec = _BY_NAME.get(_normalise(name))
    if spec is None:
        known = ", ".join(repr(s.name) for s in GPUS)
        raise KeyError(f"no GPU named {name!r} in the table; known names: {known}")
    return spec


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
    """Dense datasheet FLOP/s for ``device_name`` at ``dtype``; None if not in the table.

    A precision the GPU lacks (bf16 on a T4, fp8 on an A100) is None too. One exception: fp32
    matmuls with TF32 enabled on a GPU without TF32 (the T4) run as plain fp32, so they get
    the fp32 peak. Asking for the string "tf32" there still gives None.
    """
    spec = find_gpu(device_name)
    if spec is None:
        return None
    key = precision_key(dtype, tf32=tf32)
    if key == "tf32" and key not in spec.peak and not isinstance(dtype, str):
        key = "fp32"
    return spec.peak.get(key)


def device_peak_flops(
    device: torch.device | str, dtype: torch.dtype | str = torch.float32
) -> float | None:
    """Peak for a torch device; CPUs and MPS have no datasheet peak here (None)."""
    device = torch.device(device)
    if device.type != "cuda":
        return None
    return peak_flops(torch.cuda.get_device_name(device), dtype)


def fraction_of_peak(flops_per_second: float, peak_flops_per_sec: float | None) -> float | None:
    """An achieved rate as a fraction of the datasheet peak (that is the MFU when the FLOPs
    are the model's); None (undefined) when there is no peak. It takes a rate, not FLOPs and
    seconds, so it is not notebook 04's graded ``mfu``."""
    if peak_flops_per_sec is None or peak_flops_per_sec <= 0 or flops_per_second < 0:
        return None
    return flops_per_second / peak_flops_per_sec


def _capability(device: torch.device) -> tuple[int, int]:
    props = torch.cuda.get_device_properties(device)
    return props.major, props.minor


def native_bf16(device: torch.device | str) -> bool:
    """Whether ``device`` multiplies bf16 in hardware: a CUDA GPU of compute capability 8.0
    (Ampere) or later, which also has TF32. False for a CPU or MPS, which have no datasheet
    peak here. Unlike ``torch.cuda.is_bf16_supported()``, emulation does not count."""
    device = torch.device(device)
    return device.type == "cuda" and _capability(device) >= NATIVE_BF16_CAPABILITY


def tensor_core_dtype(device: torch.device | str) -> torch.dtype:
    """The 16-bit float to time and quote an MFU for on ``device``: fp16 on a CUDA GPU without
    bf16 hardware (T4, V100), else bf16 (CPUs too, where fp16 matmuls are far slower)."""
    device = torch.device(device)
    if device.type == "cuda" and not native_bf16(device):
        return torch.float16
    return torch.bfloat16


def bf16_note(device: torch.device | str) -> str | None:
    """One line for a GPU cell on a CUDA GPU without bf16 hardware: bf16 is emulated there,
    its MFU meaningless, and fp16 is the tensor-core path. None everywhere else."""
    device = torch.device(device)
    if device.type != "cuda" or native_bf16(device):
        return None
    major, minor = _capability(device)
    return tr_format(BF16_EMULATED, gpu=torch.cuda.get_device_name(device),
                     capability=f"{major}.{minor}")


def format_mfu(value: float | None, device: torch.device | str | None = None,
               dtype: torch.dtype | str = torch.float32) -> str:
    """``'0.42'``, or why there is no MFU. Given the ``device`` and ``dtype`` that were timed,
    a CUDA GPU without bf16 hardware gets the reason: bf16 is emulated there (an MFU against
    no peak is meaningless) and TF32 does not exist (those matmuls ran as plain fp32).
    Otherwise the reason is the missing datasheet peak."""
    if value is not None:
        return f"{value:.2f}"
    if device is not None and torch.device(device).type == "cuda" and not native_bf16(device):
        major, minor = _capability(torch.device(device))
        key = precision_key(dtype, tf32=False)
        if key == "bf16":
            return (f"meaningless (bf16 is emulated on this GPU, compute capability "
                    f"{major}.{minor}: it has no bf16 tensor cores)")
        if key == "tf32":
            return (f"undefined (no TF32 on this GPU, compute capability {major}.{minor}: "
                    "these matmuls ran as plain fp32)")
    return "undefined (no datasheet peak for this device)"
