"""Fake `machine` module mirroring the rp2 port's API closely enough for the firmware.

Pins are kept in a registry by id so physical models can drive inputs
(`Pin.sim_drive`) and observe outputs. Interrupt handlers run synchronously
when a driven level changes, the way a hard IRQ preempts the main program.
"""
from __future__ import annotations

from typing import Any, Callable

from hauntbox_sim.core import runtime

PWRON_RESET = 1
WDT_RESET = 3
SOFT_RESET = 5

_pins: dict[Any, "Pin"] = {}
_i2c_buses: dict[int, "_Bus"] = {}
_reset_cause = PWRON_RESET
# What reset_cause() says on the next simulated board: a power-up, unless the
# board was reset (machine.reset() resets through the watchdog on the rp2
# port, so it reads WDT_RESET, as a watchdog timeout does).
_next_cause = PWRON_RESET


def reset_state() -> None:
    """Forget every pin, bus and watchdog: the next simulated board starts (its
    reset_cause() is the one the last board's end left, see set_next_reset_cause)."""
    global _reset_cause, _next_cause
    _pins.clear()
    _i2c_buses.clear()
    WDT.active = None
    _reset_cause, _next_cause = _next_cause, PWRON_RESET


def pin(pin_id: Any) -> "Pin":
    """The simulator's handle on a pin (created on first use)."""
    if pin_id not in _pins:
        Pin(pin_id)
    return _pins[pin_id]


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8
    IRQ_LOW_LEVEL = 1
    IRQ_HIGH_LEVEL = 2

    def __new__(cls, pin_id: Any, *args: Any, **kw: Any) -> "Pin":
        existing = _pins.get(pin_id)
        if existing is not None:
            return existing
        obj = super().__new__(cls)
        obj._init_once(pin_id)
        _pins[pin_id] = obj
        return obj

    def _init_once(self, pin_id: Any) -> None:
        self.id = pin_id
        self.mode = self.IN
        self.pull: int | None = None
        self._out = 0
        self._ext: int | None = None   # level driven from outside (None = floating)
        self._handler: Callable[["Pin"], None] | None = None
        self._trigger = 0
        self.hard = False
        self.irq_count = 0
        self.observers: list[Callable[["Pin", int], None]] = []

    def __init__(self, pin_id: Any, mode: int = -1, pull: int = -1, value: int | None = None,
                 **kw: Any) -> None:
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self._out = 1 if value else 0

    def init(self, mode: int = -1, pull: int = -1, value: int | None = None, **kw: Any) -> None:
        self.__init__(self.id, mode, pull, value)

    def value(self, v: int | None = None) -> int | None:
        if v is None:
            # _level(), inlined: every IRQ handler reads its pin.
            if self.mode == 1:          # Pin.OUT
                return self._out
            ext = self._ext
            if ext is not None:
                return ext
            return 1 if self.pull == 1 else 0   # Pin.PULL_UP
        old = self._level()
        self._out = 1 if v else 0
        new = self._level()
        for obs in self.observers:
            obs(self, new)
        self._edge(old, new)
        return None

    __call__ = value

    def on(self) -> None:
        self.value(1)

    def off(self) -> None:
        self.value(0)

    def toggle(self) -> None:
        self.value(0 if self._out else 1)

    def _level(self) -> int:
        if self.mode == self.OUT:
            return self._out
        if self._ext is not None:
            return self._ext
        return 1 if self.pull == self.PULL_UP else 0

    def irq(self, handler: Callable[["Pin"], None] | None = None,
            trigger: int = IRQ_FALLING | IRQ_RISING, hard: bool = False) -> None:
        self._handler = handler
        self._trigger = trigger
        self.hard = hard

    def irq_disable(self) -> None:
        """What MicroPython does to a hard IRQ whose handler raised: no more calls."""
        self._handler = None
        self._trigger = 0

    # --- simulator side ---------------------------------------------------
    def sim_drive(self, level: int | None) -> None:
        """Drive the pin from outside (a sensor output); None releases it.

        The same as `_sim_drive_reference` (tests/sim/core/test_event_path.py
        checks it), with _level(), _edge() and runtime.run_irq() inlined: the
        beam noise drives a pin about 80 times a simulated second."""
        ext = None if level is None else (1 if level else 0)
        if self.mode == 1:              # Pin.OUT: the outside level is not seen
            self._ext = ext
            return
        floating = 1 if self.pull == 1 else 0     # Pin.PULL_UP
        old = self._ext
        if old is None:
            old = floating
        self._ext = ext
        new = floating if ext is None else ext
        if old == new or self._handler is None:
            return
        if self._trigger & (8 if new else 4):     # IRQ_RISING / IRQ_FALLING
            self.irq_count += 1
            # runtime.run_irq(self._handler, self, self.hard), written in
            if runtime._clock.now_us < runtime._irq_off_until:
                runtime._irq_pending.setdefault(id(self), (self._handler, self, self.hard))
                return
            try:
                self._handler(self)
            except Exception as e:  # noqa: BLE001 - as run_irq
                runtime.irq_failed(self, e, self.hard)

    def _sim_drive_reference(self, level: int | None) -> None:
        # sim_drive as it was written first; kept for the test of the fast one.
        old = self._level()
        self._ext = None if level is None else (1 if level else 0)
        self._edge(old, self._level())

    def _edge(self, old: int, new: int) -> None:
        if old == new or self._handler is None:
            return
        if (new and self._trigger & self.IRQ_RISING) or (not new and self._trigger & self.IRQ_FALLING):
            self.irq_count += 1
            runtime.run_irq(self._handler, self, hard=self.hard)

    def __repr__(self) -> str:
        return f"Pin({self.id!r})"


