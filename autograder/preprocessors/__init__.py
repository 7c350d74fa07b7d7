"""nbgrader preprocessors this course adds to ``nbgrader generate_assignment``.

``nbgrader_config.py`` appends them to ``GenerateAssignment.preprocessors``, after nbgrader's
own, so ``python -m autograder release`` and a bare ``nbgrader generate_assignment`` both run
them. One preprocessor per module.
"""

from autograder.preprocessors.colab_cells import ColabCells
from autograder.preprocessors.strip_widget_state import StripWidgetState
from autograder.preprocessors.tag_test_cells import TagTestCells

__all__ = ["ColabCells", "StripWidgetState", "TagTestCells"]
