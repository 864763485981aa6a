"""The emulated Pico: the official MicroPython rp2 UF2 in rp2040js, driven from Python.

`Pico` starts `sim/pico/pico.mjs` under Node and runs the chip in lockstep:
`run_until(t_ns)` executes the firmware up to an emulated instant and returns
what it did on the way (`Event`s: output edges, servo pulse widths, WS2812
frames, flash writes, I2C steps, resets) and the bytes it sent over USB.
Inputs (`drive`) and host bytes (`write`) are applied at the instant the
chip stands at, so a physical model can change a pin at an exact time.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
UF2 = HERE / "RPI_PICO-v1.28.0.uf2"
BOOTROM = HERE / "rp2040-bootrom-b1.bin"
# Hashes of the vendored files (sim/pico/SHA256SUMS): a damaged or swapped file
# is refused with a one-line error; another UF2 (a maker's own download) is
# accepted by passing it explicitly.
UF2_SHA256 = "736852bda78bdfacaaab3d5fe02c82d6b147a509da1b723eef5a3fae77735901"
BOOTROM_SHA256 = "90b31e108faedfa6bbcfcc33ba05dac61e645108cfbbdc385f8dafc71fde44ae"

# The rp2 port's filesystem on a 2 MB Pico: littlefs v2 in the last 1408 KiB.
FS_OFFSET = 0xA0000
FS_BLOCK = 4096
FS_BLOCKS = 352
MS = 1_000_000


class PicoError(RuntimeError):
    pass


@dataclass
class Event:
    t_ns: int
    kind: str
    args: tuple

    def __repr__(self) -> str:
        return f"Event({self.t_ns / 1e6:.3f} ms, {self.kind}, {self.args})"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_image(uf2: Path | None) -> Path:
    """The UF2 to run: the vendored one (hash checked) or the caller's own."""
    if uf2 is not None:
        uf2 = Path(uf2)
        if not uf2.is_file():
            raise PicoError(f"{uf2}: no such UF2 file")
        if uf2.read_bytes()[:4] != b"UF2\n":
            raise PicoError(f"{uf2}: not a UF2 file")
        return uf2
    if sha256(UF2) != UF2_SHA256:
        raise PicoError(f"{UF2}: hash does not match SHA256SUMS (damaged or replaced file)")
    if sha256(BOOTROM) != BOOTROM_SHA256:
        raise PicoError(f"{BOOTROM}: hash does not match SHA256SUMS")
    return UF2


def uf2_payload(uf2: Path) -> bytes:
    """The flash contents a UF2 carries, in block order."""
    data = Path(uf2).read_bytes()
    out = bytearray()
    for off in range(0, len(data) - 511, 512):
        block = data[off:off + 512]
        size = int.from_bytes(block[16:20], "little")
        out += block[32:32 + size]
    return bytes(out)


def firmware_identity(uf2: Path) -> tuple[str, str]:
    """(MicroPython version, board) as the image's own banner names them."""
    import re
    payload = uf2_payload(uf2)
    v = re.search(rb"MicroPython (v[0-9][0-9A-Za-z.\-]*)", payload)
    b = re.search(rb"; ([ -~]{4,40} with [A-Z0-9]+)", payload)
    return (v.group(1).decode() if v else "unknown", b.group(1).decode() if b else "unknown board")


def node_runner() -> list[str]:
    node = shutil.which("node")
    if node is None:
        raise PicoError("the emulated Pico needs Node.js 18+ (node not found on PATH)")
    if not (ROOT / "node_modules" / "rp2040js").is_dir():
        raise PicoError("rp2040js is not installed: run `make deps` (npm ci) first")
    return [node, str(HERE / "pico.mjs")]


