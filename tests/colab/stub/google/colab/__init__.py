"""A stand-in for Colab's `google.colab` package, installed only in the Colab twin (tests).

Like Colab's own kernels, the twin's kernels load this package at start (as an IPython
extension, through the twin's ipython_kernel_config.py), so `"google.colab" in sys.modules` is
true in a twin kernel, as it is on Colab. Only what the course's code calls is here:
`_message.blocking_request` (see _message.py).
"""

TWIN = True  # tells a test it talks to the stand-in, never read by product code


def load_ipython_extension(ipython: object) -> None:
    """Colab's package registers its magics and hooks here (colabtools' google/colab/
    __init__.py); the twin needs none of them: being imported is what counts."""
