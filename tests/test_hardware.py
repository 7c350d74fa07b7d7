from types import SimpleNamespace

import pytest
import torch

from lecture_utils import hardware

# What torch.cuda.get_device_name() returns on each GPU (seen in nvidia-smi / torch output and in
# the NVIDIA driver's supported-products list), with the datasheet figures written out here by
# hand. NVIDIA prints sparse tensor-core peaks; dense is half, so the tests halve them.
# (device name, display name, memory bytes, memory bytes/s, dense bf16 FLOP/s or None)
REAL_DEVICES = [
    # A100: same compute, four memory variants. 40 GB: 1,555 GB/s; 80 GB: 2,039 SXM, 1,935 PCIe.
    ("NVIDIA A100-SXM4-40GB", "A100 SXM4 40GB", 40e9, 1555e9, 624e12 / 2),
    ("A100-SXM4-40GB", "A100 SXM4 40GB", 40e9, 1555e9, 624e12 / 2),  # pre-R470 driver
    ("NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB", 80e9, 2039e9, 624e12 / 2),
    ("A100-SXM-80GB", "A100 SXM4 80GB", 80e9, 2039e9, 624e12 / 2),  # 2021 driver
    ("NVIDIA A100-PCIE-40GB", "A100 PCIe 40GB", 40e9, 1555e9, 624e12 / 2),
    ("NVIDIA A100 80GB PCIe", "A100 PCIe 80GB", 80e9, 1935e9, 624e12 / 2),
    # Hopper. H100 datasheet: SXM 1,979 sparse bf16, 3.35 TB/s; NVL 1,671, 94 GB, 3.9 TB/s;
    # PCIe 1,513, 2 TB/s. H200: SXM compute, 141 GB at 4.8 TB/s; H200 NVL: NVL compute.
    ("NVIDIA H100 80GB HBM3", "H100 SXM", 80e9, 3.35e12, 1979e12 / 2),
    ("NVIDIA H100 PCIe", "H100 PCIe", 80e9, 2.0e12, 1513e12 / 2),
    ("NVIDIA H100 NVL", "H100 NVL", 94e9, 3.9e12, 1671e12 / 2),
    ("NVIDIA H200", "H200", 141e9, 4.8e12, 1979e12 / 2),
    ("NVIDIA H200 NVL", "H200 NVL", 141e9, 4.8e12, 1671e12 / 2),
    # GH200 datasheet, 96 GB HBM3 column: 4 TB/s and H100 SXM compute.
    ("NVIDIA GH200 480GB", "GH200 480GB", 96e9, 4.0e12, 1979e12 / 2),
    # L4 datasheet: 242 sparse bf16, 24 GB at 300 GB/s. Ada whitepaper: RTX 4090 bf16 (fp32
    # accumulate) 165.2 dense, 1,008 GB/s.
    ("NVIDIA L4", "L4", 24e9, 300e9, 242e12 / 2),
    ("NVIDIA GeForce RTX 4090", "RTX 4090", 24e9, 1008e9, 165.2e12),
    # T4 datasheet: 16 GB GDDR6, 320 GB/s, and no bf16 at all.
    ("Tesla T4", "T4", 16e9, 320e9, None),
]

# Real or plausible names that are NOT in the table. Several are siblings of listed GPUs with
# other figures (a MIG slice has a fraction of the SMs; the RTX 4090 D has fewer SMs; the
# GH200 144G has HBM3e at 4.9 TB/s); each must get no peak rather than a neighbour's.
UNKNOWN_DEVICES = [
    "NVIDIA A100X",
    "NVIDIA A100-SXM-64GB",
    "NVIDIA A800-SXM4-80GB",
    "NVIDIA A100-SXM4-40GB MIG 1g.5gb",
    "NVIDIA H100",
    "NVIDIA H100 SXM5 64GB",
    "NVIDIA H800",
    "NVIDIA GH200 144G HBM3e",
    "NVIDIA L40S",
    "NVIDIA GeForce RTX 4090 D",
    "NVIDIA GeForce RTX 4090 Laptop GPU",
    "NVIDIA GeForce RTX 4080",
    "NVIDIA GeForce GTX 1080",
    "Tesla V100-SXM2-16GB",
    "AMD Instinct MI300X",
    "Apple MPS",
    "cpu",
    "",
]


