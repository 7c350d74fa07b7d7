"""Hostile submissions: one module each, saying what it attacks and what the grader must do.

Each module has ``STUDENT`` (the folder name under ``submitted/``, itself part of some
attacks), ``EXPECT`` (the status and score the record must hold, and words its message
must contain) and ``build(submitted)``, which writes the student's folder. They are
graded in one batch with honest submissions, on both engines (tests/test_hostile.py).
"""

from __future__ import annotations

import importlib
from pathlib import Path

ATTACKS = [importlib.import_module(f"hostile.{path.stem}")
           for path in sorted(Path(__file__).parent.glob("*.py"))
           if not path.stem.startswith("_")]
