"""The emulated Pico: the official MicroPython rp2 UF2 in rp2040js (sim/pico).

These tests need Node and the npm packages (`make deps`); `make test` installs
both. Emulated time is the clock: a test runs the chip for so many emulated
milliseconds, which takes less wall time when the firmware idles.
"""
import pytest

from hauntbox_sim.pico import image as pico_image
from hauntbox_sim.pico.emulator import Pico


@pytest.fixture(scope="session")
def build_dir():
    return pico_image.firmware_build()


@pytest.fixture
def repl_pico():
    """A Pico on blank flash, at the REPL (its banner read)."""
    p = Pico()
    p.run_for(300)
    p.write(b"\r\n")
    p.run_until_output(b">>> ")
    yield p
    p.close()


def repl(p: Pico, line: str, timeout_ms: float = 5000) -> str:
    """Type a line at the REPL; returns what it printed before the next prompt."""
    return p.repl(line, timeout_ms)
