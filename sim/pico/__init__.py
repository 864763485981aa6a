"""The emulated Pico: the official MicroPython rp2 firmware (UF2) on rp2040js, in lockstep with the models."""
