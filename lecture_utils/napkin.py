"""Napkin math for training runs: total FLOPs, wall-clock days, and the largest model that fits.

These are the formulas notebook 00 teaches; its widgets and tables use them.
"""

from __future__ import annotations

SECONDS_PER_DAY = 24 * 60 * 60

# fp32 AdamW training keeps four numbers per parameter: the weight, its gradient, and
# Adam's two moments, each 4 bytes.
ADAMW_FP32_BYTES_PER_PARAM = 16


def training_flops(n_params: float, n_tokens: float) -> float:
    """6·N·D: 2 FLOPs per parameter per token forward, 4 backward."""
    return 6.0 * n_params * n_tokens


def flops_per_day(n_gpus: int, peak_flops_per_gpu: float, mfu: float) -> float:
    """Useful FLOPs a cluster delivers in one day at a given model FLOPs utilisation."""
    return n_gpus * peak_flops_per_gpu * mfu * SECONDS_PER_DAY


def training_days(total_flops: float, n_gpus: int, peak_flops_per_gpu: float, mfu: float) -> float:
    """Days of wall-clock time to perform ``total_flops`` at the given utilisation."""
    return total_flops / flops_per_day(n_gpus, peak_flops_per_gpu, mfu)


def max_trainable_params(
    n_gpus: int, bytes_per_gpu: float, bytes_per_param: float = ADAMW_FP32_BYTES_PER_PARAM
) -> float:
    """Parameters whose training state fits in the cluster's memory (activations ignored)."""
    return n_gpus * bytes_per_gpu / bytes_per_param
