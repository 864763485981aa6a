"""Issue 17, defect 16: what a board sends can no longer drive the terminal.

A board, or anything else on the port, sends window-title, screen-clear and
OSC 52 clipboard sequences, C1 controls and a bidi override inside events,
replies, hello fields and plain text lines. `hauntbox monitor` (text and
--json), `console --plain`, the full-screen console's views and the error
messages must show them escaped: no control character reaches the terminal.
"""
from __future__ import annotations

import json
import threading
import time

from rich.console import Console
from test_client import FakeBoard

from hauntbox.client import RequestError
from hauntbox.console import ConsoleCore, run_plain
from hauntbox.monitor import run_monitor
from hauntbox_fw.sanitize import clean, clean_lines, safe_json

TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J\x1b[H"
CLIP = "\x1b]52;c;cm0gLXJmIH4=\x07"          # OSC 52: put "rm -rf ~" on the clipboard
C1 = "\x9b2J\x9d0;t\x9c"                      # CSI and OSC without the ESC
BIDI = "\u202eevil\u202c"
HOSTILE = "a" + TITLE + CLEAR + CLIP + C1 + BIDI + "\x7f\r\x08\x00z"


def controls(text: str) -> list[str]:
    return [c for c in text if not (c.isprintable() or c == " ")]


def test_clean_escapes_every_control_and_leaves_text_alone():
    out = clean(HOSTILE)
    assert controls(out) == []
    for seen in ("\\x1b]0;pwned\\x07", "\\x1b]52;c;cm0gLXJmIH4=\\x07", "\\x9b2J", "\\u202e",
                 "\\x7f", "\\x0d", "\\x08", "\\x00"):
        assert seen in out
    for text in ("red rolls 3", "café ☕ 幽霊 🎲", "", "tab-free, plain: [1, 2] {\"a\": 1}"):
        assert clean(text) == text
    assert clean_lines("one\x1b[2J\ntwo") == "one\\x1b[2J\ntwo"
    assert controls(clean("\U000e0041\u2028\u00ad")) == []


def test_safe_json_is_the_same_json_value_in_printable_ascii():
    msg = {"ev": "x", "data": [HOSTILE, "é", "\U0001f3b2", {"k\x1b": 1}], "seq": 3}
    line = safe_json(msg)
    assert controls(line) == [] and line.isascii()
    assert json.loads(line) == msg


def _run_monitor(emit, json_mode=False, count=0, until_over=False):
    fake = FakeBoard()
    fake.build = "b1" + TITLE
    out: list[str] = []

    def emitter():
        while fake.port is None or len(fake.requests) < 2:
            time.sleep(0.01)
        emit(fake)

    threading.Thread(target=emitter, daemon=True).start()
    rc = run_monitor("fake", json_mode=json_mode, count=count, until_over=until_over,
                     out=out.append, open_serial=fake.open)
    assert rc == 0
    return out


def test_monitor_text_mode_shows_board_strings_escaped():
    def emit(fake):
        fake.emit("fault", "pinmap" + CLEAR, HOSTILE)
        fake.emit("roll", 0, CLIP)
        fake.emit("x" + TITLE, C1)
        fake.emit("over", None)

    out = _run_monitor(emit, until_over=True)
    assert out, out
    for line in out:
        assert controls(line) == [], repr(line)
    text = "\n".join(out)
    assert "build b1\\x1b]0;pwned\\x07" in text                 # the hello line
    assert "FAULT pinmap\\x1b[2J\\x1b[H: a\\x1b]0;pwned\\x07" in text
    assert "red rolls \\x1b]52;c;" in text


def test_monitor_json_mode_prints_valid_json_without_controls():
    msg = {"ev": "fault", "data": ["pinmap", "\x9b2J\u202e\x7f"], "seq": 1}

    def emit(fake):
        # valid JSON with raw C1, bidi and DEL characters inside a string
        fake.port.push(json.dumps(msg, ensure_ascii=False).encode() + b"\n")
        # not JSON at all: a raw ESC inside what looks like an event
        fake.port.push(b'{"ev":"x","data":["\x1b]52;c;cm0=\x07"],"seq":2}\n')
        fake.emit("over", None, seq=3)

    out = _run_monitor(emit, json_mode=True, until_over=True)
    for line in out:
        assert controls(line) == [], repr(line)
    assert [json.loads(x) for x in out] == [msg, {"ev": "over", "data": [None], "seq": 3}]


class _Client:
    port = "fake" + TITLE

    def new(self, **kw):
        raise RequestError("new", {"ok": False, "error": "no" + CLIP})

    def state(self):
        return {"ok": True, "game": "superskill", "seq": 9,
                "state": {"name": HOSTILE},
                "prompt": {"kind": "pick" + TITLE, "player": 0, "options": [[C1], ["ok"]]}}


def _core():
    core = ConsoleCore(_Client())
    core.set_hello({"firmware": "1" + CLEAR, "build": "b" + TITLE, "game": "superskill"})
    core.refresh(force=True)
    core.on_event({"ev": "fault", "data": ["x", HOSTILE], "seq": 10})
    core.on_event({"ev": "game" + BIDI, "data": [CLIP], "seq": 11})
    core.on_text("Traceback " + CLEAR)
    core.command("new 2")
    return core


def test_console_views_show_board_strings_escaped():
    core = _core()
    views = [core.header(), core.board_text(), core.message, *core.prompt_lines(), *core.log]
    for v in views:
        assert controls(v.replace("\n", "")) == [], repr(v)
    assert "board says: no\\x1b]52;c;" in core.message
    assert any("board: Traceback \\x1b[2J" in x for x in core.log)
    # the full-screen console draws the same views through rich
    con = Console(record=True, width=160, height=50, force_terminal=False)
    con.print(core.render(typed="1"))
    screen = con.export_text(styles=False)
    assert controls(screen.replace("\n", "")) == []
    assert "pick\\x1b]0;pwned\\x07" in screen


def test_console_plain_prints_nothing_raw():
    core = _core()
    out: list[str] = []
    run_plain(core, lines=["new 1\n", "quit\n"], out=out.append)
    assert out
    for line in out:
        assert controls(line.replace("\n", "")) == [], repr(line)


def test_request_errors_carry_the_board_words_escaped():
    e = RequestError("config", {"error": "bad" + TITLE})
    assert str(e) == "config: bad\\x1b]0;pwned\\x07"
    assert e.error == "bad" + TITLE        # the raw words stay available to code
