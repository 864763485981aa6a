# Deterministic random source shared by every game.
# xorshift32 (13, 17, 5): identical results on CPython and on MicroPython, so
# one seed gives one game everywhere (parity tests rely on it). On hardware the
# seed comes from os.urandom.
#
# The 32-bit state is kept as two 16-bit halves so that every intermediate value
# stays a MicroPython small int (31-bit): the generator allocates nothing, where a
# plain 32-bit implementation would box a big int on every step.

_M16 = 0xFFFF
_TOP30 = 0x3FFFFFFF


class Rng:
    __slots__ = ("hi", "lo")

    def __init__(self, seed=1):
        self.seed(seed)

    def seed(self, seed):
        s = int(seed) & 0xFFFFFFFF
        if not s:
            s = 0x6D2B79F5   # xorshift has a fixed point at 0
        self.hi = s >> 16
        self.lo = s & _M16

    @property
    def state(self):
        return (self.hi << 16) | self.lo

    def _step(self):
        hi = self.hi
        lo = self.lo
        # x ^= x << 13
        hi ^= ((hi << 13) | (lo >> 3)) & _M16
        lo ^= (lo << 13) & _M16
        # x ^= x >> 17
        lo ^= hi >> 1
        # x ^= x << 5
        hi ^= ((hi << 5) | (lo >> 11)) & _M16
        lo ^= (lo << 5) & _M16
        self.hi = hi
        self.lo = lo

    def next30(self):
        # The top 30 bits of the next state (a small int on MicroPython).
        self._step()
        return (self.hi << 14) | (self.lo >> 2)

    def next32(self):
        self._step()
        return (self.hi << 16) | self.lo

    def below(self, n):
        # Uniform integer in [0, n); rejection sampling removes modulo bias.
        if n <= 0:
            raise ValueError("below() needs n > 0")
        limit = _TOP30 - ((_TOP30 % n) + 1) % n
        while True:
            x = self.next30()
            if x <= limit:
                return x % n

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def shuffle(self, items):
        # Fisher-Yates in place.
        i = len(items) - 1
        while i > 0:
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
            i -= 1
        return items

    def chance(self, numerator, denominator):
        return self.below(denominator) < numerator

    def to_dict(self):
        return {"state": self.state}

    @classmethod
    def saved_or(cls, saved, current):
        # The dice generator a save holds (its "rng"), or `current` for a save
        # without one; ValueError if the one it holds is damaged.
        d = saved.get("rng")
        return cls.from_dict(d) if isinstance(d, dict) else current

    @classmethod
    def from_dict(cls, d):
        r = cls(1)
        st = d.get("state") if isinstance(d, dict) else None
        if not isinstance(st, int) or isinstance(st, bool) or st <= 0 or st > 0xFFFFFFFF:
            raise ValueError("bad rng state")
        r.seed(st)
        return r