@pytest.mark.parametrize(("device_name", "name", "memory", "bandwidth", "bf16"), REAL_DEVICES)
def test_real_device_names_find_their_own_entry(device_name, name, memory, bandwidth, bf16):
    spec = hardware.find_gpu(device_name)
    assert spec is not None, device_name
    assert spec.name == name
    assert spec.memory_bytes == pytest.approx(memory)
    assert spec.memory_bandwidth == pytest.approx(bandwidth)
    assert device_name in spec.device_names
    if bf16 is None:
        assert hardware.peak_flops(device_name, torch.bfloat16) is None
    else:
        assert hardware.peak_flops(device_name, torch.bfloat16) == pytest.approx(bf16)


@pytest.mark.parametrize("device_name", UNKNOWN_DEVICES)
def test_unknown_devices_have_no_entry_no_peak_and_undefined_mfu(device_name):
    assert hardware.find_gpu(device_name) is None
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        assert hardware.peak_flops(device_name, dtype) is None
    peak = hardware.peak_flops(device_name, torch.bfloat16)
    assert hardware.fraction_of_peak(1e12, peak) is None
    assert hardware.format_mfu(hardware.fraction_of_peak(1e12, peak)).startswith("undefined")


@pytest.mark.parametrize(
    ("smaller", "larger"),
    [
        # Each pair used to share an entry; the smaller card must not get the larger's memory.
        ("NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB"),
        ("NVIDIA A100-PCIE-40GB", "NVIDIA A100 80GB PCIe"),
        ("NVIDIA H100 NVL", "NVIDIA H100 80GB HBM3"),
        ("NVIDIA GH200 480GB", "NVIDIA H200"),
        ("NVIDIA H200 NVL", "NVIDIA H200"),
    ],
)
def test_sibling_traps_get_different_entries(smaller, larger):
    a, b = hardware.find_gpu(smaller), hardware.find_gpu(larger)
    assert a is not b
    assert (a.memory_bytes, a.memory_bandwidth, a.peak) != (b.memory_bytes, b.memory_bandwidth,
                                                            b.peak)


def test_matching_ignores_case_and_whitespace_but_nothing_else():
    assert hardware.find_gpu("  nvidia  h100 80gb   HBM3\n").name == "H100 SXM"
    assert hardware.find_gpu("TESLA T4").name == "T4"
    # A display name is not a device name: notebooks must use gpu() for those.
    assert hardware.find_gpu("H100 SXM") is None
    assert hardware.find_gpu("NVIDIA H100 80GB HBM3 ") is not None
    assert hardware.find_gpu("NVIDIA H100 80GB") is None


def test_gpu_by_display_name():
    h100 = hardware.gpu("H100 SXM")
    assert h100.memory_bytes == 80e9
    assert h100.peak["bf16"] == 989.5e12  # 1,979 sparse / 2: the lecture's figure
    assert hardware.gpu("A100 SXM4 80GB").memory_bandwidth == 2.039e12
    assert hardware.gpu("T4") is hardware.find_gpu("Tesla T4")


def test_unknown_display_name_is_a_key_error_listing_the_known_names():
    with pytest.raises(KeyError, match="no GPU named 'H100'") as caught:
        hardware.gpu("H100")
    message = str(caught.value)
    for name in ("A100 SXM4 40GB", "H100 SXM", "H100 NVL", "GH200 480GB", "RTX 4090", "T4"):
        assert repr(name) in message
    with pytest.raises(KeyError):
        hardware.gpu("NVIDIA H100 80GB HBM3")  # a device name is not a display name


def test_t4_is_fp16_and_fp32_only():
    t4 = "Tesla T4"
    assert hardware.peak_flops(t4, torch.float16) == 65e12
    assert hardware.peak_flops(t4, torch.float32, tf32=False) == 8.1e12
    assert hardware.peak_flops(t4, torch.bfloat16) is None
    assert hardware.peak_flops(t4, "tf32") is None
    assert hardware.peak_flops(t4, torch.float8_e4m3fn) is None
    assert hardware.gpu("T4").memory_bytes == 16e9
    assert hardware.gpu("T4").host_link_bandwidth == 16e9  # PCIe 3.0 ×16


def test_fp32_with_tf32_enabled_on_a_gpu_without_tf32_runs_at_fp32_rate():
    # allow_tf32 is a request; Turing has no TF32 units, so the fp32 peak still applies.
    assert hardware.peak_flops("Tesla T4", torch.float32, tf32=True) == 8.1e12
    assert hardware.peak_flops("NVIDIA A100-SXM4-40GB", torch.float32, tf32=True) == 156e12


