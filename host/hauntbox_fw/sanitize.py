"""Text from a board (or a file) made safe to print on a terminal.

A board, or anything else on its serial port, can send any bytes. Printed as
they are, control characters are instructions to the terminal: ESC sequences
set the window title, clear the screen, move the cursor, or (OSC 52) write to
the clipboard; C1 controls (U+0080-U+009F) do the same on many terminals
without the ESC; bidirectional overrides reorder what is shown. Every host tool
that shows what came from outside (``hauntbox monitor``, ``hauntbox console``
in both modes, ``hauntbox flash`` and ``hauntbox pins`` messages) passes it
through ``clean()``, which shows each such character escaped (``\\x1b``,
``\\u202e``), so the text stays readable and the terminal does nothing.

The tools' own layout (the newlines between lines they print, rich's styles)
is added after cleaning and is not affected.
"""

from __future__ import annotations

import json
from typing import Any


def _escape(ch: str, json_style: bool) -> str:
    o = ord(ch)
    if json_style:
        if o > 0xFFFF:  # a JSON string spells it as a surrogate pair
            o -= 0x10000
            return "\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF))
        return "\\u%04x" % o
    if o < 0x100:
        return "\\x%02x" % o
    if o <= 0xFFFF:
        return "\\u%04x" % o
    return "\\U%08x" % o


def clean(text: Any, json_style: bool = False) -> str:
    """``text`` with every non-printable character shown escaped.

    Non-printable: C0 and C1 controls, DEL, format characters (bidi
    overrides, zero-width characters), line and paragraph separators,
    unassigned and private-use code points: everything ``str.isprintable()``
    refuses, except the plain space. Newlines count as controls too: callers
    clean one line at a time (``clean_lines`` for a block of text).
    ``json_style``: escapes as ``\\uXXXX``, so a JSON text stays valid JSON
    with the same meaning (control characters can only appear inside its
    strings once it has been through ``json.dumps``).
    """
    s = text if isinstance(text, str) else str(text)
    if s.isprintable():
        return s
    return "".join(ch if ch.isprintable() or ch == " " else _escape(ch, json_style) for ch in s)


def clean_lines(text: Any) -> str:
    """A block of text cleaned line by line: its own newlines are kept."""
    s = text if isinstance(text, str) else str(text)
    return "\n".join(clean(line) for line in s.split("\n"))


def safe_json(obj: Any) -> str:
    """One JSON line for ``obj``, safe on a terminal and still valid JSON."""
    return clean(json.dumps(obj, separators=(",", ":"), ensure_ascii=True), json_style=True)
