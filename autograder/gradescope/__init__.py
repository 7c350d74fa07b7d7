"""Grading on Gradescope: an autograder zip that grades exactly as ``check`` and ``grade`` do.

``python -m autograder gradescope ASSIGNMENT -o autograder.zip`` (``build``) writes a zip
holding ``setup.sh`` and ``run_autograder`` (``templates/``), the grader's two packages, and
the assignment's checks as data (``key``), never its solutions. In Gradescope's container,
``run_autograder`` starts ``python -m autograder.gradescope.run`` (``run``), which grades the
one submitted notebook with ``autograder.pipeline`` in the sandbox (``student`` when
bubblewrap cannot start there), turns the result into Gradescope's ``results.json``
(``report``, checked against ``results.schema.json``) and prints what grading cost
(``measure``). Gradescope's contract is cited where it is used; docs/gradescope.md is the
instructor's guide. Imports nothing.
"""
