"""Fakes of the rp2 port's modules (machine, neopixel, micropython, rp2; time and asyncio extensions), one each, and install() that puts them in place."""
