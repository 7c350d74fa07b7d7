"""nbgrader for the grader account (formgrader, and the grader's own commands): the closed
exchange and the course directory. The course's own settings are in the course directory's
nbgrader_config.py (this repository's), which nbgrader reads after this one."""

import os
from pathlib import Path

c = get_config()  # noqa: F821 - injected by traitlets
load_subconfig(str(Path(__file__).resolve().parent.parent / "nbgrader_exchange_config.py"))  # noqa: F821

c.CourseDirectory.root = os.environ.get("CS336_COURSE_DIR", os.getcwd())
# generate_assignment's Colab cells read the repository and revision from course.toml: the
# course's own (its clone's), since the hub's checkout is closed to the grader account
# (close-checkout.sh)
c.ColabCells.course_file = os.path.join(c.CourseDirectory.root, "course.toml")
