"""hauntbox web: what a page may send (the whitelist) and who else holds the port."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from hauntbox.web.holders import port_holders
from hauntbox.web.messages import MAX_MESSAGE, BadMessage, check

GAMES = ["beetlejuice", "haunted-house", "roller-ghoster", "superskill"]


@pytest.mark.parametrize("msg", [
    {"t": "act", "index": 0},
    {"t": "act", "index": 2, "player": 1},
    {"t": "new"},
    {"t": "new", "players": 3, "start": 1, "game": "haunted-house"},
    {"t": "state"},
    {"t": "take"},
])
def test_the_console_requests_pass(msg):
    assert check(json.dumps(msg), games=GAMES) == msg


def test_inject_only_on_a_simulated_board():
    assert check('{"t":"inject","stair":2}', sim=True)["stair"] == 2
    assert check('{"t":"inject","target":"medusa"}', sim=True)["target"] == "medusa"
    with pytest.raises(BadMessage, match="only a simulated board"):
        check('{"t":"inject","stair":2}', sim=False)


@pytest.mark.parametrize("raw, why", [
    ("not json", "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"t":"reboot"}', "unknown message type 'reboot'"),
    ('{"cmd":"act","index":0}', "unknown message type"),
    ('{"t":"act"}', "act: index is missing"),
    ('{"t":"act","index":"0"}', "index must be a whole number"),
    ('{"t":"act","index":true}', "index must be a whole number"),
    ('{"t":"act","index":-1}', "index must be 0 or more"),
    ('{"t":"act","index":0,"cmd":"config"}', "unexpected field 'cmd'"),
    ('{"t":"new","players":99}', "players must be 1..6"),
    ('{"t":"new","game":"chess"}', "unknown game 'chess'"),
    ('{"t":"new","options":{"mode":"x"}}', "unexpected field 'options'"),
    ('{"t":"inject","stair":9}', "stair must be 1..4"),
    ('{"t":"inject"}', "give either stair or target"),
    ('{"t":"inject","stair":1,"target":"bob"}', "give either stair or target"),
    ('{"t":"inject","target":"../etc"}', "target must be a sensor name"),
    ('{"t":"state","x":1}', "unexpected field 'x'"),
])
def test_anything_else_is_refused_in_one_line(raw, why):
    with pytest.raises(BadMessage) as e:
        check(raw, games=GAMES, sim=True)
    assert why in str(e.value)
    assert "\n" not in str(e.value)


def test_a_long_message_is_refused_before_parsing():
    raw = json.dumps({"t": "state", "pad": "x" * MAX_MESSAGE})
    with pytest.raises(BadMessage, match="too long"):
        check(raw)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs Linux /proc")
def test_another_program_on_the_port_is_named_but_the_board_is_not():
    master, slave = os.openpty()      # this process: the "board" (it holds the master)
    path = os.ttyname(slave)
    try:
        assert port_holders(path) == []
        other = subprocess.Popen([sys.executable, "-c", "import sys, time; f = open(sys.argv[1]); "
                                  "print('open', flush=True); time.sleep(30)", path],
                                 stdout=subprocess.PIPE, text=True)
        try:
            assert other.stdout.readline().strip() == "open"
            found = port_holders(path)
            assert [pid for pid, _ in found] == [other.pid]
            assert found[0][1].startswith("python")
            assert port_holders(path, ignore=[other.pid]) == []
        finally:
            other.kill()
            other.wait()
        deadline = time.monotonic() + 5
        while port_holders(path) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert port_holders(path) == []
        # A process holding only the master side (the simulated board) is not "another program".
        board = subprocess.Popen([sys.executable, "-c", "import os, sys, time; m, s = os.openpty(); "
                                  "print(os.ttyname(s), flush=True); time.sleep(30)"],
                                 stdout=subprocess.PIPE, text=True)
        try:
            their = board.stdout.readline().strip()
            assert port_holders(their) == []
        finally:
            board.kill()
            board.wait()
    finally:
        os.close(master)
        os.close(slave)
