"""Wrong and right answers for notebook 08 (data loading).

Built from a few templates: each answer is the full source of the solution cell.
"""

from __future__ import annotations

HEAD_SAVE = ('def save_tokens(tokens, path, dtype=np.uint16) -> None:\n'
             '    """Write ``tokens`` to ``path`` as raw ``dtype`` values, with no header."""\n')
HEAD_LOAD = ('def load_tokens(path, dtype=np.uint16) -> np.memmap:\n'
             '    """A read-only memory map of the raw token file at ``path``."""\n')
HEAD_BATCH = ('def get_batch(tokens, batch_size: int, context_length: int, device="cpu",\n'
              '              generator: torch.Generator | None = None)'
              ' -> tuple[torch.Tensor, torch.Tensor]:\n'
              '    """``batch_size`` random windows of ``tokens``: inputs ``x`` and next-token'
              ' targets ``y``,\n'
              '    int64 tensors of shape (batch_size, context_length) on ``device``."""\n')


def batch(draw="torch.randint(0, len(tokens) - context_length, (batch_size,), generator=generator)",
          windows="np.stack([tokens[s:s + context_length + 1] for s in starts.tolist()])",
          cast="windows.astype(np.int64)", xy="windows[:, :-1], windows[:, 1:]",
          ret="x.to(device), y.to(device)"):
    return (HEAD_BATCH
            + f"    starts = {draw}\n"
            + f"    windows = {windows}\n"
            + f"    windows = torch.from_numpy({cast})\n"
            + f"    x, y = {xy}\n"
            + f"    return {ret}\n")


WRONG = {
    "save_tokens": [
        # np.save: a .npy header (and ".npy" appended to the file name), not raw values
        HEAD_SAVE + "    np.save(path, np.asarray(tokens, dtype=dtype))\n",
        # writes the tokenizer's int64 as they come: 8 bytes per token
        HEAD_SAVE + "    np.asarray(tokens).tofile(path)\n",
        # always uint16, whatever dtype is asked for
        HEAD_SAVE + "    np.asarray(tokens).astype(np.uint16).tofile(path)\n",
    ],
    "load_tokens": [
        # reads the whole file into memory: a plain ndarray, not a memory map
        HEAD_LOAD + "    return np.fromfile(path, dtype=dtype)\n",
        # np.memmap's default mode 'r+': writeable
        HEAD_LOAD + "    return np.memmap(path, dtype=dtype)\n",
        # copy-on-write mode 'c': still writeable (in memory)
        HEAD_LOAD + "    return np.memmap(path, dtype=dtype, mode='c')\n",
        # ignores the dtype argument
        HEAD_LOAD + "    return np.memmap(path, dtype=np.uint16, mode='r')\n",
        # maps the file, then copies it all into memory
        HEAD_LOAD + "    return np.memmap(path, dtype=dtype, mode='r').copy()\n",
    ],
    "get_batch": [
        # off by one: randint's high is exclusive, so the last valid start is never drawn
        batch(draw="torch.randint(0, len(tokens) - context_length - 1, (batch_size,), "
                   "generator=generator)"),
        # one start too many: a window can run past the end (a short row)
        batch(draw="torch.randint(0, len(tokens) - context_length + 1, (batch_size,), "
                   "generator=generator)"),
        # reads the whole memmap into a tensor, then indexes it
        (HEAD_BATCH
         + "    data = torch.from_numpy(np.array(tokens).astype(np.int64))\n"
         + "    starts = torch.randint(0, len(data) - context_length, (batch_size,), "
           "generator=generator)\n"
         + "    idx = starts[:, None] + torch.arange(context_length)\n"
         + "    return data[idx].to(device), data[idx + 1].to(device)\n"),
        # same, with torch.tensor(tokens)
        (HEAD_BATCH
         + "    data = torch.tensor(tokens, dtype=torch.int64)\n"
         + "    starts = torch.randint(0, len(data) - context_length, (batch_size,), "
           "generator=generator)\n"
         + "    x = torch.stack([data[s:s + context_length] for s in starts])\n"
         + "    y = torch.stack([data[s + 1:s + context_length + 1] for s in starts])\n"
         + "    return x.to(device), y.to(device)\n"),
        # a zero-copy view first, then the whole array cast to int64 (every token read)
        (HEAD_BATCH
         + "    data = np.asarray(tokens).astype(np.int64)\n"
         + "    starts = torch.randint(0, len(data) - context_length, (batch_size,), "
           "generator=generator)\n"
         + "    w = torch.from_numpy(np.stack([data[s:s + context_length + 1] "
           "for s in starts.tolist()]))\n"
         + "    return w[:, :-1].to(device), w[:, 1:].to(device)\n"),
        # y not shifted: the model would learn to copy its input
        batch(xy="windows[:, :-1], windows[:, :-1]"),
        # y shifted the wrong way (the previous token)
        batch(windows="np.stack([tokens[s:s + context_length + 1] for s in (starts + 1).tolist()])",
              xy="windows[:, 1:], windows[:, :-1]"),
        # int32 batches
        batch(cast="windows.astype(np.int32)"),
        # the file's uint16 kept as is
        batch(cast="windows"),
        # never moved to the device
        batch(ret="x, y"),
        # the global RNG instead of the generator
        batch(draw="torch.randint(0, len(tokens) - context_length, (batch_size,))"),
    ],
}

