# Deterministic random source shared by every game.
# xorshift32: a handful of integer ops, identical results on CPython and on
# MicroPython, so one seed gives one game everywhere (parity tests rely on it).
# On hardware the seed comes from os.urandom (see games/seed.py).

_MASK = 0xFFFFFFFF


class Rng:
    __slots__ = ("state",)

    def __init__(self, seed=1):
        self.seed(seed)

    def seed(self, seed):
        s = int(seed) & _MASK
        # xorshift has a fixed point at 0: map it to a fixed non-zero state.
        self.state = s if s else 0x6D2B79F5

    def next32(self):
        x = self.state
        x ^= (x << 13) & _MASK
        x ^= x >> 17
        x ^= (x << 5) & _MASK
        self.state = x
        return x

    def below(self, n):
        # Uniform integer in [0, n); rejection sampling removes modulo bias.
        if n <= 0:
            raise ValueError("below() needs n > 0")
        limit = _MASK - (_MASK + 1) % n
        while True:
            x = self.next32()
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
    def from_dict(cls, d):
        r = cls(1)
        st = d.get("state") if isinstance(d, dict) else None
        if not isinstance(st, int) or st <= 0 or st > _MASK:
            raise ValueError("bad rng state")
        r.state = st
        return r
