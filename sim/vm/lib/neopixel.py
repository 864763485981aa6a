# Minimal `neopixel` for the MicroPython VM benchmark: a bytearray in GRB order,
# like MicroPython's own driver, and a write counter. Checked against sim/fakes/neopixel.py
# by tests/sim/vm/test_vm_lib_parity.py.


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.writes = 0

    def __len__(self):
        return self.n

    def __setitem__(self, i, c):
        o = i * self.bpp
        self.buf[o] = c[1]
        self.buf[o + 1] = c[0]
        self.buf[o + 2] = c[2]

    def __getitem__(self, i):
        o = i * self.bpp
        return (self.buf[o + 1], self.buf[o], self.buf[o + 2])

    def fill(self, c):
        for i in range(self.n):
            self[i] = c

    def write(self):
        self.writes += 1
