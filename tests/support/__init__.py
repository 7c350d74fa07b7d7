"""Helpers for the tests and benchmarks, not part of the grader: a throw-away nbgrader course
(``nbgrader_course``) and made-up submissions (``submissions``).

The tests import it as ``support`` (pytest puts ``tests/`` on ``sys.path``); the benchmarks
put ``tests/`` there themselves.
"""
