"""hauntbox host tools: flash, console, monitor, play, stats (the simulator is hauntbox_sim)."""
from hauntbox_fw import __version__

__all__ = ["__version__"]