class PWM:
    """PWM output; models observe pulse width changes through `observers`."""

    def __init__(self, dest: Pin, freq: int | None = None, duty_u16: int | None = None,
                 duty_ns: int | None = None, invert: bool = False) -> None:
        self.pin = dest
        self._freq = 1000
        self._duty_ns = 0
        self.history: list[tuple[int, int]] = []
        self.observers: list[Callable[["PWM"], None]] = []
        dest.pwm = self  # type: ignore[attr-defined]
        if freq is not None:
            self.freq(freq)
        if duty_ns is not None:
            self.duty_ns(duty_ns)
        if duty_u16 is not None:
            self.duty_u16(duty_u16)

    def freq(self, f: int | None = None) -> int | None:
        if f is None:
            return self._freq
        if not 8 <= f <= 62_500_000:
            raise ValueError("freq too small" if f < 8 else "freq too large")
        self._freq = int(f)
        return None

    def period_ns(self) -> int:
        return 1_000_000_000 // self._freq

    def duty_ns(self, ns: int | None = None) -> int | None:
        if ns is None:
            return self._duty_ns
        ns = int(ns)
        if ns < 0:
            raise ValueError("duty_ns must be >= 0")
        self._duty_ns = min(ns, self.period_ns())
        self.history.append((runtime.clock().now_us, self._duty_ns))
        for obs in self.observers:
            obs(self)
        return None

    def duty_u16(self, d: int | None = None) -> int | None:
        if d is None:
            return self._duty_ns * 65535 // self.period_ns()
        if not 0 <= d <= 65535:
            raise ValueError("duty_u16 must be 0..65535")
        return self.duty_ns(self.period_ns() * d // 65535)

    def deinit(self) -> None:
        self.duty_ns(0)


class _Bus:
    def __init__(self) -> None:
        self.devices: dict[int, Any] = {}


def attach_i2c_device(bus_id: int, addr: int, model: Any) -> None:
    """Put a register-level device model on a simulated I2C bus."""
    _i2c_buses.setdefault(bus_id, _Bus()).devices[addr] = model


class I2C:
    """I2C controller: transfers reach device models attached by address.

    A missing or unresponsive device raises OSError(5) (EIO), as the rp2 port
    does when the address is not acknowledged.
    """

    def __init__(self, bus_id: int, scl: Any = None, sda: Any = None, freq: int = 400_000,
                 timeout: int = 50_000) -> None:
        self.bus = _i2c_buses.setdefault(bus_id, _Bus())
        self.freq = freq

    def _dev(self, addr: int) -> Any:
        dev = self.bus.devices.get(addr)
        if dev is None or not getattr(dev, "responding", True):
            raise OSError(5)
        return dev

    def scan(self) -> list[int]:
        return sorted(a for a, d in self.bus.devices.items() if getattr(d, "responding", True))

    def readfrom_mem(self, addr: int, memaddr: int, nbytes: int, addrsize: int = 8) -> bytes:
        return bytes(self._dev(addr).read_regs(memaddr, nbytes))

    def readfrom_mem_into(self, addr: int, memaddr: int, buf: bytearray, addrsize: int = 8) -> None:
        data = self._dev(addr).read_regs(memaddr, len(buf))
        buf[:] = bytes(data)

    def writeto_mem(self, addr: int, memaddr: int, buf: bytes, addrsize: int = 8) -> None:
        self._dev(addr).write_regs(memaddr, bytes(buf))

    def writeto(self, addr: int, buf: bytes, stop: bool = True) -> int:
        dev = self._dev(addr)
        if len(buf):
            dev.write_regs(buf[0], bytes(buf[1:]))
        return 1

    def readfrom_into(self, addr: int, buf: bytearray, stop: bool = True) -> None:
        dev = self._dev(addr)
        buf[:] = bytes(dev.read_regs(None, len(buf)))

    def readfrom(self, addr: int, nbytes: int, stop: bool = True) -> bytes:
        return bytes(self._dev(addr).read_regs(None, nbytes))


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id: int = -1, **kw: Any) -> None:
        self._active = False
        if kw:
            self.init(**kw)

    def init(self, mode: int = PERIODIC, period: int = -1, freq: float = -1,
             callback: Callable[["Timer"], None] | None = None, hard: bool = False,
             tick_hz: int = 1000, **kw: Any) -> None:
        # period counts ticks of 1/tick_hz s (rp2: tick_hz=1_000_000 gives a
        # one-shot in microseconds; measured on the emulated Pico, the wake
        # comes at the period plus ~0.2 ms of the port's own path).
        if freq and freq > 0:
            period = int(1000 / freq)
            tick_hz = 1000
        self._period = max(1, int(period)) * 1000 / tick_hz     # ms
        self._mode = mode
        self._cb = callback
        self._hard = hard
        self._active = True
        self._gen = getattr(self, "_gen", 0) + 1
        self._arm(self._gen)

    def _arm(self, gen: int) -> None:
        def fire() -> None:
            if not self._active or gen != self._gen:
                return
            if self._mode == self.PERIODIC:
                self._arm(gen)
            else:
                self._active = False
            if self._cb:
                runtime.run_irq(self._cb, self, hard=self._hard)
        runtime.clock().after_ms(self._period, fire)

    def deinit(self) -> None:
        self._active = False


