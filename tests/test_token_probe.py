"""The probes of notebook 08 report what the functions they drive did, as plain values."""

from __future__ import annotations

import mmap
import os

import numpy as np
import pytest
import torch

from lecture_utils.checks import to_plain
from lecture_utils.probes.tokens import (
    CountingTokens,
    elements_read,
    opened_file,
    pages_read,
    saved_file,
    starts_seen,
)


def _windows(tokens, batch_size, context_length, device="cpu", generator=None, high_shift=0):
    # a sampler written here, for the probes to drive (the notebook's answer is not shipped)
    starts = torch.randint(0, len(tokens) - context_length + high_shift, (batch_size,),
                           generator=generator)
    rows = [np.asarray(tokens[s:s + context_length + 1], dtype=np.int64) for s in starts.tolist()]
    w = torch.from_numpy(np.stack(rows))
    return w[:, :-1].to(device), w[:, 1:].to(device)


def test_counting_tokens_counts_indexed_elements_and_full_reads():
    tokens = CountingTokens(np.arange(50, dtype=np.uint16))
    assert len(tokens) == 50 and tokens.shape == (50,) and tokens.dtype == np.uint16
    assert tokens[3:8].tolist() == [3, 4, 5, 6, 7] and tokens.elements == 5
    assert int(tokens[10]) == 10 and tokens.elements == 6
    assert tokens[np.array([[1, 2], [3, 4]])].shape == (2, 2) and tokens.elements == 10
    assert np.array(tokens).sum() == sum(range(50)) and tokens.elements == 60
    assert np.asarray(tokens, dtype=np.int64).sum() == sum(range(50)) and tokens.elements == 110
    view = np.asarray(tokens)                          # a view, as of a memory map: no read
    assert view.shape == (50,) and tokens.elements == 110
    with pytest.raises(ValueError):
        CountingTokens(np.zeros((2, 2)))


def test_elements_read_tells_windows_from_whole_array():
    assert elements_read(lambda t: _windows(t, 4, 8), n_tokens=10_000) == 36
    assert elements_read(lambda t: _windows(np.array(t), 4, 8), n_tokens=10_000) >= 10_000


def test_pages_read_counts_reads_not_conversions():
    def asarray_first(t, batch_size, context_length):
        return _windows(np.asarray(t), batch_size, context_length)

    def cast_all_first(t, batch_size, context_length):
        return _windows(np.asarray(t).astype(np.int64), batch_size, context_length)

    assert pages_read(lambda t: _windows(t, 4, 8)) <= 8
    assert pages_read(lambda t: asarray_first(t, 4, 8)) <= 8           # a zero-copy view
    whole = 2 * 1_000_000 // mmap.PAGESIZE
    assert pages_read(lambda t: cast_all_first(t, 4, 8)) >= whole - 1
    assert pages_read(lambda t: _windows(np.array(t), 4, 8)) >= whole - 1
    assert pages_read(lambda t: torch.tensor(t)) >= whole - 1
    assert pages_read(lambda t: torch.from_numpy(np.asarray(t)).long()) >= whole - 1
    assert pages_read(lambda t: None) == 0


def test_starts_seen_finds_every_start_and_rejects_short_rows():
    assert starts_seen(lambda t, g: _windows(t, 8, 4, generator=g), n_tokens=12) == list(range(8))
    assert starts_seen(lambda t, g: _windows(t, 8, 6, generator=g), n_tokens=7) == [0]
    off_by_one = starts_seen(lambda t, g: _windows(t, 8, 4, generator=g, high_shift=-1),
                             n_tokens=12)
    assert off_by_one == list(range(7))
    with pytest.raises(ValueError):  # a start past the end gives a short row
        starts_seen(lambda t, g: _windows(t, 8, 4, generator=g, high_shift=1), n_tokens=12)
    with pytest.raises(ValueError):  # x and y of different shapes
        starts_seen(lambda t, g: (torch.zeros(2, 3), torch.zeros(2, 4)), n_tokens=12)


def test_saved_file_reports_bytes_and_raw_values():
    def raw(tokens, path, dtype=np.uint16):
        np.asarray(tokens).astype(dtype).tofile(path)

    assert saved_file(lambda p: raw([1, 2, 65535], p)) == [6, [1, 2, 65535]]
    assert saved_file(lambda p: raw([70000], p, np.uint32), dtype=np.uint32) == [4, [70000]]
    assert saved_file(lambda p: np.asarray([1, 2]).tofile(p))[0] == 16   # int64 as it comes


