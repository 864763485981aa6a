# Minimal `machine` for running the firmware inside the MicroPython VM (which
# has no machine module): enough to build a board and drive pins from a script.
# MicroPython-compatible; the VM runs use it, the CPython simulator uses sim/fakes/machine.py;
# tests/sim/vm/test_vm_lib_parity.py checks the two give the same transcript.


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8
    _all = {}

    def __init__(self, pin_id, mode=-1, pull=-1, value=None):
        self.id = pin_id
        self.v = 1 if pull == Pin.PULL_UP else 0
        if value is not None:
            self.v = value
        self.handler = None
        Pin._all[pin_id] = self

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        # The rp2 port's default trigger is both edges; a handler runs only on
        # the edges it asked for (as on the port and in sim/fakes/machine.py).
        self.handler = handler
        self.trigger = trigger

    def drive(self, v):
        # From a script: change the level and run the IRQ handler if this edge
        # is one of its triggers.
        if v != self.v:
            self.v = v
            if self.handler is not None and self.trigger & (Pin.IRQ_RISING if v else Pin.IRQ_FALLING):
                self.handler(self)


class PWM:
    def __init__(self, pin, freq=50, duty_ns=0):
        self.pin = pin
        self.f = freq
        self.ns = duty_ns

    def freq(self, f=None):
        if f is None:
            return self.f
        self.f = f

    def duty_ns(self, ns=None):
        if ns is None:
            return self.ns
        self.ns = ns


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout

    def feed(self):
        pass


class Timer:
    PERIODIC = 1
    ONE_SHOT = 0

    def __init__(self, id=-1, **kw):
        pass

    def init(self, **kw):
        pass

    def deinit(self):
        pass


def reset():
    raise SystemExit("reset")


class I2C:
    # A bus whose devices are register-level models (e.g. /lib/mcp23017_model.py)
    # registered by address in I2C.devices before the firmware opens the bus.
    # Transfers allocate nothing (except the OSError of a device that is absent
    # or not answering), so they can run inside measured code.
    devices = {}

    def __init__(self, id=0, scl=None, sda=None, freq=400000):
        self.id = id
        self.freq = freq

    def _dev(self, addr):
        d = I2C.devices.get(addr)
        if d is None or not d.responding:
            raise OSError(5)
        return d

    def readfrom_mem_into(self, addr, reg, buf):
        self._dev(addr).read_into(reg, buf)

    def writeto_mem(self, addr, reg, buf):
        self._dev(addr).write(reg, buf)

    def scan(self):
        return sorted([a for a in I2C.devices if I2C.devices[a].responding])
