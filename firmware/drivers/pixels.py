# NeoPixel strip with an Adafruit-like interface (fill, brightness, show,
# item assignment), so a CircuitPython board with adafruit-circuitpython-neopixel
# can sit behind the same interface. Wraps MicroPython's built-in neopixel.
#
# show() writes the chain only when the frame changed: a write runs with
# interrupts off (~30 us per LED), so needless writes cost beam timing.
# The frame lives in the driver's own bytearray (NeoPixel.buf, in its byte
# order ORDER) and show() re-encodes only the LEDs whose colour changed since
# the last frame it wrote: on the rp2 port encoding all 51 LEDs of a Roller
# Ghoster strip took 1.7 ms, which came straight on top of every ball's
# edge-to-LED latency; comparing the colours takes ~0.2 ms. Showing a frame
# allocates nothing.
# Brightness is capped so the whole chain stays within the USB current budget.


def max_brightness(px):
    # The cap for a pin map's "pixels" block: every LED of the chain(s) at full
    # white stays within the current budget (host/hauntbox/pinmap.py checks maps
    # with the same formula).
    full = px["count"] * px.get("max_ma_per_led", 60)
    cap = px.get("budget_ma", 500) / full
    return cap if cap < 1 else 1.0


class PixelStrip:
    def __init__(self, np, brightness=0.2, max_brightness=0.25):
        self.np = np
        self.n = len(np)
        self.bpp = np.bpp
        self.order = np.ORDER
        self.max_brightness = max_brightness
        self._brightness = -1.0
        self._scale = 0
        self._px = [(0, 0, 0)] * self.n
        self._sent = [(-1, -1, -1)] * self.n    # the colour each LED has in np.buf (none yet)
        self._force = True
        self.writes = 0
        self.failures = 0
        self.brightness = brightness

    def __len__(self):
        return self.n

    @property
    def brightness(self):
        return self._brightness

    @brightness.setter
    def brightness(self, b):
        if b < 0:
            b = 0.0
        if b > self.max_brightness:
            b = self.max_brightness
        if b != self._brightness:
            self._brightness = b
            self._scale = int(b * 256)
            self._force = True

    def __setitem__(self, i, colour):
        self._px[i] = colour

    def __getitem__(self, i):
        return self._px[i]

    def fill(self, colour):
        px = self._px
        for i in range(self.n):
            px[i] = colour

    def show(self):
        # Returns True if a frame was written.
        px = self._px
        sent = self._sent
        force = self._force
        if not force and px == sent:
            return False        # the list compare runs in C: ~0.03 ms, not a Python loop
        f = self.np.buf
        s = self._scale
        o0 = self.order[0]
        o1 = self.order[1]
        o2 = self.order[2]
        bpp = self.bpp
        for i in range(self.n):
            c = px[i]
            if force or c != sent[i]:
                sent[i] = c
                base = i * bpp
                f[base + o0] = (c[0] * s) >> 8
                f[base + o1] = (c[1] * s) >> 8
                f[base + o2] = (c[2] * s) >> 8
        return self._write()

    def show_led(self, i, colour):
        # Set LED i and show the frame at once, for a change known to touch
        # that LED alone (a ball's trench LED): it encodes one LED instead of
        # comparing all of them, which on the rp2 port saves ~0.5 ms of a
        # ball's edge-to-LED latency. Any other pending change is caught by the
        # C list compare and shown through show(). Returns True if written.
        px = self._px
        sent = self._sent
        px[i] = colour
        if self._force or colour == sent[i]:
            return self.show()
        old = sent[i]
        sent[i] = colour
        if px != sent:
            sent[i] = old       # so that show() encodes LED i with the others
            return self.show()
        s = self._scale
        base = i * self.bpp
        f = self.np.buf
        f[base + self.order[0]] = (colour[0] * s) >> 8
        f[base + self.order[1]] = (colour[1] * s) >> 8
        f[base + self.order[2]] = (colour[2] * s) >> 8
        return self._write()

    def _write(self):
        try:
            self.np.write()
        except OSError:
            self.failures += 1
            self._force = True      # retry the whole frame on the next show()
            raise
        self._force = False
        self.writes += 1
        return True
