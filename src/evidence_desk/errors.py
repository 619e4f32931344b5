"""The one error a user sees: a problem they can act on, said in one clear sentence.

Every part raises its own error types; `desk/facade.py` turns those a user can act on into
`DeskError`, and the command line catches `DeskError` in one place (`cli._Group`), printing
its sentence and exiting 1. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class DeskError(Exception):
    """A problem the user can act on; the message is one clear sentence."""
