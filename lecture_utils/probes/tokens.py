"""Probes for notebook 08 (data loading): drive the student's functions, return plain values.

The checks of notebook 08 cannot compare a file or a memory map directly, and "only the
sampled windows are read" is not visible in a batch's values. These probes call the
student's ``save_tokens``, ``load_tokens`` and ``get_batch`` on small, fixed inputs and
report what happened as plain numbers, strings and lists:

* ``saved_file`` gives a call of the student's ``save_tokens`` a fresh path and reads the
  file back with NumPy, as raw values of a given dtype;
* ``opened_file`` writes a raw token file itself and describes what a call of the student's
  ``load_tokens`` returns (a memory map? read-only? which dtype, which values?);
* ``elements_read`` hands a call of ``get_batch`` a ``CountingTokens`` array-like and counts
  how many token values the sampler indexed or copied;
* ``pages_read`` hands a call of ``get_batch`` a token array in fresh, never-touched memory
  and asks the operating system (``mincore``) how many of its pages were read: reads, not
  conversions, so ``np.asarray(tokens)`` (a zero-copy view, as on a memory map) costs
  nothing until the view is read;
* ``starts_seen`` collects the window starts ``get_batch`` draws over many batches.

Each probe takes a small function (a lambda in the test cell) that calls the student's
function with the arguments of the check, so the failing call is named in the check.

None of them samples a batch, writes a token file for the student or opens one, and no
function here, private ones included, does either: a probe passed in place of a graded
function fails its checks (``tests/test_no_answers_shipped.py``).
"""

from __future__ import annotations

import ctypes
import mmap
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

__all__ = ["CountingTokens", "elements_read", "opened_file", "pages_read", "saved_file",
           "starts_seen"]


class CountingTokens:
    """A 1-D token array that counts how many elements its users reach.

    Indexing (an int, a slice, an index array) is passed to the wrapped NumPy array and the
    size of the result is added to ``elements``; a conversion that copies the whole object
    (``np.array(tokens)``, ``np.asarray(tokens, dtype=other)``) adds its full length. A
    zero-copy conversion (``np.asarray(tokens)``, a view as on a memory map) adds nothing:
    what is later read through that view is invisible here (``pages_read`` sees it).
    ``len``, ``shape``, ``size`` and ``dtype`` are those of the wrapped array.
    """

    def __init__(self, values: np.ndarray) -> None:
        self._values = np.asarray(values)
        if self._values.ndim != 1:
            raise ValueError("CountingTokens wraps a 1-D array")
        self.elements = 0

    def __len__(self) -> int:
        return len(self._values)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._values.shape

    @property
    def size(self) -> int:
        return self._values.size

    @property
    def ndim(self) -> int:
        return 1

    @property
    def dtype(self) -> np.dtype:
        return self._values.dtype

    def __getitem__(self, key: Any) -> Any:
        result = self._values[key]
        self.elements += int(np.size(result))
        return result

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if copy is not True and (dtype is None or np.dtype(dtype) == self._values.dtype):
            return self._values                     # a view: nothing is read yet
        self.elements += len(self._values)
        return self._values.astype(dtype or self._values.dtype, copy=True)

    def __iter__(self) -> Any:
        for i in range(len(self._values)):
            yield self[i]


def _tokens(n_tokens: int, vocab: int = 50_257, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, vocab, n_tokens).astype(np.uint16)


def elements_read(sample: Callable[[Any], Any], n_tokens: int = 100_000, seed: int = 0) -> int:
    """How many token values ``sample(tokens)`` reached, for ``n_tokens`` random token ids
    wrapped in a ``CountingTokens``. E.g. ``elements_read(lambda t: get_batch(t, 4, 8))``:
    about ``4 × (8 + 1)`` (or twice that, reading x and y separately) when only the sampled
    windows are read; ``n_tokens`` or more when the whole array is converted first."""
    tokens = CountingTokens(_tokens(n_tokens, seed=seed))
    sample(tokens)
    return tokens.elements


class _ViewTokens:
    """A read-only 1-D uint16 array-like over ``values`` that hands out zero-copy views."""

    def __init__(self, values: np.ndarray) -> None:
        self._values = values

    def __len__(self) -> int:
        return len(self._values)

    shape = property(lambda self: self._values.shape)
    size = property(lambda self: self._values.size)
    ndim = property(lambda self: 1)
    dtype = property(lambda self: self._values.dtype)

    def __getitem__(self, key: Any) -> Any:
        return self._values[key]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if copy is not True and (dtype is None or np.dtype(dtype) == self._values.dtype):
            return self._values
        return self._values.astype(dtype or self._values.dtype, copy=True)

    def __iter__(self) -> Any:
        return iter(self._values)


