import pytest
import torch

from lecture_utils import device


@pytest.fixture
def pretend(monkeypatch):
    """Make this machine look as if it had (or lacked) CUDA and MPS, whatever it really has."""
    monkeypatch.delenv(device.ENV_VAR, raising=False)

    def _pretend(*, cuda: bool, mps: bool) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
        monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)

    return _pretend


def test_cpu_is_always_available_and_last():
    found = device.available_devices()
    assert found[-1] == "cpu"
    assert ("cuda" in found) == torch.cuda.is_available()


@pytest.mark.parametrize(
    ("cuda", "mps", "expected"),
    [(False, False, "cpu"), (False, True, "mps"), (True, False, "cuda"), (True, True, "cuda")],
)
def test_get_device_defaults_to_cuda_then_mps_then_cpu(pretend, cuda, mps, expected):
    pretend(cuda=cuda, mps=mps)
    assert device.get_device().type == expected


@pytest.mark.skipif(
    torch.cuda.is_available() or torch.backends.mps.is_available(),
    reason="checks the default on a machine with neither CUDA nor MPS",
)
def test_get_device_is_cpu_on_a_machine_without_gpus(monkeypatch):
    monkeypatch.delenv(device.ENV_VAR, raising=False)
    assert device.get_device() == torch.device("cpu")


def test_environment_variable_chooses_the_device(monkeypatch, pretend):
    pretend(cuda=True, mps=True)
    monkeypatch.setenv(device.ENV_VAR, "cpu")
    assert device.get_device() == torch.device("cpu")
    # An explicit argument beats the environment.
    assert device.get_device("mps") == torch.device("mps")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error where CUDA is absent")
def test_missing_device_is_a_clear_error():
    with pytest.raises(ValueError, match=r"'cuda' is not available here; available: \['cpu'"):
        device.get_device("cuda")


def test_unavailable_device_lists_what_exists(monkeypatch, pretend):
    pretend(cuda=False, mps=True)
    with pytest.raises(ValueError, match=r"'cuda:1' is not available here; available: "
                                         r"\['mps', 'cpu'\]"):
        device.get_device("cuda:1")
    monkeypatch.setenv(device.ENV_VAR, "cuda")
    with pytest.raises(ValueError, match=r"available: \['mps', 'cpu'\].*LECTURE_DEVICE"):
        device.get_device()


def test_synchronize_waits_only_on_the_device_it_is_given(monkeypatch):
    calls = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda d=None: calls.append(("cuda", d)))
    monkeypatch.setattr(torch.mps, "synchronize", lambda: calls.append(("mps", None)))
    device.synchronize("cpu")
    device.synchronize(torch.device("cpu"))
    assert calls == []  # CPU work is already done when the call returns: nothing to wait on
    device.synchronize("cuda:1")
    device.synchronize(torch.device("mps"))
    assert calls == [("cuda", torch.device("cuda:1")), ("mps", None)]


def test_synchronize_without_a_device_uses_the_default(monkeypatch):
    calls = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda d=None: calls.append(("cuda", d)))
    monkeypatch.setattr(torch.mps, "synchronize", lambda: calls.append(("mps", None)))
    monkeypatch.setenv(device.ENV_VAR, "cpu")
    device.synchronize()
    assert calls == []


def test_device_names():
    assert device.device_name("cpu") == "cpu"
    assert device.device_name(torch.device("mps")) == "Apple MPS"


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("cpu", 256),
        (torch.device("cpu"), 256),
        ("cuda", 8192),
        (torch.device("cuda:1"), 8192),
        ("mps", 256),  # no mps size given: a laptop GPU gets the CPU size, not the lecture's
        (torch.device("mps"), 256),
        ("meta", 256),
    ],
)
def test_pick_size_without_an_mps_size(where, expected):
    assert device.pick_size(where, cpu=256, gpu=8192) == expected


@pytest.mark.parametrize(
    ("where", "expected"),
    [("cpu", 256), ("cuda", 8192), ("mps", 1024), (torch.device("mps"), 1024)],
)
def test_pick_size_with_an_mps_size(where, expected):
    assert device.pick_size(where, cpu=256, gpu=8192, mps=1024) == expected


def test_pick_size_arguments_are_keyword_only():
    with pytest.raises(TypeError):
        device.pick_size("cpu", 256, 8192)  # type: ignore[misc]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_name_and_sync():
    assert device.device_name("cuda").startswith("NVIDIA")
    device.synchronize("cuda")
