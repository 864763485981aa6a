"""What a page may send the web server: a small whitelist, checked field by field.

Every WebSocket message from a page is one JSON object with a ``t`` (its type)
and the fields that type takes, nothing else. ``check(raw, ...)`` returns the
message as a plain dict or raises ``BadMessage`` with a one-line reason; the
server then answers that reason and sends the board nothing. The types are
the requests the console can make:

==========  =====================================================  ==============
``t``       fields                                                 board request
==========  =====================================================  ==============
``act``     ``index`` (0..options-1), ``player`` (the one asked)   ``act``
``new``     ``players``, ``start``, ``game`` (all optional)        ``new``
``state``   none                                                   ``state``
``take``    none: this page takes the controls                     none
``inject``  ``stair`` 1..4, or ``target`` (a sensor name)          ``sim`` (simulated boards only)
==========  =====================================================  ==============
"""

from __future__ import annotations

import json
import re
from typing import Any

#: Longest message a page may send (bytes); a real one is under 100.
MAX_MESSAGE = 512
#: Sensor names a click can name (Haunted House standees, clue spots, holes...).
TARGET_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")

FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "act": {"index": (int,), "player": (int, type(None))},
    "new": {"players": (int, type(None)), "start": (int, type(None)), "game": (str, type(None))},
    "state": {},
    "take": {},
    "inject": {"stair": (int, type(None)), "target": (str, type(None))},
}
REQUIRED = {"act": ("index",)}
#: Requests that change the game: only the page holding the controls may send them.
CONTROL = {"act", "new", "inject"}


class BadMessage(ValueError):
    """A message from a page that is not on the whitelist (the reason, one line)."""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check(raw: str | bytes, games: list[str] | None = None, sim: bool = False) -> dict:
    """The message ``raw`` as a dict, or ``BadMessage``."""
    if isinstance(raw, str):
        size = len(raw.encode("utf-8", "replace"))
    else:
        size = len(raw)
    if size > MAX_MESSAGE:
        raise BadMessage(f"message too long ({size} bytes, at most {MAX_MESSAGE})")
    try:
        msg = json.loads(raw)
    except ValueError:
        raise BadMessage("not valid JSON") from None
    if not isinstance(msg, dict):
        raise BadMessage("a message must be a JSON object")
    t = msg.get("t")
    if not isinstance(t, str) or t not in FIELDS:
        raise BadMessage(f"unknown message type {str(t)[:20]!r}")
    allowed = FIELDS[t]
    for key, value in msg.items():
        if key == "t":
            continue
        if key not in allowed:
            raise BadMessage(f"{t}: unexpected field {str(key)[:20]!r}")
        types = allowed[key]
        ok = any(_is_int(value) if ty is int else isinstance(value, ty) for ty in types)
        if not ok:
            raise BadMessage(f"{t}: {key} must be {' or '.join(_name(ty) for ty in types)}")
    for key in REQUIRED.get(t, ()):
        if msg.get(key) is None:
            raise BadMessage(f"{t}: {key} is missing")
    if t == "act" and msg["index"] < 0:
        raise BadMessage("act: index must be 0 or more")
    if t == "new":
        p, s, g = msg.get("players"), msg.get("start"), msg.get("game")
        if p is not None and not 1 <= p <= 6:
            raise BadMessage("new: players must be 1..6")
        if s is not None and not 0 <= s <= 5:
            raise BadMessage("new: start must be 0..5")
        if g is not None and games is not None and g not in games:
            raise BadMessage(f"new: unknown game {g[:30]!r}; the board has {', '.join(games)}")
    if t == "inject":
        if not sim:
            raise BadMessage("inject: only a simulated board takes injected sensor events")
        stair, target = msg.get("stair"), msg.get("target")
        if (stair is None) == (target is None):
            raise BadMessage("inject: give either stair or target")
        if stair is not None and not 1 <= stair <= 4:
            raise BadMessage("inject: stair must be 1..4")
        if target is not None and not TARGET_RE.match(target):
            raise BadMessage("inject: target must be a sensor name (a-z, 0-9, _)")
    return dict(msg)


def _name(ty: type) -> str:
    return {int: "a whole number", str: "a string", type(None): "null"}.get(ty, ty.__name__)
