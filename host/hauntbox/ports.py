"""Find a Raspberry Pi Pico running MicroPython among the serial ports.

A Pico running MicroPython shows up as a USB CDC serial port with the
Raspberry Pi vendor id 0x2E8A (product id 0x0005 for MicroPython's rp2 port,
on both the Pico and the Pico 2). Raspberry Pi's own debug adapters use the
same vendor id, so their known product ids are left out. A Pico held in
BOOTSEL mode is a USB drive, not a serial port, and is never listed.
"""

from __future__ import annotations

import os

from dataclasses import dataclass

from serial.tools import list_ports

#: USB vendor id of Raspberry Pi (RP2040 / RP2350 boards).
PICO_VID = 0x2E8A
#: Product id used by MicroPython's rp2 port.
MICROPYTHON_PID = 0x0005
#: Raspberry Pi USB devices with a serial port that are not a MicroPython board.
NOT_A_BOARD = {0x0004: "Picoprobe", 0x000C: "Raspberry Pi Debug Probe"}

NO_PICO_MESSAGE = "no Pico found: is it plugged in and running MicroPython? try --port /dev/ttyACM0"


class PortError(Exception):
    """No usable port, or more than one candidate."""


@dataclass(frozen=True)
class PicoPort:
    """One candidate serial port."""

    device: str
    pid: int | None = None
    serial_number: str | None = None
    description: str = ""

    def describe(self) -> str:
        bits = []
        if self.serial_number:
            bits.append(f"serial {self.serial_number}")
        if self.description and self.description != "n/a":
            bits.append(self.description)
        return f"{self.device} ({', '.join(bits)})" if bits else self.device


def list_picos() -> list[PicoPort]:
    """Every serial port whose USB vendor id is Raspberry Pi's, sorted by device."""
    found = []
    for p in list_ports.comports():
        if getattr(p, "vid", None) != PICO_VID:
            continue
        if getattr(p, "pid", None) in NOT_A_BOARD:
            continue
        found.append(
            PicoPort(
                device=p.device,
                pid=getattr(p, "pid", None),
                serial_number=getattr(p, "serial_number", None),
                description=getattr(p, "description", "") or "",
            )
        )
    return sorted(found, key=lambda q: q.device)


def find_pico() -> str:
    """Return the device path of the single Pico; PortError on none or several."""
    picos = list_picos()
    if not picos:
        raise PortError(NO_PICO_MESSAGE)
    if len(picos) > 1:
        listing = "\n".join("  " + p.describe() for p in picos)
        raise PortError(f"several Picos found, choose one with --port:\n{listing}")
    return picos[0].device


def missing_port(port: str) -> str | None:
    """A one-line reason when `port` is a device path that does not exist, else None."""
    if port.startswith("/") and not os.path.exists(port):
        return (f"no such port {port} (is the board plugged in? `hauntbox console --port auto` "
                "finds a Pico by its USB id)")
    return None


def resolve_port(spec: str | None) -> str:
    """``auto`` (or None/empty) finds the Pico; anything else is used as given."""
    if spec is None or spec == "" or spec == "auto":
        return find_pico()
    return spec
