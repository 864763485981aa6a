"""hauntbox web's server without a browser: the connection state it reports,
a port another program holds, the controls, and bad requests (issue 21)."""
from __future__ import annotations

import asyncio
import subprocess
import sys

from hauntbox.client import IN_USE, Client
from hauntbox.simboard import SimBoardProcess
from hauntbox.web.server import Page, WebBoard


def test_a_port_held_by_another_program_is_said_so():
    wb = WebBoard("/dev/pts/99", sim=True)
    wb._on_status("connected", "/dev/pts/99")
    assert wb.view()["status"] == "connected"
    wb._on_status("reconnecting", f"/dev/pts/99: {IN_USE}; away 3 s, trying again every 2 s")
    v = wb.view()
    assert v["status"] == "in use"
    assert IN_USE in v["detail"]
    wb._on_status("reconnecting", "/dev/pts/99: not back yet; away 5 s, trying again every 2 s")
    assert wb.view()["status"] == "reconnecting"
    # Each change is logged once, not every retry.
    assert sum("reconnecting" in line for line in wb.log) == 1


def test_web_refuses_a_port_another_program_has_locked(tmp_path):
    link = str(tmp_path / "board")
    with SimBoardProcess(["--fast", "--quiet", "--link", link]):
        with Client(link) as holder:
            holder.connect()
            r = subprocess.run([sys.executable, "-m", "hauntbox.cli", "web", "--port", link,
                                "--no-browser", "--http-port", "0"],
                               capture_output=True, text=True, timeout=30)
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [f"hauntbox web: {link} {IN_USE}"]


def test_options_that_do_not_apply_are_refused():
    r = subprocess.run([sys.executable, "-m", "hauntbox.cli", "web", "--port", "/dev/pts/5",
                        "--game", "superskill"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert "--game, --fast and --sim are for --port sim" in r.stderr
    r = subprocess.run([sys.executable, "-m", "hauntbox.cli", "web", "--port", "/dev/nonexistent9"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "no such port /dev/nonexistent9" in r.stderr


class FakeClient:
    port = "/dev/pts/7"
    hello_info = {"game": "roller-ghoster"}

    def __init__(self):
        self.sent = []

    def act(self, **kw):
        self.sent.append(("act", kw))
        return {"ok": True}


def test_only_the_controlling_page_plays_and_only_what_is_offered():
    wb = WebBoard("/dev/pts/7", sim=False)
    c = FakeClient()
    wb.core.client = c
    wb.core.game = "roller-ghoster"
    wb.core.prompt = {"kind": "move", "player": 1, "options": [["move", "wall"], ["move", "outer"]]}
    a, b = Page(None), Page(None)
    wb.controller = a.id

    def ask(page, raw):
        return asyncio.run(wb.handle(page, raw))

    assert ask(b, '{"t":"act","index":0,"player":1}')["text"].startswith("this page is read-only")
    assert ask(a, '{"t":"act","index":2,"player":1}') == {"ok": False, "text": "choose 1..2"}
    assert ask(a, '{"t":"act","index":0,"player":0}')["text"] == \
        "that prompt has been answered already"
    assert ask(a, '{"t":"inject","stair":1}')["text"] == \
        "inject: only a simulated board takes injected sensor events"
    assert c.sent == []
    r = ask(a, '{"t":"act","index":1,"player":1}')
    assert r == {"ok": True, "text": "chose move along the outer path"}
    assert c.sent == [("act", {"index": 1, "player": 1})]
    assert ask(b, '{"t":"take"}')["ok"]
    assert wb.controller == b.id
    assert ask(a, '{"t":"act","index":1,"player":1}')["text"].startswith("this page is read-only")
    assert len(c.sent) == 1
