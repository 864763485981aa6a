"""Fake MicroPython modules (machine, neopixel, micropython, rp2) for the simulator."""
