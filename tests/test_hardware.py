import pytest
import torch

from lecture_utils import hardware


@pytest.mark.parametrize(
    ("name", "entry"),
    [("NVIDIA A100-SXM4-80GB", "A100 SXM"), ("NVIDIA A100-PCIE-40GB", "A100 PCIe"),
     ("NVIDIA A100 80GB PCIe", "A100 PCIe"), ("NVIDIA H100 80GB HBM3", "H100 SXM"),
     ("NVIDIA H100 PCIe", "H100 PCIe"), ("NVIDIA H200", "H200"), ("NVIDIA H200 NVL", "H200 NVL"),
     ("NVIDIA L4", "L4"), ("NVIDIA GeForce RTX 4090", "RTX 4090")],
)
def test_marketing_names_find_their_entry(name, entry):
    assert hardware.find_gpu(name).name == entry


def test_lecture_h100_peaks():
    assert hardware.peak_flops("NVIDIA H100 80GB HBM3", torch.bfloat16) == 989.5e12
    assert hardware.peak_flops("NVIDIA H100 80GB HBM3", torch.float32, tf32=False) == 67e12
    assert hardware.peak_flops("NVIDIA H100 80GB HBM3", torch.float32, tf32=True) == 494.7e12


def test_h200_has_hopper_compute_and_more_bandwidth():
    h100, h200 = hardware.find_gpu("H100 SXM"), hardware.find_gpu("NVIDIA H200")
    assert h200.peak == h100.peak
    assert h200.memory_bandwidth > h100.memory_bandwidth


def test_every_entry_has_the_main_precisions_and_sane_ordering():
    for spec in hardware.GPUS:
        assert {"fp32", "tf32", "bf16", "fp16"} <= set(spec.peak), spec.name
        assert spec.peak["bf16"] >= spec.peak["tf32"] >= spec.peak["fp32"] > 0, spec.name


def test_every_entry_names_a_host_link_far_narrower_than_its_own_memory():
    # The lesson of notebook 01's copy section: cross the host link once, then stay on the GPU.
    for spec in hardware.GPUS:
        assert spec.host_link.startswith("PCIe"), spec.name
        assert 16e9 <= spec.host_link_bandwidth <= 128e9, spec.name
        assert spec.memory_bandwidth > 5 * spec.host_link_bandwidth, spec.name
    assert hardware.find_gpu("NVIDIA H100 80GB HBM3").host_link_bandwidth == 64e9
    assert hardware.find_gpu("NVIDIA A100-SXM4-80GB").host_link_bandwidth == 32e9


@pytest.mark.parametrize("name", ["cpu", "NVIDIA GeForce GTX 1080", "AMD Instinct MI300X", ""])
def test_unknown_devices_have_no_peak_and_undefined_mfu(name):
    peak = hardware.peak_flops(name, torch.bfloat16)
    assert peak is None
    assert hardware.mfu(1e12, 1.0, peak) is None
    assert hardware.format_mfu(hardware.mfu(1e12, 1.0, peak)).startswith("undefined")


def test_no_fp8_on_a100_is_none_not_a_crash():
    assert hardware.peak_flops("NVIDIA A100-SXM4-80GB", torch.float8_e4m3fn) is None


def test_cpu_device_has_no_peak():
    assert hardware.device_peak_flops("cpu", torch.float32) is None


def test_mfu_lecture_examples():
    # The lecture's H100 run: ~0.80 of the fp32 datasheet peak.
    assert hardware.mfu(53.6e12, 1.0, 67e12) == pytest.approx(0.8)
    assert hardware.format_mfu(0.5) == "0.50"
    assert hardware.mfu(1.0, 0.0, 1.0) is None


def test_unsupported_dtype_is_a_clear_error():
    with pytest.raises(ValueError, match="no peak-FLOP category"):
        hardware.peak_flops("NVIDIA H100 PCIe", torch.int32)