def test_lecture_h100_peaks():
    assert hardware.peak_flops("NVIDIA H100 80GB HBM3", torch.bfloat16) == 989.5e12
    assert hardware.peak_flops("NVIDIA H100 80GB HBM3", torch.float32, tf32=False) == 67e12
    assert hardware.peak_flops("NVIDIA H100 80GB HBM3", torch.float32, tf32=True) == 494.7e12


def test_hopper_variants_against_their_datasheets():
    nvl = hardware.gpu("H100 NVL")
    # H100 datasheet NVL column: FP32 60; TF32 835, FP8 3,341 sparse.
    assert nvl.peak["fp32"] == 60e12
    assert nvl.peak["tf32"] == pytest.approx(835e12 / 2)
    assert nvl.peak["fp8"] == pytest.approx(3341e12 / 2)
    pcie = hardware.gpu("H100 PCIe")
    # 2022 datasheet PCIe column: FP32 51; TF32 756, BF16 1,513, FP8 3,026 sparse.
    assert pcie.peak["fp32"] == 51e12
    assert pcie.peak["tf32"] == pytest.approx(756e12 / 2)
    assert pcie.peak["bf16"] == pytest.approx(1513e12 / 2)
    assert pcie.peak["fp8"] == pytest.approx(3026e12 / 2)


def test_h200_and_gh200_have_hopper_sxm_compute_and_more_bandwidth():
    h100 = hardware.gpu("H100 SXM")
    for name in ("H200", "GH200 480GB"):
        other = hardware.gpu(name)
        assert other.peak == h100.peak, name
        assert other.memory_bandwidth > h100.memory_bandwidth, name


def test_rtx_4090_follows_the_fp32_accumulate_figures():
    # Ada whitepaper v2.02: fp8 330.3 dense with fp32 accumulate (660.6 with fp16), fp16/bf16
    # 165.2 with fp32 accumulate. torch accumulates in fp32, so those are its peaks.
    name = "NVIDIA GeForce RTX 4090"
    assert hardware.peak_flops(name, torch.float8_e4m3fn) == pytest.approx(330.3e12)
    assert hardware.peak_flops(name, torch.float16) == pytest.approx(165.2e12)
    assert "accumulate" in hardware.gpu("RTX 4090").note


def test_every_entry_has_the_main_precisions_and_sane_ordering():
    for spec in hardware.GPUS:
        if spec.name == "T4":  # Turing: fp16 tensor cores, no bf16 and no TF32
            assert set(spec.peak) == {"fp32", "fp16"}
        else:
            assert {"fp32", "tf32", "bf16", "fp16"} <= set(spec.peak), spec.name
        p = spec.peak
        assert p["fp32"] > 0, spec.name
        assert p["fp16"] >= p.get("tf32", p["fp32"]) >= p["fp32"], spec.name
        if "bf16" in p:
            assert p["bf16"] >= p["tf32"], spec.name
        if "fp8" in p:
            assert p["fp8"] >= p["fp16"], spec.name


def test_every_entry_names_a_host_link_far_narrower_than_its_own_memory():
    # The lesson of notebook 01's copy section: cross the host link once, then stay on the GPU.
    for spec in hardware.GPUS:
        if spec.host_link == "NVLink-C2C":  # Grace Hopper: 900 GB/s both ways, 450 each
            assert spec.host_link_bandwidth == 450e9, spec.name
        else:
            assert spec.host_link.startswith("PCIe"), spec.name
            assert 16e9 <= spec.host_link_bandwidth <= 128e9, spec.name
        assert spec.memory_bandwidth > 5 * spec.host_link_bandwidth, spec.name
    assert hardware.find_gpu("NVIDIA H100 80GB HBM3").host_link_bandwidth == 64e9
    assert hardware.find_gpu("NVIDIA A100-SXM4-80GB").host_link_bandwidth == 32e9
    assert hardware.find_gpu("NVIDIA GH200 480GB").host_link == "NVLink-C2C"


def test_every_entry_names_its_source_and_is_uniquely_named():
    names = [spec.name for spec in hardware.GPUS]
    assert len(names) == len(set(names))
    device_names = [" ".join(d.split()).lower() for s in hardware.GPUS for d in s.device_names]
    assert len(device_names) == len(set(device_names))
    for spec in hardware.GPUS:
        assert spec.source.strip(), spec.name
        assert "datasheet" in spec.source or "whitepaper" in spec.source, spec.name
        assert spec.device_names, spec.name


