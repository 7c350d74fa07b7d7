"""nbgrader configuration for this repository (read by every `nbgrader ...` run here).

solutions/  is nbgrader's source: instructor notebooks with solutions and hidden tests.
notebooks/  is the release: the student versions, generated with `python -m autograder release`
            (which calls `nbgrader generate_assignment` for each assignment).
"""

c = get_config()  # noqa: F821 - injected by traitlets when nbgrader loads this file

c.CourseDirectory.course_id = "cs336-lecture2"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"

# What a student sees in place of each solution.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# nbgrader scores any stderr output as a failure. torch writes harmless warnings there (some
# from C++, out of reach of Python's `warnings`); drop those lines so they cost no points.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"(UserWarning|FutureWarning|DeprecationWarning|\[W\d+ |NNPACK)"

# A cell that runs longer than this is interrupted (the notebooks' cells take seconds).
c.Execute.timeout = 60
