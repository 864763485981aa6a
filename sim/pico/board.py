"""The emulated Pico wired to the simulator's physical models, in lockstep.

One source of truth for physics: the tower, table and MCP23017 models are the
Python ones in `sim/models`, unchanged. They drive pins through the fake
`machine` module's handles (`machine.pin(n).sim_drive(level)`) and schedule
their signal changes on a `VirtualClock`; here that clock *is* the emulated
Pico's clock (microseconds of emulated time) and every pin a model drives is
forwarded to the chip at the exact instant of the change:

    loop: run the chip until the next model event (or until it does something
          a model must see: a servo pulse width changes, a watched output pin
          changes, an I2C byte is clocked), then fire the model events due.

What the chip sends over USB goes to `HostLink`, the Python side of the serial
protocol (a host console); what it writes to the WS2812 pin is decoded into
frames (`leds`).
"""
from __future__ import annotations

import json
from typing import Any, Callable

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.core.clock import VirtualClock
from hauntbox_sim.fakes import machine
from hauntbox_sim.pico.emulator import Event, Pico

US = 1000  # ns


def tuples(v: Any) -> Any:
    """JSON lists back into the tuples the firmware's events are made of."""
    if isinstance(v, list):
        return tuple(tuples(x) for x in v)
    return v


class ForwardedPin(machine.Pin):
    """A pin handle whose outside drive goes to the emulated chip."""

    board: "PicoBoard"

    def sim_drive(self, level: int | None) -> None:
        super().sim_drive(level)
        self.board.pico.drive(int(self.id), None if level is None else (1 if level else 0))


class HostLink:
    """The host end of the board's USB serial: JSON lines out, events and replies in."""

    def __init__(self, board: "PicoBoard") -> None:
        self.board = board
        self.buf = bytearray()
        self.next_id = 1
        self.replies: dict[int, dict] = {}
        self.awaited: set[int] = set()      # ids a request() is waiting for
        self.subscribers: list[Callable[[tuple], None]] = []
        self.text: list[str] = []          # lines that are not protocol (REPL, prints, tracebacks)
        self.on_text: Callable[[str], None] | None = None
        self.on_reply: list[Callable[[dict], None]] = []
        self.messages = 0
        self.sent: dict[int, str] = {}     # id -> cmd of requests sent
        self.passive = False               # True: only listen (a console on a pty speaks)

    def subscribe(self, fn: Callable[[tuple], None]) -> None:
        self.subscribers.append(fn)

    def send(self, cmd: str, **args: Any) -> int:
        if self.passive:
            return -1           # another host owns the link (sim/pico/pty.py)
        rid = self.next_id
        self.next_id += 1
        msg = {"cmd": cmd, "id": rid, **args}
        self.sent[rid] = cmd
        self.board.pico.write((json.dumps(msg) + "\n").encode())
        return rid

    def feed(self, data: bytes) -> None:
        self.buf += data
        while True:
            i = self.buf.find(b"\n")
            if i < 0:
                return
            line = bytes(self.buf[:i]).rstrip(b"\r")
            del self.buf[:i + 1]
            self._line(line)

    def _line(self, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):
            text = line.decode("utf-8", "replace")
            self.text.append(text)
            if self.on_text is not None:
                self.on_text(text)
            return
        self.messages += 1
        if "ev" in msg:
            ev = (msg["ev"],) + tuples(msg.get("data") or [])
            for fn in list(self.subscribers):
                fn(ev)
        elif isinstance(msg.get("id"), int):
            msg["cmd"] = self.sent.pop(msg["id"], None)
            if msg["id"] in self.awaited:       # kept only for request(): no pile-up
                self.replies[msg["id"]] = msg
            for fn in list(self.on_reply):
                fn(msg)

    def request(self, cmd: str, timeout_ms: float = 5000, **args: Any) -> dict:
        """Send a request and run the board until its reply arrives."""
        rid = self.send(cmd, **args)
        self.awaited.add(rid)
        try:
            self.board.run(timeout_ms, until=lambda: rid in self.replies)
        finally:
            self.awaited.discard(rid)
        if rid not in self.replies:
            raise TimeoutError(f"no reply to {cmd!r} within {timeout_ms:.0f} ms of emulated time")
        return self.replies.pop(rid)


class I2cBridge:
    """The chip's I2C controllers, byte by byte, to the register-level device models.

    The models are attached as in the CPython simulation
    (`machine.attach_i2c_device`); a write's first byte sets the register
    pointer, later bytes write through it, reads clock bytes out from it.
    """

    def __init__(self) -> None:
        self.dev: Any = None
        self.first = False
        self.transfers = 0

    def __call__(self, e: Event) -> int | None:
        bus, step = e.args[0], e.args[1]
        if step == "connect":
            addr = e.args[2]
            b = machine._i2c_buses.get(bus)
            dev = b.devices.get(addr) if b is not None else None
            self.dev = dev if dev is not None and getattr(dev, "responding", True) else None
            self.first = True
            self.transfers += 1
            return 1 if self.dev is not None else 0
        if step == "write":
            if self.dev is None:
                return 0
            v = e.args[2]
            if self.first:
                self.dev.write_regs(v, b"")
                self.first = False
            else:
                self.dev.write_regs(self.dev.pointer, bytes([v]))
            return 1
        if step == "read":
            return self.dev.read_regs(None, 1)[0] if self.dev is not None else 0xFF
        return None                        # start / stop: nothing to answer