class WDT:
    """Watchdog: if not fed within the timeout, the simulated board resets."""

    active: "WDT | None" = None

    def __init__(self, id: int = 0, timeout: int = 5000) -> None:
        if not 1 <= timeout <= 8388:
            raise ValueError("timeout out of range (1..8388 ms on rp2)")
        self.timeout_ms = timeout
        self.feeds = 0
        WDT.active = self
        self._deadline_us = 0
        self.feed()

    def feed(self) -> None:
        self.feeds += 1
        clk = runtime.clock()
        self._deadline_us = clk.now_us + self.timeout_ms * 1000
        deadline = self._deadline_us

        def check() -> None:
            if WDT.active is self and self._deadline_us == deadline:
                set_next_reset_cause(WDT_RESET)
                runtime.watchdog_expired()
        clk.at(deadline, check)


class _Mem32:
    """machine.mem32: only the watchdog CTRL register is modelled."""

    WDT_CTRL = (0x40058000, 0x400D8000)

    def __getitem__(self, addr: int) -> int:
        if addr in self.WDT_CTRL:
            return 0x40000000 if WDT.active is not None else 0
        return 0

    def __setitem__(self, addr: int, value: int) -> None:
        return None


mem32 = _Mem32()


def reset() -> None:
    set_next_reset_cause(WDT_RESET)
    runtime.request_reset(hard=True)


def soft_reset() -> None:
    set_next_reset_cause(_reset_cause)     # a soft reset leaves the chip's reset reason
    runtime.request_reset(hard=False)


def reset_cause() -> int:
    return _reset_cause


def set_reset_cause(cause: int) -> None:
    global _reset_cause
    _reset_cause = cause


def set_next_reset_cause(cause: int) -> None:
    """The reset_cause() the next simulated board (the next install()) reads."""
    global _next_cause
    _next_cause = cause


def unique_id() -> bytes:
    return b"\xe6\x61\x41\x04\x03\x6b\x2a\x2c"


def freq(hz: int | None = None) -> int | None:
    return 125_000_000 if hz is None else None


def disable_irq() -> int:
    return 0


def enable_irq(state: int = 0) -> None:
    return None


def idle() -> None:
    return None
