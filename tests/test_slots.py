"""Sandbox slots are unique per machine: two workers never share a slot (and so, as root, a
uid whose process budget a fork bomb could exhaust for both), whichever process they are in.

Mutation used: make ``claim_slot`` return ``(preferred, fd)`` without locking; the first two
tests fail."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.sandbox import slots

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def private_slot_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(slots, "SLOT_DIR", tmp_path / "slots")


def test_a_held_slot_is_skipped_and_a_released_one_reused():
    first, first_lock = slots.claim_slot(7)
    second, second_lock = slots.claim_slot(7)
    assert (first, second) == (7, 8)
    slots.release_slot(first_lock)
    again, again_lock = slots.claim_slot(7)
    assert again == 7
    slots.release_slot(second_lock)
    slots.release_slot(again_lock)


def test_another_process_cannot_take_a_held_slot():
    slot, lock = slots.claim_slot(3)
    code = ("import sys; from pathlib import Path; from autograder.sandbox import slots; "
            "slots.SLOT_DIR = Path(sys.argv[1]); print(slots.claim_slot(3)[0])")
    other = subprocess.run([sys.executable, "-c", code, str(slots.SLOT_DIR)], cwd=REPO,
                           capture_output=True, text=True, check=True)
    assert int(other.stdout) == 4
    slots.release_slot(lock)
    # the other process has exited, so its slot 4 is free again: the lock died with it
    assert slots.claim_slot(4)[0] == 4


def test_slots_wrap_round_and_run_out_with_a_clear_error(monkeypatch):
    monkeypatch.setattr(slots, "MAX_SLOTS", 3)
    held = [slots.claim_slot(2) for _ in range(3)]
    assert [slot for slot, _ in held] == [2, 0, 1]
    with pytest.raises(slots.NoFreeSlot, match="all 3 sandbox slots"):
        slots.claim_slot(0)
    for _, lock in held:
        slots.release_slot(lock)


def test_the_slot_folder_is_shared_and_lock_files_are_read_only():
    """Kills: a slot folder other users' graders cannot take slots in (not world-writable
    and sticky, whatever the umask) and lock files anyone could write to."""
    import os
    import stat

    old = os.umask(0o077)
    try:
        slot, lock = slots.claim_slot()
    finally:
        os.umask(old)
    assert slot == 0  # from the first slot by default
    assert stat.S_IMODE(slots.SLOT_DIR.stat().st_mode) == 0o1777
    assert stat.S_IMODE((slots.SLOT_DIR / "0.lock").stat().st_mode) == 0o444 & ~0o077
    slots.release_slot(lock)


def test_a_slot_whose_lock_file_cannot_be_opened_is_skipped():
    """Kills: a lock file that cannot be opened (here a folder in its place) ending the search
    instead of moving on to the next slot."""
    (slots.SLOT_DIR / "0.lock").mkdir(parents=True)
    slot, lock = slots.claim_slot(0)
    assert slot == 1
    slots.release_slot(lock)


def test_an_unusable_slot_folder_says_so(tmp_path, monkeypatch):
    """Kills: the error for a slot folder that cannot be made losing what and why."""
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(slots, "SLOT_DIR", tmp_path / "file" / "slots")
    with pytest.raises(slots.NoFreeSlot, match=r"^cannot use .*/file/slots for sandbox slots: "):
        slots.claim_slot()
