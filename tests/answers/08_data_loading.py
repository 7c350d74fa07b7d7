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
        # np.save into an open file: no ".npy" appended, but the header is still written
        HEAD_SAVE + ("    with open(path, 'wb') as f:\n"
                     "        np.save(f, np.asarray(tokens, dtype=dtype))\n"),
        # uint16 whatever dtype is asked for, with the dtype given to asarray (OverflowError)
        HEAD_SAVE + "    np.asarray(tokens, dtype=np.uint16).tofile(path)\n",
        # text, one number per line: digits, not binary values
        HEAD_SAVE + "    np.savetxt(path, np.asarray(tokens).astype(dtype), fmt='%d')\n",
        # a probe's private helper is no answer: lecture_utils writes no token file for you
        HEAD_SAVE + ("    from lecture_utils.probes.tokens import _raw\n"
                     "    _raw(tokens, dtype, path)\n"),
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
        # np.load reads .npy files: a raw file has no header
        HEAD_LOAD + "    return np.load(path, mmap_mode='r')\n",
        # a torch tensor over the map, not the np.memmap
        HEAD_LOAD + "    return torch.from_numpy(np.memmap(path, dtype=dtype, mode='r'))\n",
        # cast of the whole map: every token read into memory
        HEAD_LOAD + "    return np.memmap(path, dtype=dtype, mode='r').astype(np.int64)\n",
        # the whole file read, then viewed as tokens
        HEAD_LOAD + ("    with open(path, 'rb') as f:\n"
                     "        return np.frombuffer(f.read(), dtype=dtype)\n"),
        # opened for writing, the flag switched off: it can be switched back on
        HEAD_LOAD + ("    tokens = np.memmap(path, dtype=dtype, mode='r+')\n"
                     "    tokens.flags.writeable = False\n"
                     "    return tokens\n"),
        # a read-only map, but not an np.memmap (the exercise asks for np.memmap)
        HEAD_LOAD + ("    import mmap\n"
                     "    with open(path, 'rb') as f:\n"
                     "        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)\n"
                     "    return np.frombuffer(mapped, dtype=dtype)\n"),
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
        # int16 windows ("torch has no uint16"): ids of 32,768 and more wrap negative
        (HEAD_BATCH
         + "    starts = torch.randint(0, len(tokens) - context_length, (batch_size,), "
           "generator=generator)\n"
         + "    windows = np.stack([tokens[s:s + context_length + 1] for s in starts.tolist()])\n"
         + "    windows = torch.from_numpy(windows.astype(np.int16)).long()\n"
         + "    return windows[:, :-1].to(device), windows[:, 1:].to(device)\n"),
        # NumPy's global RNG, not torch's generator
        (HEAD_BATCH
         + "    starts = np.random.randint(0, len(tokens) - context_length, size=batch_size)\n"
         + "    x = np.stack([tokens[s:s + context_length] for s in starts]).astype(np.int64)\n"
         + "    y = np.stack([tokens[s + 1:s + 1 + context_length] for s in starts])"
           ".astype(np.int64)\n"
         + "    return torch.from_numpy(x).to(device), torch.from_numpy(y).to(device)\n"),
        # the lecture's form: no generator, a tensor from a list of uint16 windows
        (HEAD_BATCH
         + "    start_indices = torch.randint(len(tokens) - context_length, (batch_size,))\n"
         + "    x = torch.tensor([tokens[start:start + context_length] "
           "for start in start_indices])\n"
         + "    y = torch.tensor([tokens[start + 1:start + 1 + context_length] "
           "for start in start_indices])\n"
         + "    return x.to(device), y.to(device)\n"),
        # a (B, 1) draw squeezed: at batch size 1 the starts become one number
        batch(draw="torch.randint(0, len(tokens) - context_length, (batch_size, 1), "
                   "generator=generator).squeeze()"),
        # y rolled from x: its last target wraps round to x's first token
        (HEAD_BATCH
         + "    starts = torch.randint(0, len(tokens) - context_length, (batch_size,), "
           "generator=generator)\n"
         + "    x = torch.from_numpy(np.stack([tokens[s:s + context_length] "
           "for s in starts.tolist()]).astype(np.int64))\n"
         + "    y = torch.roll(x, -1, dims=1)\n"
         + "    return x.to(device), y.to(device)\n"),
        # pins for any device other than the CPU (pin_memory needs CUDA)
        batch(ret="(x.pin_memory().to(device, non_blocking=True), "
                  "y.pin_memory().to(device, non_blocking=True)) if device != 'cpu' "
                  "else (x.to(device), y.to(device))"),
        # NumPy arrays, not torch tensors
        (HEAD_BATCH
         + "    starts = torch.randint(0, len(tokens) - context_length, (batch_size,), "
           "generator=generator)\n"
         + "    windows = np.stack([tokens[s:s + context_length + 1] "
           "for s in starts.tolist()]).astype(np.int64)\n"
         + "    return windows[:, :-1], windows[:, 1:]\n"),
        # start 0 never drawn
        batch(draw="torch.randint(1, len(tokens) - context_length, (batch_size,), "
                   "generator=generator)"),
        # window starts kept in the tokens' uint16: positions past 65,535 wrap
        (HEAD_BATCH
         + "    starts = torch.randint(0, len(tokens) - context_length, (batch_size,), "
           "generator=generator)\n"
         + "    starts = starts.numpy().astype(tokens.dtype)\n"
         + "    windows = np.stack([tokens[int(s):int(s) + context_length + 1] "
           "for s in starts])\n"
         + "    windows = torch.from_numpy(windows.astype(np.int64))\n"
         + "    return windows[:, :-1].to(device), windows[:, 1:].to(device)\n"),
    ],
}

