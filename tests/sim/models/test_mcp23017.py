"""MCP23017 driver (firmware/drivers/mcp23017.py) against the register-level chip model.

Layer 2 (drivers against fakes): configuration writes, interrupt capture,
INTCAP latching, MIRROR, INTPOL/ODR, DEFVAL compare, a chip that stops
answering (clear fault, no crash, recovery) and the allocation-free service path.
"""
import pytest

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.core.clock import VirtualClock
from hauntbox_sim.fakes import machine
from hauntbox_sim.models.mcp23017 import Mcp23017Model, decode_address

INT_GPIO = 6


@pytest.fixture
def rig():
    clk = sim_install.install(VirtualClock())
    from drivers.mcp23017 import Mcp23017
    intp = machine.Pin(INT_GPIO, machine.Pin.IN, machine.Pin.PULL_UP)
    chip = Mcp23017Model(int_a=intp)
    machine.attach_i2c_device(0, 0x20, chip)
    i2c = machine.I2C(0, scl=machine.Pin(9), sda=machine.Pin(8), freq=400_000)
    edges = []

    def sink(i, t, level):
        edges.append((i, t, level))

    class Rig:
        pass
    r = Rig()
    r.clk, r.chip, r.i2c, r.intp, r.edges, r.sink, r.Mcp23017 = clk, chip, i2c, intp, edges, sink, Mcp23017
    return r


def test_configuration_writes_every_register(rig):
    d = rig.Mcp23017(rig.i2c, 0x20, inputs=0xFFFF, pullups=0x7FFF, invert=0x00F0,
                     interrupts=0x0F0F, compare=0x0100, defval=0x0100)
    assert d.configure()
    c = rig.chip
    assert c.iocon == 0x44                        # BANK=0, MIRROR, SEQOP=0 (sequential), ODR
    assert c.reg16("IODIR") == 0xFFFF
    assert c.reg16("IPOL") == 0x00F0
    assert c.reg16("GPINTEN") == 0x0F0F
    assert c.reg16("INTCON") == 0x0100
    assert c.reg16("DEFVAL") == 0x0100
    assert c.reg16("GPPU") == 0x7FFF
    assert d.ok and d.status == 0
    # GPINTEN is enabled last, after the levels are known; the INT line is open drain.
    writes = [(reg, data) for kind, reg, data in c.transfers if kind == "w"]
    assert writes[-1][0] == 0x04
    assert rig.intp.value() == 1


def test_configure_brings_a_chip_back_from_bank1(rig):
    # An earlier program left the chip in BANK=1 with byte mode: IOCON then
    # lives at 0x05 and 0x15, and 0x0A is OLATA.
    rig.chip.write_regs(0x0A, bytes([0x80 | 0x20]))
    assert rig.chip.bank1
    assert rig.chip.read_regs(0x05, 1) == bytes([0xA0])
    d = rig.Mcp23017(rig.i2c, 0x20, invert=0x0001)
    assert d.configure()
    assert not rig.chip.bank1 and rig.chip.iocon == 0x44
    assert rig.chip.reg16("IPOL") == 0x0001


def test_model_register_maps_and_pointer_modes(rig):
    c = rig.chip
    assert decode_address(0x12, bank1=False) == ("GPIO", 0)
    assert decode_address(0x13, bank1=False) == ("GPIO", 1)
    assert decode_address(0x09, bank1=True) == ("GPIO", 0)
    assert decode_address(0x19, bank1=True) == ("GPIO", 1)
    assert decode_address(0x0B, bank1=False) == ("IOCON", 1)
    # Byte mode in BANK=0 toggles between the A/B pair: GPIOA, GPIOB, GPIOA...
    c.write_regs(0x0A, bytes([0x20]))
    c.write_regs(0x0C, bytes([0xFF]))             # GPPUA (byte mode: only A)
    c.write_regs(0x0D, bytes([0x00]))             # GPPUB
    assert c.read_regs(0x12, 4) == bytes([0xFF, 0x00, 0xFF, 0x00])
    # Sequential mode runs on through the map.
    c.write_regs(0x0A, bytes([0x00]))
    assert c.read_regs(0x00, 2) == bytes([0xFF, 0xFF])


