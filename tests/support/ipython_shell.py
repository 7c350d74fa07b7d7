"""One IPython shell for tests in this process.

IPython's ``globalipapp.get_ipython`` starts a shell on its first call and returns None on
every later one, so two test files that each call it break whichever runs second in a
process. This returns the shell either way."""

from __future__ import annotations

from IPython.terminal.interactiveshell import TerminalInteractiveShell
from IPython.testing import globalipapp


def shared_shell() -> TerminalInteractiveShell:
    return globalipapp.get_ipython() or TerminalInteractiveShell.instance()
