# Edge capture on a GPIO: the hard IRQ handler only stores (time, level) in
# preallocated buffers and sets a flag; decoding happens later in a task.
# The handler allocates nothing (checked under micropython.heap_lock() in tests).

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
        # size must be a power of two (cheap wrap with a mask).
        if size & (size - 1):
            raise ValueError("size must be a power of two")
        self.pin = pin
        self._mask = size - 1
        self._size = size
        self._t = array("i", [0] * size)
        self._v = bytearray(size)
        self._head = 0      # written only by the IRQ
        self._tail = 0      # written only by the reader
        self.overruns = 0
        self._flag = flag
        self._isr = self._handler   # bound method created once, not per interrupt
        if trigger is None:
            trigger = pin.IRQ_FALLING | pin.IRQ_RISING
        pin.irq(handler=self._isr, trigger=trigger, hard=True)

    def _handler(self, pin):
        i = self._head
        j = i & self._mask
        self._t[j] = ticks_us()  # type: ignore[call-overload]  # stubs type ticks as _TicksUs
        self._v[j] = pin.value()
        self._head = (i + 1) & _WRAP
        f = self._flag
        if f is not None:
            f.set()

    def pending(self):
        return (self._head - self._tail) & _WRAP

    def read(self, sink):
        # Hand each captured edge to sink(t_us, level) in order; returns how many.
        n = (self._head - self._tail) & _WRAP
        if n > self._size:
            # The IRQ lapped the reader: the oldest edges are gone.
            self.overruns += n - self._size
            self._tail = (self._head - self._size) & _WRAP
            n = self._size
        t = self._tail
        for _ in range(n):
            j = t & self._mask
            sink(self._t[j], self._v[j])
            t = (t + 1) & _WRAP
        self._tail = t
        return n

    def level(self):
        return self.pin.value()

    def close(self):
        self.pin.irq(handler=None)
