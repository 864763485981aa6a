# NeoPixel strip with an Adafruit-like interface (fill, brightness, show,
# item assignment), so a CircuitPython board with adafruit-circuitpython-neopixel
# can sit behind the same interface. Wraps MicroPython's built-in neopixel.
# show() writes the chain only when a pixel changed: a write runs with
# interrupts off (~30 us per LED), so needless writes cost beam timing.
# Brightness is capped so the whole chain stays within the USB current budget.


class PixelStrip:
    def __init__(self, np, brightness=0.2, max_brightness=0.25):
        self.np = np
        self.n = len(np)
        self.max_brightness = max_brightness
        self._brightness = 0.0
        self._px = [(0, 0, 0)] * self.n
        self._sent = None
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
            self._sent = None   # force a rewrite at the new level

    def __setitem__(self, i, colour):
        self._px[i] = colour

    def __getitem__(self, i):
        return self._px[i]

    def fill(self, colour):
        for i in range(self.n):
            self._px[i] = colour

    def show(self):
        # Returns True if a frame was written.
        px = self._px
        if self._sent is not None and self._sent == px:
            return False
        s = self._scale
        np = self.np
        for i in range(self.n):
            c = px[i]
            np[i] = ((c[0] * s) >> 8, (c[1] * s) >> 8, (c[2] * s) >> 8)
        try:
            np.write()
        except OSError:
            self.failures += 1
            raise
        self._sent = list(px)
        self.writes += 1
        return True
