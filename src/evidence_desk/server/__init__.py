"""The web app: the workspace for readers, the standards desk for editors, the widget."""

from .app import create_app

__all__ = ["create_app"]
