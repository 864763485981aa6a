# Edge capture on a GPIO: the hard IRQ handler only stores (time, level) in
# preallocated buffers and sets a flag; decoding happens later in a task.
# The handler allocates nothing (checked under micropython.heap_lock() in tests).
#
# The ring keeps one slot free: with size - 1 edges pending the IRQ drops the
# new edge (counted in overruns) instead of overwriting the slot the reader is
# about to read. Only the IRQ writes _head and the slots, only the reader
# writes _tail, so neither needs interrupts off. A reader that sees overruns
# has lost the newest edges: it takes the pin's level as it is now (level()).
#
# On the rp2 port a hard IRQ handler that raises is disabled for good: a beam
# would go dead without a word. So the handler catches everything, counts it
# in `errors` (a small int: no allocation) and stays armed; the task that
# reads the recorder reports the count as a fault (devices/beams.py,
# devices/tower.py, devices/table.py). `hook(level)`, if set, is called from
# the IRQ after the edge is stored (the notch stop: devices/tower.py); it must
# allocate nothing either.

from array import array
from time import ticks_us

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_WRAP = const(0x3FFFFFFF)


class EdgeRecorder:
    def __init__(self, pin, size=32, flag=None, trigger=None):
        # size must be a power of two (cheap wrap with a mask); size - 1 edges fit.
        if size & (size - 1) or size < 2:
            raise ValueError("size must be a power of two")
        self.pin = pin
        self._mask = size - 1
        self._size = size
        self._t = array("i", [0] * size)
        self._v = bytearray(size)
        self._head = 0      # written only by the IRQ
        self._tail = 0      # written only by the reader
        self.overruns = 0   # edges dropped because the ring was full (IRQ side)
        self.errors = 0     # handler calls that raised (caught: the IRQ stays armed)
        self.hook = None
        self._flag = flag
        self._isr = self._handler   # bound method created once, not per interrupt
        if trigger is None:
            trigger = pin.IRQ_FALLING | pin.IRQ_RISING
        self._trigger = trigger
        pin.irq(handler=self._isr, trigger=trigger, hard=True)

    def _handler(self, pin):
        try:
            t = ticks_us()
            v = pin.value()
            i = self._head
            if ((i - self._tail) & _WRAP) >= self._mask:
                self.overruns += 1          # full: keep the reader's slots intact
            else:
                j = i & self._mask
                self._t[j] = t  # type: ignore[call-overload]  # stubs type ticks as _TicksUs
                self._v[j] = v
                self._head = (i + 1) & _WRAP
            h = self.hook
            if h is not None:
                h(v)
            f = self._flag
            if f is not None:
                f.set()
        except Exception:  # noqa: BLE001 - a raising hard IRQ is disabled for good (rp2)
            self.errors += 1

    def pending(self):
        return (self._head - self._tail) & _WRAP

    def read(self, sink):
        # Hand each captured edge to sink(t_us, level) in order; returns how many.
        head = self._head
        t = self._tail
        n = (head - t) & _WRAP
        for _ in range(n):
            j = t & self._mask
            sink(self._t[j], self._v[j])
            t = (t + 1) & _WRAP
        self._tail = t
        return n

    def level(self):
        return self.pin.value()

    def rearm(self):
        # Re-install the handler (after a port disabled it anyway).
        self.pin.irq(handler=self._isr, trigger=self._trigger, hard=True)

    def close(self):
        self.pin.irq(handler=None)