def test_no_fp8_on_a100_is_none_not_a_crash():
    assert hardware.peak_flops("NVIDIA A100-SXM4-80GB", torch.float8_e4m3fn) is None


def test_cpu_device_has_no_peak():
    assert hardware.device_peak_flops("cpu", torch.float32) is None


def test_mfu_lecture_examples():
    # The lecture's H100 run: ~0.80 of the fp32 datasheet peak.
    assert hardware.fraction_of_peak(53.6e12, 67e12) == pytest.approx(0.8)
    assert hardware.format_mfu(0.5) == "0.50"
    assert hardware.fraction_of_peak(1.0, 0.0) is None


def test_unsupported_dtype_is_a_clear_error():
    with pytest.raises(ValueError, match="no peak-FLOP category"):
        hardware.peak_flops("NVIDIA H100 PCIe", torch.int32)


def test_only_cuda_devices_have_a_datasheet_peak(monkeypatch):
    """Kills: a CUDA device not looked up by its own name and dtype (or never looked up),
    and CPUs or MPS given a peak."""
    monkeypatch.setattr(torch.cuda, "get_device_name",
                        lambda device: {1: "NVIDIA A100-SXM4-40GB"}[torch.device(device).index])
    assert hardware.device_peak_flops("cuda:1", torch.bfloat16) == 312e12
    assert hardware.device_peak_flops(torch.device("cuda", 1)) == hardware.peak_flops(
        "NVIDIA A100-SXM4-40GB", torch.float32)
    assert hardware.device_peak_flops("cpu") is None
    assert hardware.device_peak_flops("mps", torch.bfloat16) is None


def test_fraction_of_peak_edges():
    """Kills: a peak below one FLOP/s, or a zero rate, read as undefined."""
    assert hardware.fraction_of_peak(0.0, 2e12) == 0.0
    assert hardware.fraction_of_peak(0.25, 0.5) == 0.5
    assert hardware.fraction_of_peak(-1.0, 2e12) is None
    assert hardware.fraction_of_peak(1.0, 0.0) is None


def test_an_unknown_gpu_name_lists_the_known_ones():
    """Kills: the KeyError for an unknown name not listing the names that do exist."""
    with pytest.raises(KeyError) as raised:
        hardware.gpu("Z9000")
    names = ", ".join(repr(spec.name) for spec in hardware.GPUS)
    assert f"known names: {names}" in str(raised.value)


def test_the_lookup_tables_cover_every_name_and_refuse_a_clash():
    """Kills (``_index``, run once at import): a table that misses or mangles names, and two
    GPUs sharing a name accepted (lookups would then depend on the table's order)."""
    by_device = hardware._index(lambda spec: spec.device_names)
    assert by_device == hardware._BY_DEVICE_NAME
    assert by_device[hardware._normalise("NVIDIA A100-SXM4-40GB")].name == "A100 SXM4 40GB"
    assert len(by_device) == sum(len(spec.device_names) for spec in hardware.GPUS)
    with pytest.raises(ValueError, match=r"^'same' names both '.+' and '.+'$"):
        hardware._index(lambda spec: ("same",))


# --- bf16 in hardware or emulated: the compute capability decides, not is_bf16_supported() ---

def _fake_gpu(monkeypatch, name: str, major: int, minor: int) -> None:
    """Make torch.cuda describe one GPU, as torch.cuda.get_device_properties does, with no GPU
    here. is_bf16_supported() would say True for every one of them (emulation counts)."""
    props = SimpleNamespace(name=name, major=major, minor=minor)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device=None: props)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: name)


@pytest.mark.parametrize(("name", "major", "minor", "native"), [
    ("Tesla T4", 7, 5, False),               # Turing: Colab's free GPU
    ("Tesla V100-SXM2-16GB", 7, 0, False),   # Volta
    ("NVIDIA A100-SXM4-40GB", 8, 0, True),   # Ampere: the first with bf16 and TF32
    ("NVIDIA L4", 8, 9, True),               # Ada
    ("NVIDIA H100 80GB HBM3", 9, 0, True),   # Hopper
])
def test_native_bf16_follows_the_compute_capability(monkeypatch, name, major, minor, native):
    _fake_gpu(monkeypatch, name, major, minor)
    assert hardware.native_bf16("cuda") is native
    assert hardware.native_bf16(torch.device("cuda", 0)) is native
    assert hardware.tensor_core_dtype("cuda") == (torch.bfloat16 if native else torch.float16)
    note = hardware.bf16_note("cuda")
    if native:
        assert note is None
    else:
        assert note.startswith(f"{name} (compute capability {major}.{minor}) has no bf16 hardware")
        assert "emulated" in note and "fp16 is this GPU's tensor-core path" in note
        assert "\n" not in note