RIGHT = {
    "save_tokens": [
        # bytes written by hand
        HEAD_SAVE + ("    with open(path, 'wb') as f:\n"
                     "        f.write(np.asarray(tokens, dtype=dtype).tobytes())\n"),
        # through a writeable memory map
        HEAD_SAVE + ("    values = np.asarray(tokens)\n"
                     "    out = np.memmap(path, dtype=dtype, mode='w+', shape=values.shape)\n"
                     "    out[:] = values\n"
                     "    out.flush()\n"
                     "    del out\n"),
    ],
    "load_tokens": [
        HEAD_LOAD + "    return np.memmap(filename=path, dtype=np.dtype(dtype), mode='readonly')\n",
        HEAD_LOAD + ("    n = os.path.getsize(path) // np.dtype(dtype).itemsize\n"
                     "    return np.memmap(path, dtype=dtype, mode='r', shape=(n,))\n"),
    ],
    "get_batch": [
        # one fancy index for all windows, then views for x and y
        (HEAD_BATCH
         + "    starts = torch.randint(0, len(tokens) - context_length, (batch_size,), "
           "generator=generator)\n"
         + "    idx = starts[:, None].numpy() + np.arange(context_length + 1)\n"
         + "    w = torch.as_tensor(np.asarray(tokens[idx], dtype=np.int64))\n"
         + "    return w[:, :-1].to(device), w[:, 1:].to(device)\n"),
        # x and y read separately, each window converted on its own
        (HEAD_BATCH
         + "    n = tokens.shape[0]\n"
         + "    starts = torch.randint(high=n - context_length, size=(batch_size,), "
           "generator=generator)\n"
         + "    x = torch.stack([torch.from_numpy(tokens[s:s + context_length].astype(np.int64))\n"
         + "                     for s in starts])\n"
         + "    y = torch.stack([torch.from_numpy(tokens[s + 1:s + 1 + context_length]"
           ".astype(np.int64)) for s in starts])\n"
         + "    return x.to(device=device), y.to(device=device)\n"),
        # np.asarray(tokens) first: a zero-copy view on a memory map, only the windows read
        (HEAD_BATCH
         + "    tokens = np.asarray(tokens)\n"
         + "    starts = torch.randint(0, len(tokens) - context_length, (batch_size,), "
           "generator=generator)\n"
         + "    w = np.stack([tokens[s:s + context_length + 1] for s in starts.tolist()])\n"
         + "    w = torch.from_numpy(w.astype(np.int64))\n"
         + "    return w[:, :-1].to(device), w[:, 1:].to(device)\n"),
        # built directly on the device from lists
        (HEAD_BATCH
         + "    starts = torch.randint(0, len(tokens) - context_length, (batch_size,), "
           "generator=generator).tolist()\n"
         + "    rows = [[int(t) for t in tokens[s:s + context_length + 1]] for s in starts]\n"
         + "    w = torch.tensor(rows, dtype=torch.long, device=device)\n"
         + "    return w[:, :context_length], w[:, 1:]\n"),
    ],
}
