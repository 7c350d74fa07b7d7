"""nbgrader configuration for this repository (read by every `nbgrader ...` run here).

solutions/  is nbgrader's source: instructor notebooks with solutions and hidden tests.
notebooks/  is the release: the student versions, generated with `python -m autograder release`
            (which calls `nbgrader generate_assignment` for each assignment).
"""

import sys
from pathlib import Path

# The release's extra preprocessors live in this repository's `autograder` package.
# scripts/setup.sh installs it (pip install -e .); putting the repository root on the path as
# well lets a plain `nbgrader` run from here import it without that install. Appended, not
# prepended, so nothing in the repository shadows an installed module.
_REPO = str(Path(__file__).resolve().parent)  # __file__ is set by traitlets' config loader
if _REPO not in sys.path:
    sys.path.append(_REPO)

from autograder.preprocessors.colab_cells import ColabCells  # noqa: E402
from autograder.preprocessors.strip_widget_state import StripWidgetState  # noqa: E402
from autograder.preprocessors.tag_test_cells import TagTestCells  # noqa: E402

c = get_config()  # noqa: F821 - injected by traitlets when nbgrader loads this file

c.CourseDirectory.course_id = "cs336-lecture2"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"

# What a student sees in place of each solution.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Run after nbgrader's own release steps (`.extend` keeps GenerateAssignment's default list,
# whose order matters to nbgrader): drop saved widget state, which holds the instructor's
# computed answers; tag test cells `raises-exception` so "Run All" in JupyterLab goes on past
# the tests a fresh notebook fails; and put the "Open in Colab" badge and the Colab setup cell
# at the top, made from course.toml (docs/colab.md). See the modules for why each is needed.
c.GenerateAssignment.preprocessors.extend([StripWidgetState, TagTestCells, ColabCells])

# ClearOutput (in the release and in autograding) empties outputs and execution counts and
# drops cell metadata tied to a run: its defaults `collapsed` and `scrolled`, plus the run's
# timestamps, which JupyterLab and nbclient record under `execution` and the classic
# notebook's ExecuteTime extension under `ExecuteTime`.
c.ClearOutput.remove_metadata_fields.update({"execution", "ExecuteTime"})

# nbgrader scores any stderr output as a failure. torch writes harmless warnings there (some
# from C++, out of reach of Python's `warnings`); drop those lines so they cost no points.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"(UserWarning|FutureWarning|DeprecationWarning|\[W\d+ |NNPACK)"

# A cell that runs longer than this is interrupted (the notebooks' cells take seconds).
c.Execute.timeout = 60
