"""Issue 17, defects 12 and 13: interrupts and the event bus.

- The EdgeRecorder ring keeps one slot free, so the IRQ never writes the slot
  the reader is about to read.
- On the rp2 port a hard IRQ handler that raises is disabled for good: the
  recorder's handler catches everything and counts it, and the beam's task
  reports it as a fault; the beam keeps counting.
- main.py allocates MicroPython's emergency exception buffer.
- EventBus.publish: a failing sink is removed without the next one missing the
  event."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


class Rp2Pin:
    """A pin with the rp2 port's hard-IRQ rule: a handler that raises is disabled."""
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, v=1):
        self.v = v
        self.handler = None
        self.fail = 0           # the next `fail` reads of value() raise
        self.disabled = False

    def irq(self, handler=None, trigger=0, hard=False):
        self.handler = handler

    def value(self):
        if self.fail:
            self.fail -= 1
            raise OSError(5)
        return self.v

    def drive(self, v):
        self.v = v
        if self.handler is not None and not self.disabled:
            try:
                self.handler(self)
            except Exception:   # noqa: BLE001 - what the rp2 port does: print, disable
                self.disabled = True


class TearingTimes:
    """The ring's time array, with an interrupt arriving between the reader's load
    of a slot's time and of its level (a hard IRQ can come between any two
    bytecodes)."""

    def __init__(self, inner, on_read):
        self.inner = inner
        self.on_read = on_read

    def __getitem__(self, j):
        v = self.inner[j]
        f, self.on_read = self.on_read, None
        if f is not None:
            f()
        return v

    def __setitem__(self, j, v):
        self.inner[j] = v


def test_the_irq_never_overwrites_the_slot_the_reader_is_reading(clock):
    from drivers.edges import EdgeRecorder
    pin = Rp2Pin(0)
    rec = EdgeRecorder(pin, 8)
    sent = []
    for i in range(12):                 # more edges than fit
        clock.advance_to(clock.now_us + 1000)
        sent.append((clock.ticks_us(), i & 1))
        pin.drive(i & 1)
    assert rec.pending() == 7 and rec.overruns == 5       # one slot kept free
    rec._t = TearingTimes(rec._t, lambda: pin.drive(1))   # an edge while the oldest is read
    got = []
    rec.read(lambda t, v: got.append((t, v)))
    assert got == sent[:7]              # every (time, level) pair as recorded, in order
    assert rec.overruns == 6


def test_a_raising_irq_handler_becomes_a_fault_and_the_beam_keeps_counting(clock):
    from drivers.beam import Beam
    from drivers.edges import EdgeRecorder
    from devices.beams import BeamBank
    pin = Rp2Pin(1)
    rec = EdgeRecorder(pin, 32)
    bank = BeamBank([Beam(rec, 0, 3000, 4000, 2000)], flag=None)
    faults = []
    bank.on_irq_error = lambda k, n: faults.append((k, n))

    def ball():
        pin.drive(0)
        clock.advance_ms(20)
        pin.drive(1)
        clock.advance_ms(50)
        bank.poll()
    ball()
    pin.fail = 1                        # one read of the pin fails inside the IRQ
    ball()
    ball()
    ball()
    assert not pin.disabled             # the handler caught it: still armed
    assert faults == [(1, 1)] and rec.errors == 1
    assert bank.beams[0].total >= 3     # the beam still counts after the failure


def test_a_beam_irq_failure_is_published_as_a_fault_in_a_game():
    from hauntbox_sim.boards.roller import RollerSim
    s = RollerSim(players=2, seed=3)
    events = []
    s.app.bus.subscribe(events.append)
    rec = s.app.controller.tower.beams.beams[1].rec

    class FailOnce(bytearray):
        # The ring's level array; the first store inside the IRQ raises.
        armed = True

        def __setitem__(self, j, v):
            if FailOnce.armed:
                FailOnce.armed = False
                raise MemoryError
            super().__setitem__(j, v)
    rec._v = FailOnce(rec._v)
    s.run()
    assert ("fault", "irq", 2, 1) in events
    assert s.app.controller.game.is_over()


def test_main_allocates_the_emergency_exception_buffer(monkeypatch):
    import sys
    import types
    calls = []
    fake_mp = types.SimpleNamespace(alloc_emergency_exception_buf=lambda n: calls.append(n))
    fake_app = types.SimpleNamespace(run=lambda: calls.append("run"))
    monkeypatch.setitem(sys.modules, "micropython", fake_mp)
    monkeypatch.setitem(sys.modules, "app", fake_app)
    exec(compile((ROOT / "firmware/main.py").read_text(), "main.py", "exec"), {"__name__": "__main__"})
    assert len(calls) == 2 and isinstance(calls[0], int) and calls[0] >= 100 and calls[1] == "run"


def test_a_failing_sink_is_dropped_and_the_next_still_gets_the_event():
    from games.events import EventBus
    bus = EventBus()
    got = []

    def bad(ev):
        raise ValueError("broken sink")
    bus.subscribe(got.append)
    bus.subscribe(bad)
    bus.subscribe(lambda ev: got.append(("next", ev)))
    bus.publish(("a",))
    bus.publish(("b",))
    assert got == [("a",), ("next", ("a",)), ("b",), ("next", ("b",))]
    assert bad not in bus.sinks and len(bus.sinks) == 2 and bus.failed == 1


def test_a_sink_that_unsubscribes_itself_does_not_make_the_next_miss_the_event():
    from games.events import EventBus
    bus = EventBus()
    got = []

    def once(ev):
        bus.unsubscribe(once)
    bus.subscribe(once)
    bus.subscribe(got.append)
    bus.publish(("a",))
    assert got == [("a",)] and bus.sinks == [got.append]
