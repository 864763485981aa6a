# Microchip MCP23017: 16-bit I2C port expander, used here for inputs with
# interrupt-on-change. Register-level driver (IOCON.BANK=0 map).
#
# Pins are numbered 0..15: A0..A7 = 0..7, B0..B7 = 8..15; a 16-bit value holds
# port A in its low byte and port B in its high byte.
#
# Interrupt path: the chip's INT output (INTA, with IOCON.MIRROR so it also
# reports port B) goes to a Pico GPIO watched by an EdgeRecorder; the hard IRQ
# only records the time. A task then calls service(t_int, sink): one sequential
# read of INTF, INTCAP and GPIO (6 bytes from INTFA). INTCAP holds the port as it
# was when the interrupt fired, so a pulse that is already over by the time the
# task reads still shows up (INTCAP = the changed level, GPIO = back at rest).
# Reading INTCAP/GPIO clears the interrupt. Edges go to sink(pin, t_us, level).
#
# Faults: every transfer catches OSError (EIO/ETIMEDOUT from the I2C bus). The
# chip is then marked not ok; the owner retries configure() now and then.
# configure() also re-checks the chip after it answers again: a chip that lost
# power comes back with its reset defaults, so it is always fully rewritten.
# The service path allocates nothing (preallocated buffers shared by the chips,
# readfrom_mem_into).

from time import ticks_us

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

# Register addresses with IOCON.BANK = 0 (A/B pairs interleaved).
_IODIRA = const(0x00)
_IODIRB = const(0x01)
_IPOLA = const(0x02)
_GPINTENA = const(0x04)
_DEFVALA = const(0x06)
_INTCONA = const(0x08)
IOCON = const(0x0A)
_IOCON2 = const(0x0B)       # the same register, seen at both addresses
GPPUA = const(0x0C)
INTFA = const(0x0E)
INTCAPA = const(0x10)
GPIOA = const(0x12)
OLATA = const(0x14)
_IOCON_IN_BANK1 = const(0x05)   # where IOCON sits if the chip is in BANK=1

# IOCON bits.
BANK = const(0x80)
MIRROR = const(0x40)
SEQOP = const(0x20)
_DISSLW = const(0x10)
_HAEN = const(0x08)
ODR = const(0x04)
INTPOL = const(0x02)

OK = const(0)
_NO_ANSWER = const(1)       # OSError on the bus
_MISMATCH = const(2)        # answered, but did not hold the configuration


# Transfer buffers, shared by every chip (one task services them in turn; the
# IRQ handler never touches the bus), made once: no allocation per transfer.
_B1 = bytearray(1)
_B2 = bytearray(2)
_B6 = bytearray(6)
_B11 = bytearray(11)


def pin_index(name):
    # "A0".."A7" -> 0..7, "B0".."B7" -> 8..15.
    if len(name) != 2 or name[0] not in "AB" or name[1] not in "01234567":
        raise ValueError("bad MCP23017 pin %r" % (name,))
    return (0 if name[0] == "A" else 8) + int(name[1])


