"""``hauntbox web``: the board live in a browser (see docs/web.md and server.py)."""

from hauntbox.web.server import main

__all__ = ["main"]
