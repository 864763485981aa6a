# Saved game state on the flash filesystem, written atomically: the new state
# goes to a temporary file which is then renamed over the old one (rename is
# atomic on littlefs), so a power cut leaves either the old or the new file.
# A file that fails to parse or validate is set aside as <name>.bad and reported.
#
# Sealed files (every save but config.json, which people may edit): the saved
# object gets two more keys, "save" (the format, SAVE_FORMAT) and "sum" (a
# checksum of everything else), checked when it is read. A damaged byte then
# makes load() refuse the file (ValueError) instead of resuming a different
# game. The checksum is taken over the data, not the text: SHA-256 (hashlib,
# in the rp2 port) fed value by value, keys sorted, so a save needs no copy of
# its text in RAM (json.dump streams it to the file) and no big integers (a
# crc32 per value would box one each time), and the result is the same on
# MicroPython and CPython.

import json
import os
import sys
from hashlib import sha256

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

SAVE_FORMAT = const(2)      # 1: the unsealed saves of earlier firmware
_SEAL = ("save", "sum")
_BUF = bytearray(6)         # an int as the checksum reads it (no allocation)
_MP = sys.implementation.name == "micropython"


def _text(s):
    # The UTF-8 bytes of a str, as the hash takes them (MicroPython takes the
    # str itself, without a copy).
    return s if _MP else s.encode()


def _feed(h, x):
    if x is None:
        h.update(b"n")
    elif x is True:
        h.update(b"t")
    elif x is False:
        h.update(b"f")
    elif isinstance(x, int):
        _int(h, 105, x)
    elif isinstance(x, str):
        _int(h, 115, len(x))
        h.update(_text(x))
    elif isinstance(x, dict):
        _int(h, 100, len(x))
        for k in sorted(x):
            _feed(h, k)
            _feed(h, x[k])
    elif isinstance(x, (list, tuple)):
        _int(h, 108, len(x))
        for v in x:
            _feed(h, v)
    else:
        raise ValueError("cannot seal a %s" % type(x).__name__)


def _int(h, tag, v):
    b = _BUF
    b[0] = tag if v >= 0 else tag ^ 32
    if v < 0:
        v = -v
    for i in range(1, 6):
        b[i] = v & 255
        v >>= 8
    if v:
        raise ValueError("number too large to seal")
    h.update(b)


def checksum(data):
    # 30 bits of SHA-256 over `data` (a small int on MicroPython).
    h = sha256()
    _feed(h, data)
    d = h.digest()
    return (d[0] << 22) | (d[1] << 14) | (d[2] << 6) | (d[3] >> 2)


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
