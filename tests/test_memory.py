import pytest
import torch

from lecture_utils import memory


@pytest.mark.parametrize(
    ("n", "text"),
    [(0, "0 B"), (1023, "1023 B"), (1024, "1 KiB"), (1536, "1.5 KiB"),
     (2_415_919_104, "2.25 GiB"), (2304 * 2**20, "2.25 GiB"), (80e9, "74.5 GiB")],
)
def test_format_bytes(n, text):
    assert memory.format_bytes(n) == text


@pytest.mark.parametrize(
    ("dtype", "size"),
    [(torch.float64, 8), (torch.float32, 4), (torch.bfloat16, 2), (torch.float16, 2),
     (torch.float8_e4m3fn, 1), (torch.int8, 1), (torch.bool, 1), (torch.int64, 8)],
)
def test_dtype_bytes(dtype, size):
    assert memory.dtype_bytes(dtype) == size


def test_module_bytes_counts_parameters_and_buffers_once():
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8))
    params = (4 * 8 + 8) + (8 + 8)
    buffers = 8 + 8  # running mean and var (fp32); num_batches_tracked is one int64
    assert memory.module_bytes(model, include_buffers=False) == params * 4
    assert memory.module_bytes(model) == (params + buffers) * 4 + 8


def test_shared_parameter_counted_once():
    a = torch.nn.Linear(4, 4, bias=False)
    b = torch.nn.Linear(4, 4, bias=False)
    b.weight = a.weight
    assert memory.module_bytes(torch.nn.Sequential(a, b)) == 16 * 4


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error where CUDA is absent")
def test_allocator_delta_needs_cuda():
    with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
        with memory.cuda_allocated_delta():
            pass


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_allocator_delta_matches_estimate_on_cuda():
    with memory.cuda_allocated_delta() as delta:
        x = torch.empty(1024, 1024, device="cuda")
    assert delta.allocated == x.numel() * 4
    assert delta.peak >= delta.allocated


def test_cpu_allocations_of_new_tensors_match_their_bytes():
    with memory.cpu_allocated_delta() as fresh:
        kept = [torch.zeros(4, 8), torch.ones(1000, dtype=torch.bool)]
    assert fresh.allocated == 4 * 8 * 4 + 1000
    assert len(kept) == 2


def test_views_allocate_nothing_and_advanced_indexing_copies():
    big = torch.randn(100, 100)
    with memory.cpu_allocated_delta() as view:
        row = big[3]
    with memory.cpu_allocated_delta() as gathered:
        rows = big[[0, 5, 9]]
    with memory.cpu_allocated_delta() as meta:
        huge = torch.empty(49152, 12288, device="meta")
    assert view.allocated == 0 and row.shape == (100,)
    assert gathered.allocated == 3 * 100 * 4 and rows.shape == (3, 100)
    assert meta.allocated == 0 and huge.numel() == 49152 * 12288


def test_temporaries_count_in_total_but_not_in_the_net(capfd):
    big = torch.randn(100, 100)
    with memory.cpu_allocated_delta() as picked:
        rows = big[torch.tensor([0, 5, 9])]   # the index tensor is created, then freed
    assert picked.allocated == rows.numel() * 4
    assert picked.total == picked.allocated + 3 * 8
    assert "profiler" not in capfd.readouterr().err   # torch's start/stop log lines are dropped