def test_change_raises_int_and_service_reports_the_edge(rig):
    d = rig.Mcp23017(rig.i2c, 0x20)
    d.configure()
    assert d.state & (1 << 3)                     # pulled up
    rig.clk.advance_ms(5)
    rig.chip.set_input(3, 0)
    assert rig.intp.value() == 0                  # INT asserted (open drain, low)
    assert rig.chip.reg("INTF", 0) == 0x08
    rig.chip.log_transfers = True
    rig.chip.transfers.clear()
    n = d.service(1234, rig.sink)
    assert n == 1 and rig.edges == [(3, 1234, 0)]
    assert rig.intp.value() == 1                  # reading INTCAP/GPIO cleared it
    # One sequential 6-byte read: INTFA INTFB INTCAPA INTCAPB GPIOA GPIOB.
    assert rig.chip.transfers == [("r", 0x0E, rig.chip.transfers[0][2])]
    assert len(rig.chip.transfers[0][2]) == 6


def test_intcap_keeps_a_pulse_that_ended_before_the_read(rig):
    """The pulse is seen (INTCAP), but when it ended is unknown: somewhere between the
    INT edge and the read. It is reported as ending at the INT edge, so a busy loop
    (the read 3 ms late) does not stretch a short glitch past a line's min_us."""
    d = rig.Mcp23017(rig.i2c, 0x20, invert=0x0100)    # B0 as an active-low beam
    d.configure()
    assert not d.state & 0x0100
    rig.chip.set_input(8, 0)                      # beam blocked: reads 1 through IPOL
    rig.clk.sleep_us(300)
    rig.chip.set_input(8, None)                   # clear again: a 0.3 ms glitch
    rig.clk.advance_ms(3)                         # ... and the task reads 3 ms late
    assert rig.chip.reg("INTCAP", 1) & 1          # captured the blocked level
    now = rig.clk.ticks_us()
    n = d.service(now - 3300, rig.sink)
    assert n == 2
    assert rig.edges == [(8, now - 3300, 1), (8, now - 3300, 0)]
    assert d.captured == 1 and d.reverted == 1 and d.late == 0
    assert d.state & 0x0100 == 0


def test_a_capture_on_the_other_port_is_dated_so_no_pulse_grows(rig):
    """Ports A and B share the INT line. Port A's change set it at t_int; port B's
    change 3 ms later raised no new edge, and when it was captured is unknown. A
    change to 0 there is dated at t_int: the earliest it can have been, so no run
    of 1s (active) looks longer than it was."""
    d = rig.Mcp23017(rig.i2c, 0x20)
    d.configure()
    assert d.state & 0x0100                       # B0 idles at 1 (pull-up)
    rig.chip.set_input(0, 0)                      # A0 to 0: INT asserted now
    t_int = rig.clk.ticks_us()
    rig.clk.sleep_us(3000)
    rig.chip.set_input(8, 0)                      # B0 to 0, 3 ms later
    assert rig.chip.reg("INTF", 1) & 1            # port B flagged; INT was already low
    rig.clk.sleep_us(200)
    d.service(t_int, rig.sink)
    assert (0, t_int, 0) in rig.edges             # port A: the edge that set INT
    assert (8, t_int, 0) in rig.edges             # to 0: dated at the earliest
    assert d.unsure == 1


def test_a_rise_on_the_other_port_is_dated_at_the_read(rig):
    d = rig.Mcp23017(rig.i2c, 0x20, invert=0x0100)    # B0 reads 1 when its pin is low
    d.configure()
    rig.chip.set_input(0, 0)                      # A0: sets INT
    t_int = rig.clk.ticks_us()
    rig.clk.sleep_us(3000)
    rig.chip.set_input(8, 0)                      # B0 becomes 1 (active) 3 ms later
    rig.clk.sleep_us(200)
    now = rig.clk.ticks_us()
    d.service(t_int, rig.sink)
    assert (0, t_int, 0) in rig.edges
    assert (8, now, 1) in rig.edges               # not at t_int: 3 ms it was not active
    assert d.unsure == 1


def test_a_change_after_the_capture_is_reported_at_the_read(rig):
    """A pin that changed while INT was already latched (not undone) is only in GPIO:
    it changed at some time before the read, reported at the read."""
    d = rig.Mcp23017(rig.i2c, 0x20)
    d.configure()
    rig.chip.set_input(0, 0)                      # captured at the INT edge
    rig.clk.advance_ms(1)
    rig.chip.set_input(1, 0)                      # later, while latched
    now = rig.clk.ticks_us()
    d.service(now - 1000, rig.sink)
    assert (0, now - 1000, 0) in rig.edges and (1, now, 0) in rig.edges
    assert d.captured == 1 and d.late == 1 and d.reverted == 0


