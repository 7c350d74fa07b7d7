"""The course lab's Chinese font: JupyterLab's page is drawn by the student's own browser, and
a system without a CJK font (a minimal Linux desktop) shows Chinese prose as empty boxes.

This loads ``custom/custom.css`` on the page (``LabApp.custom_css``), which adds the Noto Sans
SC file installed with the course (``pylopdf-fonts-zh-cn``, in .venv) as the last font for CJK
characters only. The server serves ``/custom/`` from ``static_custom_path``: the user's own
``~/.jupyter/custom`` first (a custom.css there wins, as ~/.jupyter does for every setting),
then this folder's ``custom/``, then the font's folder. Read by ``jupyter lab`` when
scripts/lab.sh puts this folder on ``JUPYTER_CONFIG_PATH``; trusts the installed packages.
"""

from pathlib import Path

from jupyter_core.paths import jupyter_config_dir

c = get_config()  # noqa: F821 - defined by traitlets when it runs this file

served = [str(Path(jupyter_config_dir()) / "custom"), str(Path(__file__).parent / "custom")]
try:
    import pylopdf_fonts_zh_cn
except ImportError:  # no font installed: the CSS's font is not found and the browser's own shows
    pass
else:
    served.append(str(pylopdf_fonts_zh_cn.sans_path().parent))
c.LabApp.custom_css = True
# merged into the user's own tornado_settings rather than replacing them
c.ServerApp.tornado_settings.update({"static_custom_path": served})
