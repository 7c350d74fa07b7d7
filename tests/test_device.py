import pytest
import torch

from lecture_utils import device


def test_cpu_is_always_available_and_last():
    found = device.available_devices()
    assert found[-1] == "cpu"
    assert ("cuda" in found) == torch.cuda.is_available()


def test_get_device_defaults_to_the_fastest(monkeypatch):
    monkeypatch.delenv(device.ENV_VAR, raising=False)
    assert device.get_device().type == device.available_devices()[0]


def test_environment_variable_chooses_the_device(monkeypatch):
    monkeypatch.setenv(device.ENV_VAR, "cpu")
    assert device.get_device() == torch.device("cpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error where CUDA is absent")
def test_missing_device_is_a_clear_error():
    with pytest.raises(ValueError, match=r"'cuda' is not available here; available: \['cpu'"):
        device.get_device("cuda")


def test_synchronize_on_cpu_returns():
    device.synchronize("cpu")
    device.synchronize(torch.device("cpu"))


def test_names_and_sizes():
    assert device.device_name("cpu") == "cpu"
    assert device.pick_size("cpu", cpu=256, gpu=8192) == 256
    assert device.pick_size(torch.device("cuda"), cpu=256, gpu=8192) == 8192


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_name_and_sync():
    assert device.device_name("cuda").startswith("NVIDIA")
    device.synchronize("cuda")
