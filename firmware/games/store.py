# Saved game state on the flash filesystem, written atomically: the new state
# goes to a temporary file which is then renamed over the old one (rename is
# atomic on littlefs), so a power cut leaves either the old or the new file.
# A file that fails to parse or validate is set aside as <name>.bad and reported.
#
# Sealed files (every save but config.json, which people may edit): the saved
# object gets two more keys, "save" (the format, SAVE_FORMAT) and "sum" (a
# checksum of everything else), checked when it is read. A damaged byte then
# makes load() refuse the file (ValueError) instead of resuming a different
# game. The checksum is taken over the data, not the text, so a save needs no
# copy of its text in RAM (json.dump streams it to the file), and it is the
# same on MicroPython and CPython (whatever order a dict keeps). It is a
# polynomial hash mod a prime below 2**24, fed token by token (a type tag, a
# length, each character or 16 bits of a number; a dict's key-value pairs
# hashed apart and added): every step stays a small int on MicroPython, so it
# allocates nothing. (SHA-256 or binascii.crc32 would cost a hash object and
# a digest, or a boxed big int per value, on every save: several hundred
# bytes a turn.) Any one changed character or number changes the sum; other
# damage goes unnoticed with a chance of about 1 in 16 million.

import json
import os

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

SAVE_FORMAT = const(2)      # 1: the unsealed saves of earlier firmware
_P = const(16777213)        # a prime below 2**24: h * 61 + 0x10FFFF stays below 2**30
_SEAL = ("save", "sum")


def _feed(h, x):
    if x is None:
        return (h * 61 + 1) % _P
    if x is True:
        return (h * 61 + 2) % _P
    if x is False:
        return (h * 61 + 3) % _P
    if isinstance(x, int):
        if x < 0:
            h = (h * 61 + 4) % _P
            x = -x
        else:
            h = (h * 61 + 5) % _P
        hi = x >> 32
        if hi >= _P:
            raise ValueError("number too large to seal")
        h = (h * 61 + (x & 0xFFFF)) % _P
        h = (h * 61 + ((x >> 16) & 0xFFFF)) % _P
        return (h * 61 + hi) % _P
    if isinstance(x, str):
        h = (h * 61 + 6) % _P
        h = (h * 61 + len(x)) % _P
        for c in x:
            h = (h * 61 + ord(c)) % _P
        return h
    if isinstance(x, dict):
        # Each key and value hashed on its own and the results added: the
        # same whatever order the dict keeps them in, without sorting them
        # (a list per dict).
        t = 0
        for k in x:
            t = (t + _feed(_feed(10, k), x[k])) % _P
        h = (h * 61 + 7) % _P
        h = (h * 61 + len(x)) % _P
        return (h * 61 + t) % _P
    if isinstance(x, list) or isinstance(x, tuple):     # (no tuple built per call)
        h = (h * 61 + 8) % _P
        h = (h * 61 + len(x)) % _P
        for v in x:
            h = _feed(h, v)
        return h
    raise ValueError("cannot seal a %s" % type(x).__name__)


def checksum(data):
    # The sum of `data` (a small int, below 2**24).
    return _feed(9, data)


def unseal(data):
    # The saved object without its seal, or ValueError if the seal is missing
    # or does not match (the file is damaged, or older firmware wrote it).
    if data.get("save") != SAVE_FORMAT:
        raise ValueError("saved state has no format %d seal (damaged, or older firmware)"
                         % SAVE_FORMAT)
    s = data.pop("sum", None)
    del data["save"]
    if type(s) is not int or s != checksum(data):
        raise ValueError("saved state fails its checksum (damaged)")
    return data


class Store:
    def __init__(self, root="/"):
        if root and not root.endswith("/"):
            root += "/"
        self.root = root
        self.writes = 0
        self.on_saved = None        # on_saved(name): called once a save is complete

    def path(self, name):
        return self.root + name + ".json"

    def save(self, name, data, sealed=True):
        if sealed:
            for k in _SEAL:
                if k in data:
                    raise ValueError("a saved object cannot hold the key %r" % k)
            out = dict(data)        # the caller's dict stays as it is
            out["save"] = SAVE_FORMAT
            out["sum"] = checksum(data)
            data = out
        final = self.path(name)
        tmp = final + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.rename(tmp, final)
        self.writes += 1
        cb = self.on_saved
        if cb is not None:
            cb(name)

    def load(self, name, sealed=True):
        # Returns the parsed dict, or None if there is no file. Raises ValueError
        # for a file that exists but does not parse or fails its seal (caller
        # sets it aside).
        try:
            f = open(self.path(name))
        except OSError:
            return None
        try:
            data = json.load(f)
        except ValueError:      # UnicodeError too (CPython)
            raise ValueError("saved state does not parse")
        finally:
            f.close()
        if not isinstance(data, dict):
            raise ValueError("saved state is not an object")
        return unseal(data) if sealed else data

    def set_aside(self, name):
        src = self.path(name)
        try:
            os.rename(src, src + ".bad")
        except OSError:
            try:
                os.remove(src)
            except OSError:
                pass

    def remove(self, name):
        try:
            os.remove(self.path(name))
        except OSError:
            pass