def test_second_change_while_latched_is_seen_in_gpio_only(rig):
    d = rig.Mcp23017(rig.i2c, 0x20)
    d.configure()
    rig.chip.set_input(0, 0)
    cap = rig.chip.reg("INTCAP", 0)
    rig.chip.set_input(1, 0)                      # port A already latched
    assert rig.chip.reg("INTF", 0) == 0x01        # INTF and INTCAP frozen until cleared
    assert rig.chip.reg("INTCAP", 0) == cap
    d.service(50, rig.sink)
    assert (0, 50, 0) in rig.edges
    assert [e for e in rig.edges if e[0] == 1][0][2] == 0
    assert rig.intp.value() == 1


def test_mirror_makes_port_b_assert_inta(rig):
    d = rig.Mcp23017(rig.i2c, 0x20, mirror=True)
    d.configure()
    rig.chip.set_input(12, 0)
    assert rig.intp.value() == 0
    d.service(0, rig.sink)
    assert rig.edges == [(12, 0, 0)]
    d2 = rig.Mcp23017(rig.i2c, 0x20, mirror=False)
    d2.configure()
    rig.chip.set_input(13, 0)                     # port B, no MIRROR: INTB only (not wired)
    assert rig.chip.int_active(1) and not rig.chip.int_active(0)
    assert rig.intp.value() == 1


def test_push_pull_active_high_int(rig):
    d = rig.Mcp23017(rig.i2c, 0x20, open_drain=False, active_high=True)
    d.configure()
    assert rig.chip.iocon & 0x02 and not rig.chip.iocon & 0x04
    assert rig.intp.value() == 0                  # inactive = low
    rig.chip.set_input(2, 0)
    assert rig.intp.value() == 1


def test_defval_compare_interrupts_again_while_the_pin_differs(rig):
    d = rig.Mcp23017(rig.i2c, 0x20, interrupts=0x0001, compare=0x0001, defval=0x0001)
    d.configure()
    rig.chip.set_input(0, 0)
    assert rig.intp.value() == 0
    d.service(0, rig.sink)
    assert rig.intp.value() == 0                  # still differs from DEFVAL: fires again
    rig.chip.set_input(0, None)
    d.service(0, rig.sink)
    assert rig.intp.value() == 1


def test_chip_that_stops_answering_is_a_clear_fault_and_recovers(rig):
    d = rig.Mcp23017(rig.i2c, 0x20)
    assert d.configure()
    rig.chip.responding = False
    assert d.service(0, rig.sink) == -1           # no exception
    assert not d.ok and d.errno == 5 and d.outages == 1
    assert d.read_inputs() == -1
    assert not d.configure() and not d.check()
    assert d.outages == 1                         # one outage, however many retries
    # It comes back after a power cycle: every register at its reset value.
    rig.chip.reset()
    rig.chip.set_input(4, 0)
    rig.chip.responding = True
    assert d.configure(rig.sink, 999)
    assert d.ok and rig.chip.iocon == 0x44 and rig.chip.reg16("GPINTEN") == 0xFFFF
    assert rig.edges == [(4, 999, 0)]             # resync: what changed meanwhile


def test_check_notices_a_chip_that_lost_its_configuration(rig):
    d = rig.Mcp23017(rig.i2c, 0x20)
    d.configure()
    assert d.check()
    rig.chip.reset()                              # brown-out: answers, but with defaults
    assert not d.check()
    assert d.status == 2
    assert d.configure() and d.check()


def test_mismatched_readback_is_reported():
    class Deaf:
        # A device that acknowledges writes but reads back zeros.
        responding = True

        def read_regs(self, reg, n):
            return bytes(n)

        def write_regs(self, reg, data):
            pass
    sim_install.install(VirtualClock())
    from drivers.mcp23017 import Mcp23017
    machine.attach_i2c_device(0, 0x21, Deaf())
    d = Mcp23017(machine.I2C(0), 0x21)
    assert not d.configure()
    assert d.status == 2 and not d.ok


def test_service_path_reuses_preallocated_buffers(rig):
    seen = []

    class Spy:
        def __init__(self, i2c):
            self.i2c = i2c

        def readfrom_mem_into(self, addr, reg, buf):
            seen.append(id(buf))
            return self.i2c.readfrom_mem_into(addr, reg, buf)

        def __getattr__(self, name):
            return getattr(self.i2c, name)
    d = rig.Mcp23017(Spy(rig.i2c), 0x20)
    d.configure()
    seen.clear()
    for k in range(5):
        rig.chip.set_input(k, 0)
        d.service(k, rig.sink)
    assert len(set(seen)) == 1 and len(seen) == 5


def test_bad_arguments():
    from drivers.mcp23017 import Mcp23017, pin_index
    assert pin_index("A0") == 0 and pin_index("B7") == 15
    with pytest.raises(ValueError):
        pin_index("C1")
    with pytest.raises(ValueError):
        Mcp23017(None, 0x30)
