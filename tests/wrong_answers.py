"""Plausible wrong answers, one or more per exercise, as replacement solution cells.

Keyed by assignment, then by the solution cell's grade_id. The grading tests submit each
one alone (everything else correct) and expect it to lose exactly that exercise's points.
The answers live in ``tests/answers/<assignment>.py`` (``WRONG``), where
``python -m autograder audit`` reads them too.
"""

from answers import by_assignment

WRONG_ANSWERS: dict[str, dict[str, list[str]]] = by_assignment("WRONG")
