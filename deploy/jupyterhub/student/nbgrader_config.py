"""nbgrader in every user's server on the hub (JUPYTER_CONFIG_PATH points here): the closed
exchange, and the hub's ``nbgrader-<course>`` group deciding which courses the Assignments
panel lists. The group is a convenience, not a guard: the exchange's Unix permissions are."""

from pathlib import Path

c = get_config()  # noqa: F821 - injected by traitlets
load_subconfig(str(Path(__file__).resolve().parent.parent / "nbgrader_exchange_config.py"))  # noqa: F821

c.Authenticator.plugin_class = "nbgrader.auth.JupyterHubAuthPlugin"
