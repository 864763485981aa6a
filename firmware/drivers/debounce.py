# A debounced digital input (button, notch switch) over an EdgeRecorder.
# The level counts as settled once no edge has arrived for debounce_ms (timed
# from the captured edge timestamps); presses are counted on settled
# transitions to the active level. The recorded edges are replayed in order, so
# a level that held for debounce_ms between two edges settles even when
# update() runs only after both (the loop was busy: a flash save, a USB write
# waiting for the host): an 80 ms press inside a 500 ms stall still counts.

from time import ticks_diff, ticks_us


def _since(now, then):
    # Microseconds from `then` (a past stamp) to `now`. ticks_us wraps at 2**30
    # and ticks_diff reads a stamp more than 2**29 us old as the future: a
    # negative result can only mean that old (an edge read after a long
    # break), which is settled by any measure.
    d = ticks_diff(now, then)
    return d if d >= 0 else 0x20000000


class DebouncedInput:
    def __init__(self, recorder, active_level=0, debounce_ms=20):
        self.rec = recorder
        self.active_level = active_level
        self.debounce_us = debounce_ms * 1000
        self.stable = recorder.level()
        self._raw = self.stable
        self._last_edge = ticks_us()
        self.presses = 0
        self.edges = 0
        self._changed = False
        self._sink = self._edge

    def _edge(self, t_us, level):
        self.edges += 1
        # The level before this edge held from _last_edge to t_us: long enough,
        # and it was a settled level, whenever this edge is read.
        if self._raw != self.stable and _since(t_us, self._last_edge) >= self.debounce_us:
            self._settle(self._raw)
        self._raw = level
        self._last_edge = t_us

    def _settle(self, level):
        self.stable = level
        self._changed = True
        if level == self.active_level:
            self.presses += 1

    def update(self):
        # Returns True if the settled level changed (or settled and changed back).
        # Polled for every button on every look at the panel: the ring is
        # read only when it holds edges, the pin without rec.level()'s call.
        self._changed = False
        rec = self.rec
        if rec.pending():
            rec.read(self._sink)
        raw = rec.pin.value()
        if raw != self._raw:
            # A change the IRQ missed (e.g. lost edge): time it from now.
            self._raw = raw
            self._last_edge = ticks_us()
        if raw != self.stable and _since(ticks_us(), self._last_edge) >= self.debounce_us:
            self._settle(raw)
        return self._changed

    def settle_wait_ms(self):
        # Milliseconds until the pending level can be taken as settled (0 if none).
        if self._raw == self.stable:
            return 0
        left = self.debounce_us - _since(ticks_us(), self._last_edge)
        return left // 1000 + 1 if left > 0 else 1

    def active(self):
        return self.stable == self.active_level

    def take_presses(self):
        n = self.presses
        self.presses = 0
        return n