class Mcp23017:
    # i2c: machine.I2C; addr: 0x20..0x27.
    # inputs: mask of input pins (the rest are outputs driven from OLAT).
    # pullups: mask for the 100 kOhm pull-ups; invert: IPOL mask (the GPIO and
    # INTCAP registers then read 1 for a low pin); interrupts: GPINTEN mask
    # (default: every input); compare: INTCON mask (1 = compare with defval,
    # 0 = interrupt on any change); defval: DEFVAL.
    # INT output: open drain (ODR) by default, so it needs a pull-up on the
    # Pico side and is active low; open_drain=False gives a push-pull output
    # that is active high if active_high else active low (INTPOL).
    def __init__(self, i2c, addr=0x20, inputs=0xFFFF, pullups=0xFFFF, invert=0,
                 interrupts=None, compare=0, defval=0, mirror=True, open_drain=True,
                 active_high=False, outputs=0):
        if not 0x20 <= addr <= 0x27:
            raise ValueError("MCP23017 address must be 0x20..0x27")
        self.i2c = i2c
        self.addr = addr
        self.inputs = inputs & 0xFFFF
        self.pullups = pullups & 0xFFFF
        self.invert = invert & self.inputs
        self.interrupts = (self.inputs if interrupts is None else interrupts) & self.inputs
        self.compare = compare & 0xFFFF
        self.defval = defval & 0xFFFF
        self.olat = outputs & 0xFFFF
        iocon = 0
        if mirror:
            iocon |= MIRROR
        if open_drain:
            iocon |= ODR
        elif active_high:
            iocon |= INTPOL
        self.iocon = iocon
        self.int_active = 1 if (active_high and not open_drain) else 0
        # _IODIRA..INTCONB as written by one sequential transfer (GPINTEN is
        # written as 0 here and enabled last, after the levels are known).
        c = bytearray(10)
        c[0] = self.inputs & 0xFF
        c[1] = self.inputs >> 8
        c[2] = self.invert & 0xFF
        c[3] = self.invert >> 8
        c[6] = self.defval & 0xFF
        c[7] = self.defval >> 8
        c[8] = self.compare & 0xFF
        c[9] = self.compare >> 8
        self._cfg = c
        self.state = 0          # last known levels (after IPOL) of the input pins
        self.ok = False
        self.status = _NO_ANSWER
        self.failures = 0       # transfers that failed
        self.outages = 0        # times the chip went from ok to failed
        self.errno = 0          # errno of the last failure (0 = mismatch)
        self.services = 0
        self.captured = 0       # edges taken from INTCAP
        self.late = 0           # edges seen only in GPIO (changed after the capture)
        self.reverted = 0       # captured changes already undone at the read
        self.unsure = 0         # services where both ports had captures

    # ---- configuration -------------------------------------------------

    def _set_failed(self, status, errno):
        self.failures += 1
        self.errno = errno
        if self.ok:
            self.outages += 1
        self.ok = False
        self.status = status

    def configure(self, sink=None, t_us=None):
        # Writes the whole configuration, checks it by reading it back, learns
        # the levels and enables the interrupts. Returns True if the chip is
        # ready. With a sink, pins whose level differs from the last known one
        # are reported as edges at t_us (a resync after an outage).
        old = self.state
        try:
            ok = self._configure()
        except OSError as e:
            self._set_failed(_NO_ANSWER, e.args[0] if e.args else 0)
            return False
        if not ok:
            self._set_failed(_MISMATCH, 0)
            return False
        self.ok = True
        self.status = OK
        if sink is not None:
            self._report(old ^ self.state, self.state, t_us if t_us is not None else ticks_us(), sink)
        return True

    def _configure(self):
        i2c = self.i2c
        a = self.addr
        b1 = _B1
        # If an earlier program left the chip in BANK=1, IOCON sits at 0x05:
        # writing 0 there returns it to BANK=0. In BANK=0 the same address is
        # GPINTENB, which is rewritten below anyway.
        b1[0] = 0
        i2c.writeto_mem(a, _IOCON_IN_BANK1, b1)
        b1[0] = self.iocon
        i2c.writeto_mem(a, IOCON, b1)
        i2c.writeto_mem(a, _IODIRA, self._cfg)
        b2 = _B2
        b2[0] = self.pullups & 0xFF
        b2[1] = self.pullups >> 8
        i2c.writeto_mem(a, GPPUA, b2)
        b2[0] = self.olat & 0xFF
        b2[1] = self.olat >> 8
        i2c.writeto_mem(a, OLATA, b2)
        r = _B11
        i2c.readfrom_mem_into(a, _IODIRA, r)
        c = self._cfg
        for i in range(10):
            if r[i] != c[i]:
                return False
        if r[10] != self.iocon:
            return False
        b2[0] = self.interrupts & 0xFF
        b2[1] = self.interrupts >> 8
        i2c.writeto_mem(a, _GPINTENA, b2)
        # Read GPIO after enabling: any change from here on raises INT, and
        # this read clears whatever was pending before.
        i2c.readfrom_mem_into(a, GPIOA, b2)
        self.state = (b2[0] | (b2[1] << 8)) & self.inputs
        return True

    def check(self):
        # Health check: re-read the configuration (reads of these registers
        # have no side effects). Returns True if it is intact; False if the
        # chip failed or lost it (then call configure()).
        try:
            self.i2c.readfrom_mem_into(self.addr, _IODIRA, _B11)
        except OSError as e:
            self._set_failed(_NO_ANSWER, e.args[0] if e.args else 0)
            return False
        r = _B11
        c = self._cfg
        for i in range(10):
            if i == 4 or i == 5:
                continue
            if r[i] != c[i]:
                self._set_failed(_MISMATCH, 0)
                return False
        if r[10] != self.iocon or (r[4] | (r[5] << 8)) != self.interrupts:
            self._set_failed(_MISMATCH, 0)
            return False
        return True

    # ---- input path ----------------------------------------------------

    def service(self, t_int, sink):
        # Reads INTFA, INTFB, INTCAPA, INTCAPB, GPIOA, GPIOB in one transfer.
        # Pins flagged in INTF whose captured level differs from the last known
        # one changed at t_int (the time of the INT edge); any other pin whose
        # current level differs changed later (reported at the time of the read).
        # A captured change that is already undone at the read went back at an
        # unknown time between t_int and the read. It is reported at t_int: a
        # pulse of unknown length is not proof of an event, and taking the read
        # time instead would stretch a 0.2 ms glitch into an "event" whenever
        # the loop was busy for longer than a line's min_us (a flash save, a long
        # serial write, the score chain). A real knock outlasts such a stall; one
        # that does not is missed, which the referee can add.
        # Both ports share the INT line (MIRROR): when both have captures, only
        # the first set it, at t_int; the other port captured later, at a time
        # the INT line no longer shows. Those captures are dated so that no run
        # of 1s looks longer than it was (the table sets IPOL so that 1 = active):
        # a change to 1 at the read, a change to 0 at t_int.
        # Returns the number of edges delivered, or -1 if the chip did not answer.
        b = _B6
        try:
            self.i2c.readfrom_mem_into(self.addr, INTFA, b)
        except OSError as e:
            self._set_failed(_NO_ANSWER, e.args[0] if e.args else 0)
            return -1
        t_now = ticks_us()
        self.services += 1
        mask = self.inputs
        flagged = (b[0] | (b[1] << 8)) & mask
        gpio = (b[4] | (b[5] << 8)) & mask
        st = self.state
        n = 0
        took = 0
        if flagged:
            cap = b[2] | (b[3] << 8)
            took = (cap ^ st) & flagged
            if took:
                if flagged & 0xFF and flagged & 0xFF00:
                    late_up = took & cap & gpio     # to 1 at an unknown time, still 1
                    n += self._report(took ^ late_up, cap, t_int, sink)
                    n += self._report(late_up, cap, t_now, sink)
                    self.unsure += 1
                else:
                    n += self._report(took, cap, t_int, sink)
                self.captured += n
                st ^= took
        ch = gpio ^ st
        back = ch & took
        if back:
            k = self._report(back, gpio, t_int, sink)
            self.reverted += k
            n += k
            ch ^= back
        if ch:
            k = self._report(ch, gpio, t_now, sink)
            self.late += k
            n += k
        self.state = gpio
        return n

    def _report(self, changed, levels, t, sink):
        # sink(pin, t, level) for every pin set in changed, lowest first.
        n = 0
        i = 0
        while changed:
            if changed & 1:
                sink(i, t, (levels >> i) & 1)
                n += 1
            changed >>= 1
            i += 1
        return n

    def read_inputs(self):
        # Current input levels (clears a pending interrupt), or -1 on failure.
        try:
            self.i2c.readfrom_mem_into(self.addr, GPIOA, _B2)
        except OSError as e:
            self._set_failed(_NO_ANSWER, e.args[0] if e.args else 0)
            return -1
        return (_B2[0] | (_B2[1] << 8)) & self.inputs

    def write_outputs(self, value):
        # Sets OLAT for the output pins. Returns False if the chip did not answer.
        self.olat = value & 0xFFFF & ~self.inputs
        b2 = _B2
        b2[0] = self.olat & 0xFF
        b2[1] = self.olat >> 8
        try:
            self.i2c.writeto_mem(self.addr, OLATA, b2)
        except OSError as e:
            self._set_failed(_NO_ANSWER, e.args[0] if e.args else 0)
            return False
        return True