def test_saved_file_names_the_npy_file_np_save_wrote():
    with pytest.raises(FileNotFoundError, match=r"tokens\.bin\.npy was: np\.save adds"):
        saved_file(lambda p: np.save(p, np.asarray([1, 2], np.uint16)))
    with pytest.raises(FileNotFoundError):               # nothing written at all: the OS's error
        saved_file(lambda p: None)


def test_opened_file_describes_the_map():
    def read_only(path, dtype=np.uint16):
        return np.memmap(path, dtype=dtype, mode="r")

    report = opened_file(read_only, [5, 6, 7])
    assert report == {"kind": "memmap", "writeable": False, "dtype": "uint16", "values": [5, 6, 7]}
    assert to_plain(report) == report
    assert opened_file(lambda p: read_only(p)[1:], [1, 2])["kind"] == "memmap"   # a view
    assert opened_file(lambda p: np.memmap(open(p, "rb"), np.uint16, mode="r"), [1]) == \
        {"kind": "memmap", "writeable": False, "dtype": "uint16", "values": [1]}
    assert opened_file(lambda p: read_only(p, np.uint32), [70000], dtype=np.uint32)["values"] \
        == [70000]


def test_opened_file_tells_copies_and_other_maps_apart():
    def read_only(path, dtype=np.uint16):
        return np.memmap(path, dtype=dtype, mode="r")

    def mapped_buffer(path):
        with open(path, "rb") as f:
            return np.frombuffer(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ), np.uint16)

    kind = {name: opened_file(load, [1, 2])["kind"] for name, load in {
        "fromfile": lambda p: np.fromfile(p, dtype=np.uint16),
        "copy": lambda p: read_only(p).copy(),
        "astype": lambda p: read_only(p).astype(np.int64),
        "frombuffer": mapped_buffer,
        "asarray": lambda p: np.asarray(read_only(p)),
        "tensor": lambda p: torch.as_tensor(read_only(p), dtype=torch.long),
    }.items()}
    assert kind == {"fromfile": "ndarray", "copy": "memmap, copied", "astype": "memmap, copied",
                    "frombuffer": "ndarray over a mmap", "asarray": "ndarray over a mmap",
                    "tensor": "Tensor"}


def test_opened_file_says_whether_a_write_can_happen():
    def reopened_for_writing(path):
        tokens = np.memmap(path, dtype=np.uint16, mode="r+")
        tokens.flags.writeable = False                  # off, but it can be turned on again
        return tokens

    def writeable(load):
        return opened_file(load, [1, 2])["writeable"]

    assert not writeable(lambda p: np.memmap(p, dtype=np.uint16, mode="r"))
    assert writeable(lambda p: np.memmap(p, dtype=np.uint16))                  # default r+
    assert writeable(lambda p: np.memmap(p, dtype=np.uint16, mode="c"))
    assert writeable(reopened_for_writing)
    assert writeable(lambda p: torch.ones(2))           # nothing guards a tensor
    tokens = []
    opened_file(lambda p: tokens.append(reopened_for_writing(p)) or tokens[0], [1, 2])
    assert not tokens[0].flags.writeable                # the probe put the flag back


def test_opened_file_explains_np_load_on_a_raw_file():
    with pytest.raises(ValueError, match="raw values with no header: open it with np.memmap"):
        opened_file(lambda p: np.load(p, mmap_mode="r"), [1, 2, 3])
    with pytest.raises(ValueError, match="other"):      # any other error is left as it is
        opened_file(lambda p: (_ for _ in ()).throw(ValueError("other")), [1])


def test_no_function_of_the_probe_writes_a_token_file(tmp_path):
    # the probes write their own files inline: nothing a student can import saves tokens
    import lecture_utils.probes.tokens as probe
    for name, value in vars(probe).items():
        if callable(value) and getattr(value, "__module__", "") == probe.__name__:
            try:
                value([1, 2], str(tmp_path / "t.bin"), np.uint16)
            except Exception:  # noqa: BLE001 - a probe fed a writer's arguments may raise
                pass
            assert not (tmp_path / "t.bin").exists(), name


def test_probes_leave_no_files_behind(tmp_path, monkeypatch):
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    saved_file(lambda p: np.asarray([1, 2], np.uint16).tofile(p))
    opened_file(lambda p: np.memmap(p, dtype=np.uint16, mode="r"), [1, 2])
    assert os.listdir(tmp_path) == []
