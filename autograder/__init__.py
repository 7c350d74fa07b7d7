"""Grading for the Lecture 2 notebooks, built on nbgrader.

``python -m autograder check NOTEBOOK`` grades one filled-in notebook against the instructor
version (hidden tests included); ``python -m autograder release`` regenerates the student
notebooks from ``solutions/``; ``python -m autograder grade`` grades a class. Where each
part lives is in docs/layout.md. Imports nothing.
"""