def test_cpu_and_mps_are_never_asked_for_a_capability(monkeypatch):
    def no_gpu(device=None):
        raise AssertionError("a CPU or MPS device must not ask CUDA for its properties")

    monkeypatch.setattr(torch.cuda, "get_device_properties", no_gpu)
    for device in ("cpu", "mps", torch.device("cpu")):
        assert hardware.native_bf16(device) is False
        assert hardware.tensor_core_dtype(device) == torch.bfloat16  # fp16 is slow on CPUs
        assert hardware.bf16_note(device) is None
        assert hardware.format_mfu(None, device, torch.bfloat16) == (
            "undefined (no datasheet peak for this device)")


def test_t4_mfu_text_says_why_for_bf16_and_tf32(monkeypatch):
    """On a T4 the table has no bf16 or TF32 peak (None); the printed MFU says why, not n/a."""
    _fake_gpu(monkeypatch, "Tesla T4", 7, 5)
    assert hardware.device_peak_flops("cuda", torch.bfloat16) is None
    assert hardware.format_mfu(None, "cuda", torch.bfloat16) == (
        "meaningless (bf16 is emulated on this GPU, compute capability 7.5: it has no bf16 "
        "tensor cores)")
    assert hardware.format_mfu(None, "cuda", "bf16").startswith("meaningless (bf16 is emulated")
    assert hardware.format_mfu(None, "cuda", "tf32") == (
        "undefined (no TF32 on this GPU, compute capability 7.5: these matmuls ran as plain "
        "fp32)")
    # fp16 is the T4's tensor-core path: it has a peak, and an MFU is a number
    peak = hardware.device_peak_flops("cuda", torch.float16)
    assert peak == 65e12
    assert hardware.format_mfu(hardware.fraction_of_peak(13e12, peak), "cuda",
                               torch.float16) == "0.20"
    # an fp16 or fp32 MFU that is missing for another reason keeps the generic reason
    assert hardware.format_mfu(None, "cuda", torch.float16) == (
        "undefined (no datasheet peak for this device)")


def test_a_gpu_with_bf16_hardware_but_no_table_entry_keeps_the_generic_reason(monkeypatch):
    _fake_gpu(monkeypatch, "NVIDIA L40S", 8, 9)
    assert hardware.device_peak_flops("cuda", torch.bfloat16) is None
    assert hardware.format_mfu(None, "cuda", torch.bfloat16) == (
        "undefined (no datasheet peak for this device)")
    assert hardware.format_mfu(None) == "undefined (no datasheet peak for this device)"


def test_the_bf16_note_is_translated(monkeypatch):
    from lecture_utils.i18n import use_language

    _fake_gpu(monkeypatch, "Tesla T4", 7, 5)
    with use_language("zh-CN"):
        note = hardware.bf16_note("cuda")
    assert note.startswith("Tesla T4") and "7.5" in note and "bf16" in note
    assert note != hardware.bf16_note("cuda")


# Colab's GPUs (the free T4; L4, A100 40GB and H100 on paid runtimes), as torch names them,
# with their compute capability (NVIDIA's CUDA GPUs list: T4 7.5, L4 8.9, A100 8.0, H100 9.0).
COLAB_GPUS = [("Tesla T4", 7, 5), ("NVIDIA L4", 8, 9), ("NVIDIA A100-SXM4-40GB", 8, 0),
              ("NVIDIA H100 80GB HBM3", 9, 0)]


@pytest.mark.parametrize(("name", "major", "minor"), COLAB_GPUS)
def test_colab_gpus_are_in_the_table_and_their_bf16_peak_agrees_with_the_hardware(
        monkeypatch, name, major, minor):
    """A bf16 peak exactly where bf16 is native, a TF32 one likewise; the 16-bit MFU path
    always has a peak, so every Colab GPU gets a real MFU for tensor_core_dtype."""
    _fake_gpu(monkeypatch, name, major, minor)
    assert hardware.find_gpu(name) is not None
    native = hardware.native_bf16("cuda")
    assert (hardware.device_peak_flops("cuda", torch.bfloat16) is not None) is native
    assert (hardware.device_peak_flops("cuda", "tf32") is not None) is native
    assert hardware.device_peak_flops("cuda", hardware.tensor_core_dtype("cuda")) is not None
