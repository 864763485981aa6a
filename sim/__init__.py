"""hauntbox simulator: runs the unmodified firmware on CPython against simulated hardware."""