RIGHT = {
    "save_tokens": [
        # pathlib
        HEAD_SAVE + ("    import pathlib\n"
                     "    pathlib.Path(path).write_bytes(np.asarray(tokens).astype(dtype)"
                     ".tobytes())\n"),
        # ids checked against the dtype's range first
        HEAD_SAVE + ("    ids = np.asarray(tokens)\n"
                     "    info = np.iinfo(dtype)\n"
                     "    if ids.size and (ids.min() < info.min or ids.max() > info.max):\n"
                     "        raise ValueError(f'token ids do not fit {np.dtype(dtype).name}')\n"
                     "    ids.astype(dtype).tofile(path)\n"),
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
        # np.memmap on an open file object
        HEAD_LOAD + ("    with open(path, 'rb') as f:\n"
                     "        return np.memmap(f, dtype=dtype, mode='r')\n"),
        # a full slice of the map: still an np.memmap view of the file
        HEAD_LOAD + "    return np.memmap(path, dtype=dtype, mode='r')[:]\n",
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
        # a (B, 1) draw plus offsets, one fancy index
        (HEAD_BATCH
         + "    starts = torch.randint(0, len(tokens) - context_length, (batch_size, 1), "
           "generator=generator)\n"
         + "    idx = (starts + torch.arange(context_length + 1)).numpy()\n"
         + "    w = torch.from_numpy(np.asarray(tokens)[idx].astype(np.int64))\n"
         + "    return w[:, :-1].to(device), w[:, 1:].to(device)\n"),
        # NumPy's sliding windows over a zero-copy view
        (HEAD_BATCH
         + "    starts = torch.randint(0, len(tokens) - context_length, (batch_size,), "
           "generator=generator)\n"
         + "    views = np.lib.stride_tricks.sliding_window_view(np.asarray(tokens), "
           "context_length + 1)\n"
         + "    w = torch.from_numpy(views[starts.numpy()].astype(np.int64))\n"
         + "    return w[:, :-1].to(device), w[:, 1:].to(device)\n"),
        # a zero-copy torch uint16 view, indexed, then .long()
        (HEAD_BATCH
         + "    starts = torch.randint(0, len(tokens) - context_length, (batch_size,), "
           "generator=generator)\n"
         + "    data = torch.from_numpy(np.asarray(tokens))\n"
         + "    idx = starts[:, None] + torch.arange(context_length + 1)\n"
         + "    w = data[idx].long()\n"
         + "    return w[:, :-1].to(device), w[:, 1:].to(device)\n"),
        # nanoGPT's form, with the generator and pinning on CUDA only
        (HEAD_BATCH
         + "    ix = torch.randint(len(tokens) - context_length, (batch_size,), "
           "generator=generator)\n"
         + "    x = torch.stack([torch.from_numpy((tokens[i:i + context_length])"
           ".astype(np.int64)) for i in ix])\n"
         + "    y = torch.stack([torch.from_numpy((tokens[i + 1:i + 1 + context_length])"
           ".astype(np.int64)) for i in ix])\n"
         + "    if torch.device(device).type == 'cuda':\n"
         + "        x = x.pin_memory().to(device, non_blocking=True)\n"
         + "        y = y.pin_memory().to(device, non_blocking=True)\n"
         + "    else:\n"
         + "        x, y = x.to(device), y.to(device)\n"
         + "    return x, y\n"),
        # one randint call of one number per row: the same draws as one call of batch_size
        (HEAD_BATCH
         + "    high = len(tokens) - context_length\n"
         + "    rows = []\n"
         + "    for _ in range(batch_size):\n"
         + "        s = int(torch.randint(0, high, (1,), generator=generator))\n"
         + "        rows.append(torch.as_tensor(tokens[s:s + context_length + 1], "
           "dtype=torch.long))\n"
         + "    w = torch.stack(rows)\n"
         + "    return w[:, :-1].to(device), w[:, 1:].to(device)\n"),
    ],
}
