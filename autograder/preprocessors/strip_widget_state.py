"""Drop the widget state a notebook saves in its metadata, so a release leaks no answers.

When a notebook with live ipywidgets is saved, JupyterLab writes every widget's model
(values, labels, the text it displayed) under the notebook-level ``metadata.widgets``. The
instructor notebooks are saved after running their solutions, so that state holds computed
answers (e.g. a readout "6.3e24 FLOPs"). nbgrader's ``ClearOutput`` clears cell outputs,
which hold only references to those models, but leaves the notebook metadata alone.
"""

from __future__ import annotations

from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

# Notebook-level metadata key under which Jupyter (ipywidgets >= 7) saves widget state.
WIDGET_STATE_KEY = "widgets"


class StripWidgetState(NbGraderPreprocessor):
    """Remove ``metadata.widgets`` from the notebook. It has no options besides nbgrader's
    ``enabled``; cells are left as they are (``ClearOutput`` handles their outputs)."""

    def preprocess(
        self, nb: NotebookNode, resources: ResourcesDict
    ) -> tuple[NotebookNode, ResourcesDict]:
        nb.metadata.pop(WIDGET_STATE_KEY, None)
        return nb, resources
