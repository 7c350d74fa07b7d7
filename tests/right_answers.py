"""Correct answers written differently from the instructor's, as replacement solution cells.

Keyed like ``wrong_answers.py``: assignment, then the solution cell's grade_id. Each one is
what a student might reasonably write (another formula order, another torch API, a helper
from the standard library, an int where we return a float); every one must score full marks.
The answers live in ``tests/answers/<assignment>.py`` (``RIGHT``), where
``python -m autograder audit`` reads them too.
"""

from answers import by_assignment

RIGHT_ANSWERS: dict[str, dict[str, list[str]]] = by_assignment("RIGHT")