def _resident_pages(region: mmap.mmap) -> int | None:
    """How many pages of an anonymous mapping have been touched, by ``mincore``; None where
    the C library has no ``mincore`` (not Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    mincore = getattr(libc, "mincore", None)
    if mincore is None:
        return None
    mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    pages = -(-len(region) // mmap.PAGESIZE)
    status = (ctypes.c_ubyte * pages)()
    window = (ctypes.c_char * len(region)).from_buffer(region)
    try:
        if mincore(ctypes.addressof(window), len(region), status) != 0:
            return None
    finally:
        del window
    return sum(s & 1 for s in status)


def pages_read(sample: Callable[[Any], Any], n_tokens: int = 1_000_000) -> int:
    """How many memory pages of a token array ``sample(tokens)`` read. The ``n_tokens``
    uint16 tokens (all 0) sit in fresh anonymous memory that the operating system maps in
    only when a page is first read (Linux ``mincore`` reports which were), and the array-like
    hands out zero-copy views, as a memory map does. E.g.
    ``pages_read(lambda t: get_batch(t, 4, 8))`` is at most 8 (each window falls on one page
    or two) however the windows are cut, ``np.asarray(tokens)`` first included; about
    ``n_tokens / 2048`` (4 KiB pages) when the whole array is converted or copied. Where
    ``mincore`` is missing, pages are counted from the elements indexed or copied."""
    size = 2 * n_tokens
    region = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | getattr(mmap, "MAP_ANONYMOUS", 0x20),
                       prot=mmap.PROT_READ | mmap.PROT_WRITE)
    try:
        if hasattr(mmap, "MADV_NOHUGEPAGE"):
            region.madvise(mmap.MADV_NOHUGEPAGE)     # one 4 KiB page per fault, not 2 MiB
        if _resident_pages(region) != 0:
            counting = CountingTokens(np.zeros(n_tokens, dtype=np.uint16))
            sample(counting)
            return -(-counting.elements * 2 // mmap.PAGESIZE)
        values = np.frombuffer(region, dtype=np.uint16)
        values.flags.writeable = False
        sample(_ViewTokens(values))
        del values
        return _resident_pages(region)
    finally:
        try:
            region.close()
        except BufferError:                          # a view is still alive: leave it to GC
            pass


def starts_seen(sample: Callable[[Any, torch.Generator], Any], n_tokens: int = 12,
                batches: int = 50, seed: int = 0) -> list[int]:
    """The distinct first tokens of the rows of ``x`` over ``batches`` calls of
    ``sample(tokens, generator) -> (x, y)`` on the tokens ``0, 1, ..., n_tokens - 1``, sorted.
    Token i sits at position i, so these are the window starts drawn. E.g.
    ``starts_seen(lambda t, g: get_batch(t, 8, 4, generator=g), n_tokens=12)``."""
    tokens = np.arange(n_tokens, dtype=np.uint16)
    generator = torch.Generator().manual_seed(seed)
    seen: set[int] = set()
    for _ in range(batches):
        x, y = sample(tokens, generator)
        if tuple(x.shape) != tuple(y.shape):
            raise ValueError(f"x has shape {tuple(x.shape)} but y {tuple(y.shape)}")
        seen.update(int(v) for v in x[:, 0].tolist())
    return sorted(seen)


def saved_file(save: Callable[[str], Any], dtype: Any = np.uint16) -> list[Any]:
    """``[bytes on disk, values]`` of the file ``save(path)`` writes to a fresh temporary
    path, the values read back from it as raw ``dtype`` with no header. E.g.
    ``saved_file(lambda path: save_tokens(np.array([1, 2]), path))`` is ``[4, [1, 2]]`` for a
    raw uint16 writer."""
    folder = tempfile.mkdtemp()
    try:
        path = os.path.join(folder, "tokens.bin")
        save(path)
        if not os.path.exists(path) and os.path.exists(path + ".npy"):
            raise FileNotFoundError(
                "nothing was written to tokens.bin, but tokens.bin.npy was: np.save adds "
                "'.npy' to the name (and a header before the values)")
        return [os.path.getsize(path), np.fromfile(path, dtype=dtype).tolist()]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _kind(tokens: Any) -> str:
    """What ``load_tokens`` returned, as a short name: ``"memmap"`` for an ``np.memmap``
    backed by its file; ``"memmap, copied"`` for one that is not (``.copy()`` or ``.astype``
    of a map); ``"ndarray over a mmap"`` for a plain array on a memory map (``np.frombuffer``
    on ``mmap.mmap``, ``np.asarray`` of a memmap); ``"ndarray"`` for an array in memory;
    otherwise the type's name (``"Tensor"``)."""
    if isinstance(tokens, np.memmap):
        return "memmap" if getattr(tokens, "_mmap", None) is not None else "memmap, copied"
    if isinstance(tokens, np.ndarray):
        base = tokens.base
        while base is not None:
            if isinstance(base, mmap.mmap):
                return "ndarray over a mmap"
            base = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)
        return "ndarray"
    return type(tokens).__name__


def _writeable(tokens: Any) -> bool:
    """Whether a write through ``tokens`` can reach its memory: its NumPy ``writeable`` flag
    is on, or can be turned on again (it can on a map opened for writing); True for an object
    with no such flag (a tensor), which nothing guards."""
    if not isinstance(tokens, np.ndarray):
        return True
    flags = tokens.flags
    if flags.writeable:
        return True
    try:
        flags.writeable = True
    except ValueError:                               # a read-only mapping or buffer
        return False
    flags.writeable = False
    return True


def opened_file(load: Callable[[str], Any], values: Sequence[int],
                dtype: Any = np.uint16) -> dict[str, Any]:
    """What ``load(path)`` returns for a raw file of ``values`` stored as ``dtype``: its kind
    (``"memmap"`` for an ``np.memmap`` of the file, see ``_kind``), whether a write through it
    is possible (``_writeable``), its dtype name and its values. E.g.
    ``opened_file(lambda path: load_tokens(path), [1, 2])``."""
    folder = tempfile.mkdtemp()
    try:
        path = os.path.join(folder, "tokens.bin")
        with open(path, "wb") as file:               # the raw file, written here and only here
            file.write(np.asarray(values).astype(dtype).tobytes())
        try:
            tokens = load(path)
        except ValueError as error:
            if "pickled" not in str(error):
                raise
            raise ValueError("np.load reads .npy files, which begin with a header; this file "
                             "holds raw values with no header: open it with np.memmap") from None
        report = {"kind": _kind(tokens),
                  "writeable": _writeable(tokens),
                  "dtype": str(getattr(tokens, "dtype", type(tokens).__name__)),
                  "values": np.asarray(tokens).tolist()}
        del tokens
        return report
    finally:
        shutil.rmtree(folder, ignore_errors=True)
