"""The MicroPython VM runner lives in sim/mpvm.py (the benchmark uses it too)."""
from sim.mpvm import MicroPythonError, run_micropython, vm_available

__all__ = ["MicroPythonError", "run_micropython", "vm_available"]