class PicoBoard:
    """An emulated Pico, its pins bridged to the fake `machine` handles the models use."""

    def __init__(self, pinmap: dict, flash: bytes, *, uf2: Any = None,
                 stop_on_flash: bool = False) -> None:
        self.pinmap = pinmap
        pins = pinmap["pins"]
        machine.reset_state()
        self.clock = sim_install.install(VirtualClock())
        ForwardedPin.board = self
        # Inputs are the pins the models drive; they float (follow their pull)
        # until a model drives them.
        for spec in pins.values():
            if spec.get("kind") in ("input", "irq"):
                ForwardedPin(spec["gpio"], machine.Pin.IN,
                             machine.Pin.PULL_UP if spec.get("pull") == "up" else -1)
        self.servo_gpio = pins["servo"]["gpio"] if "servo" in pins else None
        self.pixel_gpios = [p["gpio"] for p in pins.values() if p.get("kind") == "neopixel"]
        outputs = [p["gpio"] for p in pins.values() if p.get("kind") == "output"]
        self.pico = Pico(uf2=uf2, flash=flash,
                         pulse_pins=(self.servo_gpio,) if self.servo_gpio is not None else (),
                         ws2812_pins=tuple(self.pixel_gpios), output_pins=tuple(outputs),
                         stop_on_flash=stop_on_flash)
        self.servo = None
        if self.servo_gpio is not None:
            # The models watch the servo through a PWM handle: it shows the pulse
            # width measured on the chip's pin (0 = no pulses: servo off).
            self.servo = machine.PWM(machine.pin(self.servo_gpio), freq=50)
        self.host = HostLink(self)
        self.raw_out: Callable[[bytes], None] | None = None   # e.g. a pty (sim/pico/pty.py)
        self.frames: dict[int, bytes] = {}         # gpio -> last WS2812 frame
        self.frame_count = 0
        self.on_frame: list[Callable[[int, bytes, int], None]] = []
        self.on_event: list[Callable[[Event], None]] = []
        self.pulses: list[tuple[int, int]] = []    # (t_us, width_ns) of the servo
        self.servo_quiet_us: int | None = None    # when the servo pin last began a pulse
        self.resets: list[tuple[int, str]] = []
        self.flash_ops = 0
        self.i2c: Callable[[Event], int | None] | None = I2cBridge() if "i2c" in pinmap else None
        self._handle(self.pico.pending)

    # ---- time ------------------------------------------------------------
    @property
    def now_us(self) -> int:
        return self.clock.now_us

    def step(self, limit_us: int) -> None:
        """Advance the chip and the models together by one lockstep slice."""
        nxt = self.clock.next_event_us()
        target = limit_us if nxt is None else min(nxt, limit_us)
        if target * US > self.pico.t_ns:
            self._handle(self.pico.advance(target * US))
        self.clock.advance_to(max(self.clock.now_us, self.pico.t_ns // US))
        data = self.pico.read()
        if data:
            if self.raw_out is not None:
                self.raw_out(data)
            self.host.feed(data)

    def run(self, ms: float, until: Callable[[], bool] | None = None) -> None:
        """Run for `ms` of emulated time, or until `until()` holds."""
        end = self.clock.now_us + int(ms * 1000)
        while self.clock.now_us < end:
            if until is not None and until():
                return
            self.step(end)
        if until is not None:
            until()

    # ---- what the chip did -------------------------------------------------
    def _handle(self, events: list[Event]) -> None:
        for e in events:
            self.clock.advance_to(max(self.clock.now_us, e.t_ns // US))
            k = e.kind
            if k == "pulse":
                if e.args[1] == 0:
                    self.servo_quiet_us = int(e.args[2]) // US + 1   # just after the last rise
                self.pulses.append((e.t_ns // US, e.args[1]))
                if self.servo is not None:
                    self.servo.duty_ns(e.args[1])
            elif k == "out":
                pin = machine.pin(e.args[0])
                pin.mode = machine.Pin.OUT
                pin.value(e.args[1] or 0)
            elif k == "leds":
                pin, hexdata, first = e.args
                data = bytes.fromhex(hexdata)
                self.frames[pin] = data
                self.frame_count += 1
                for fn in self.on_frame:
                    fn(pin, data, first)
            elif k == "flash":
                self.flash_ops += 1
            elif k == "boot":
                self.resets.append((e.t_ns // US, e.args[0]))
            elif k == "i2c" and self.i2c is not None:
                answer = self.i2c(e)
                if answer is not None:
                    self.pico.i2c_answer(answer)
            for fn in self.on_event:
                fn(e)

    def servo_on(self) -> bool:
        """Whether the servo pin still carries pulses (the chip's own pin, measured)."""
        return self.servo is not None and self.servo.duty_ns() != 0

    def close(self) -> None:
        self.pico.close()
