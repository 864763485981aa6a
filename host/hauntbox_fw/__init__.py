"""The firmware as a thing to find and build: shared by the host tools and the simulator, imports neither."""
__version__ = "0.1.0"
