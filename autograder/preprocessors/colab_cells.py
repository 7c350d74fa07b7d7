"""Put the "Open in Colab" badge and the Colab setup cell at the top of each student notebook.

The cells are ``autograder.colab``'s, made from ``course.toml`` (where the course's repository
lives, and the revision both cells use), so no notebook is edited by hand for Colab and a fork
changes one file. The instructor notebooks in ``solutions/`` stay without them: only the
release gets them, and a release that already has them (run twice) gets fresh ones in their
place. The translated editions get their own language's cells from
``autograder.translate.build``.

Options (nbgrader config, e.g. ``c.ColabCells.folder = "release"``):

- ``ColabCells.folder``: the folder of the course's repository where the student notebooks are
  published; the badge opens ``<folder>/<assignment>/<notebook>.ipynb`` there.
- ``ColabCells.course_file``: the ``course.toml`` to read the repository and revision from.
- ``ColabCells.enabled``: nbgrader's switch, for a course that is not on Colab.
"""

from __future__ import annotations

from pathlib import Path

from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

from autograder.colab import COURSE_FILE, with_colab_cells


class ColabCells(NbGraderPreprocessor):
    """Insert (or replace) the English badge and setup cells at the top of the notebook."""

    folder = Unicode(
        "notebooks",
        help="The folder of the course's repository that holds the released notebooks, "
             "where the badge opens them: <folder>/<assignment>/<notebook>.ipynb.",
    ).tag(config=True)

    course_file = Unicode(
        str(COURSE_FILE),
        help="The course.toml that says where the course's repository lives ([repository] "
             "github) and which revision the badge opens and the setup cell installs.",
    ).tag(config=True)

    def preprocess(
        self, nb: NotebookNode, resources: ResourcesDict
    ) -> tuple[NotebookNode, ResourcesDict]:
        names = resources["nbgrader"]
        path = f"{self.folder}/{names['assignment']}/{names['notebook']}.ipynb"
        return with_colab_cells(nb, path, "en", Path(self.course_file)), resources