class Pico:
    """One emulated RP2040 running the MicroPython UF2."""

    def __init__(self, *, uf2: Path | None = None, flash: bytes | None = None,
                 pulse_pins: tuple[int, ...] = (), ws2812_pins: tuple[int, ...] = (),
                 output_pins: tuple[int, ...] = (), inputs: dict[int, int | None] | None = None,
                 stop_on_flash: bool = False) -> None:
        self.uf2 = check_image(uf2)
        self.proc = subprocess.Popen(node_runner(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     cwd=str(ROOT), bufsize=0)
        self.t_ns = 0
        self.boots = 0
        self.cycles = 0
        self._inputs: list[list[Any]] = []
        self._usb_out = bytearray()
        self._usb_in = bytearray()
        self._i2c: int | None = None
        self.backlog = 0
        flash_path = None
        if flash is not None:
            import tempfile
            fd, flash_path = tempfile.mkstemp(prefix="hauntbox-flash-", suffix=".bin")
            os.write(fd, flash)
            os.close(fd)
        try:
            self.pending = self._call({
                "op": "init", "uf2": str(self.uf2), "bootrom": str(BOOTROM),
                "flash": flash_path, "fs_offset": FS_OFFSET,
                "pulse": list(pulse_pins), "ws2812": list(ws2812_pins),
                "outputs": list(output_pins),
                "inputs": [[k, v] for k, v in (inputs or {}).items()],
                "stop_on_flash": stop_on_flash,
            })
        finally:
            if flash_path:
                os.unlink(flash_path)

    # ---- wire ------------------------------------------------------------
    def _call(self, msg: dict) -> list[Event]:
        if self.proc.poll() is not None:
            raise PicoError("the emulator process has exited")
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        line = self.proc.stdout.readline()
        if not line:
            raise PicoError("the emulator process died")
        r = json.loads(line)
        if "error" in r:
            raise PicoError(r["error"])
        self.t_ns = int(r["t"])
        self.boots = r["boots"]
        self.cycles = r["cycles"]
        self.backlog = r["pending"]
        if r["usb"]:
            self._usb_out += base64.b64decode(r["usb"])
        self._last = r
        return [Event(int(e[0]), e[1], tuple(e[2:])) for e in r["events"]]

    # ---- control ---------------------------------------------------------
    def drive(self, gpio: int, level: int | None) -> None:
        """Drive an input pin (0/1) or let it float (None: it follows its pull)."""
        self._inputs.append([gpio, level])

    def write(self, data: bytes) -> None:
        """Bytes from the host to the board's USB serial (queued until it reads)."""
        self._usb_in += data

    def i2c_answer(self, value: int) -> None:
        self._i2c = value

    def run_until(self, t_ns: int) -> list[Event]:
        """Run the chip up to the emulated instant t_ns; every event on the way."""
        events: list[Event] = []
        while True:
            events += self.advance(t_ns)
            if self.t_ns >= t_ns:
                return events

    def advance(self, t_ns: int, max_events: int = 1000) -> list[Event]:
        """Run towards t_ns; stops early when the chip did something the caller
        may have to answer (USB output, a watched pin, an I2C byte, a reset)."""
        msg: dict[str, Any] = {"op": "run", "until": int(t_ns), "max_events": max_events}
        if self._inputs:
            msg["inputs"], self._inputs = self._inputs, []
        if self._usb_in:
            msg["usb"] = base64.b64encode(bytes(self._usb_in)).decode()
            self._usb_in.clear()
        if self._i2c is not None:
            msg["i2c"], self._i2c = self._i2c, None
        return self._call(msg)

    def run_for(self, ms: float) -> list[Event]:
        return self.run_until(self.t_ns + int(ms * MS))

    def read(self) -> bytes:
        """Everything the board sent over USB since the last read."""
        out = bytes(self._usb_out)
        self._usb_out.clear()
        return out

    def reset(self, reason: str = "power") -> list[Event]:
        return self._call({"op": "reset", "reason": reason})

    def power_cycle(self, flash: bytes) -> list[Event]:
        """A power cut, then power-up on `flash` (the filesystem region, or the
        whole flash) in the same Node process: host bytes not yet read by the
        board are lost, the watchdog's scratch registers are not kept."""
        self._usb_in.clear()
        self._usb_out.clear()
        self._i2c = None
        return self._call({"op": "reset", "reason": "power", "offset": FS_OFFSET,
                           "flash": base64.b64encode(flash).decode()})

    def read_flash(self, offset: int, length: int) -> bytes:
        """`length` bytes of the flash from `offset` (from the start of flash)."""
        self._call({"op": "flash", "offset": offset, "length": length})
        return base64.b64decode(self._last["data"])

    def read_sram(self) -> bytes:
        """The SRAM as it is now (264 KB from 0x20000000)."""
        self._call({"op": "sram"})
        return base64.b64decode(self._last["data"])

    def flash(self) -> bytes:
        self._call({"op": "flash"})
        return base64.b64decode(self._last["data"])

    def filesystem(self) -> bytes:
        self._call({"op": "flash", "offset": FS_OFFSET, "length": FS_BLOCK * FS_BLOCKS})
        return base64.b64decode(self._last["data"])

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._call({"op": "quit"})
            except (PicoError, BrokenPipeError, OSError):
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def __enter__(self) -> "Pico":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- conveniences for tests and tools ----------------------------------
    def repl(self, line: str, timeout_ms: float = 5000) -> str:
        """Type a line at the REPL; what it printed before the next prompt."""
        self.read()
        self.write(line.encode() + b"\r\n")
        out = self.run_until_output(b">>> ", timeout_ms).decode()
        body = out.split("\r\n", 1)[1] if "\r\n" in out else out
        return body.rsplit(">>> ", 1)[0].strip()

    def run_until_output(self, text: bytes, timeout_ms: float = 5000, step_ms: float = 20) -> bytes:
        """Run until the board has printed `text`; returns all it printed."""
        seen = bytearray()
        end = self.t_ns + int(timeout_ms * MS)
        while self.t_ns < end:
            self.run_for(step_ms)
            seen += self.read()
            if text in seen:
                return bytes(seen)
        raise PicoError(f"no {text!r} from the board within {timeout_ms:.0f} ms emulated; "
                        f"it printed {bytes(seen[-200:])!r}")
