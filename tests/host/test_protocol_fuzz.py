"""Protocol fuzzing (hypothesis) against Protocol.feed / handle_line on a simulated board.

Random bytes, truncated and nested JSON, huge lines, wrong argument types,
unknown commands and floods: every non-empty line gets exactly one error reply
(or, for the read-only requests mixed in, an ok reply), nothing raises, and
the game state, the settings and the saved files stay byte-for-byte the same.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_protocol_support import ProtoBoard

from protocol import MAX_LINE
from protocol_commands import COMMANDS

FUZZ = settings(max_examples=400, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.data_too_large])
READ_ONLY = {"hello", "state", "legal"}

# Valid requests of every kind, including ones that would change things if
# they arrived whole (used truncated only).
VALID = [
    {"cmd": "hello", "id": 1}, {"cmd": "state", "id": 2}, {"cmd": "legal"},
    {"cmd": "act", "index": 0, "id": 3}, {"cmd": "act", "action": ["roll"]},
    {"cmd": "new", "players": 3, "start": 1}, {"cmd": "config", "op": "set", "key": "settle_ms",
                                                 "value": 900},
    {"cmd": "selftest"}, {"cmd": "calibrate", "stop_ns": 1490000},
    {"cmd": "calibrate", "jog": "forward", "ms": 100}, {"cmd": "events", "on": False},
]

# Argument values of the wrong type for each argument of each command.
ARGS = {
    "act": {"index": "int", "action": "list", "player": "int"},
    "new": {"game": "str", "players": "int", "start": "int", "options": "dict"},
    "config": {"op": "str", "key": "str"},
    "selftest": {"servo": "bool", "leds": "bool"},
    "calibrate": {"stop_ns": "int", "forward_ns": "int", "jog": "str", "ns": "int", "ms": "int"},
    "events": {"on": "bool"},
}
SCALARS = {
    "int": st.one_of(st.text(max_size=5), st.floats(allow_nan=False), st.booleans(),
                     st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2),
                                                                          st.integers(), max_size=2)),
    "str": st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans(),
                     st.lists(st.text(max_size=3), max_size=2)),
    "bool": st.one_of(st.integers(), st.text(max_size=4), st.floats(allow_nan=False),
                      st.lists(st.booleans(), max_size=2)),
    "list": st.one_of(st.integers(), st.text(max_size=4), st.booleans(),
                      st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)),
    "dict": st.one_of(st.integers(), st.text(max_size=4), st.booleans(),
                      st.lists(st.integers(), max_size=2)),
}
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=4),
    max_leaves=20)


@pytest.fixture(scope="module")
def board():
    b = ProtoBoard(players=3, seed=4)
    b.start()
    # a non-default setting and a saved game exist, so "unchanged" means something
    assert b.ask({"cmd": "config", "op": "set", "key": "quiet_ms", "value": 700})["ok"]
    b.drain()
    yield b
    b.close()


def check_replies(board, before, replies, lines, allow_ok=False):
    assert len(replies) <= lines
    for raw in replies:
        assert raw.endswith(b"\n") and raw.count(b"\n") == 1
        r = json.loads(raw)
        assert isinstance(r, dict) and set(r) >= {"ok", "id"}
        if r["ok"] is not False:
            # only a read-only request can succeed (hello, state, legal, config get,
            # events without "on"; e.g. random bytes spelling {"cmd":"config","":""}:
            # unknown fields are ignored)
            assert allow_ok and ("proto" in r or "state" in r or "options" in r
                                 or "values" in r or "value" in r or "events" in r), r
        else:
            assert isinstance(r["error"], str) and r["error"], r
    assert board.snapshot() == before
    board.drain()


@FUZZ
@given(data=st.binary(max_size=3000), cuts=st.lists(st.integers(0, 3000), max_size=6))
def test_random_bytes(board, data, cuts):
    before = board.snapshot()
    pos = sorted(set(c for c in cuts if c < len(data)))
    chunks = [data[a:b] for a, b in zip([0] + pos, pos + [len(data)])]
    replies = []
    for ch in chunks:
        replies += board.feed(ch)
    replies += board.feed(b"\n")  # close the last line
    # (hypothesis also tries byte strings it finds in this file, hello included)
    check_replies(board, before, replies, data.count(b"\n") + 1, allow_ok=True)


@FUZZ
@given(req=st.sampled_from(VALID), cut=st.integers(1, 200), tail=st.binary(max_size=3))
def test_truncated_json(board, req, cut, tail):
    line = json.dumps(req).encode()
    cut = min(cut, len(line) - 1)
    part = line[:cut] + tail.replace(b"\n", b"").replace(b"}", b"")
    before = board.snapshot()
    replies = board.proto.handle_line(part)
    assert len(replies) == (1 if part.strip() else 0)
    check_replies(board, before, replies, 1)


@FUZZ
@given(depth=st.integers(1, 600), kind=st.sampled_from(["[", "{\"a\":"]),
       closed=st.booleans(), where=st.sampled_from(["top", "cmd", "action", "id", "options"]))
def test_nested_json(board, depth, kind, closed, where):
    close = ("]" if kind == "[" else "}") * depth if closed else ""
    nested = kind * depth + "1" + close
    if where == "top":
        text = nested
    elif where == "cmd":
        text = '{"cmd":%s}' % nested
    elif where == "action":
        text = '{"cmd":"act","action":[%s]}' % nested
    elif where == "id":
        text = '{"cmd":"hello","id":%s}' % nested
    else:
        text = '{"cmd":"new","players":3,"options":{"x":%s},"start":"0"}' % nested
    before = board.snapshot()
    replies = board.feed(text.encode() + b"\n")
    assert len(replies) == 1
    check_replies(board, before, replies, 1)


@FUZZ
@given(n=st.integers(MAX_LINE + 1, 6000), fill=st.binary(min_size=1, max_size=16),
       chunk=st.integers(1, 700), req=st.sampled_from(VALID))
def test_huge_lines(board, n, fill, chunk, req):
    unit = fill.replace(b"\n", b"") or b"x"
    body = unit * (n // len(unit) + 1)
    line = json.dumps(req).encode()[:-1] + b',"pad":"' + body[:n] + b'"}'
    assert len(line) > MAX_LINE
    before = board.snapshot()
    data = line + b"\n" + b'{"cmd":"hello","id":"after"}\n'
    replies = []
    for i in range(0, len(data), chunk):
        replies += board.feed(data[i:i + chunk])
    assert len(replies) == 2
    first, second = (json.loads(r) for r in replies)
    assert first == {"ok": False, "id": None, "error": "line too long (max 1024 bytes)"}
    assert second["ok"] is True and second["id"] == "after"
    assert board.snapshot() == before
    board.drain()


@FUZZ
@given(data=st.data())
def test_wrong_argument_types(board, data):
    cmd = data.draw(st.sampled_from(sorted(ARGS)))
    key = data.draw(st.sampled_from(sorted(ARGS[cmd])))
    value = data.draw(SCALARS[ARGS[cmd][key]])
    msg = {"cmd": cmd, key: value, "id": data.draw(st.integers(0, 10**6))}
    # extra well-typed arguments around the bad one
    if cmd == "config" and key != "op":
        msg["op"] = data.draw(st.sampled_from(["get", "set"]))
        msg.setdefault("value", 1)
    before = board.snapshot()
    replies = board.proto.handle_line(json.dumps(msg).encode())
    assert len(replies) == 1
    r = json.loads(replies[0])
    assert r["ok"] is False and r["id"] == msg["id"] and key in r["error"], (msg, r)
    check_replies(board, before, replies, 1)


@FUZZ
@given(msg=st.dictionaries(st.sampled_from(["cmd", "id", "index", "action", "players", "key",
                                            "value", "op", "on", "jog", "ns", "v", "start"]),
                           json_values, max_size=6))
def test_random_objects(board, msg):
    # Any object whose cmd is not a read-only one, with random (mostly bad)
    # arguments. To keep "nothing changes" meaningful, only requests that
    # cannot be valid are sent.
    cmd = msg.get("cmd")
    read_only = isinstance(cmd, str) and cmd in READ_ONLY
    if isinstance(cmd, str) and cmd in COMMANDS and not read_only:
        msg["v"] = 99
    before = board.snapshot()
    replies = board.proto.handle_line(json.dumps(msg).encode())
    assert len(replies) == 1
    r = json.loads(replies[0])
    if not read_only:
        assert r["ok"] is False
    check_replies(board, before, replies, 1, allow_ok=True)


@FUZZ
@given(name=st.text(max_size=40).filter(lambda s: s not in COMMANDS), rid=st.integers())
def test_unknown_commands(board, name, rid):
    before = board.snapshot()
    r = board.send({"cmd": name, "id": rid})
    assert r[0]["ok"] is False and r[0]["error"].startswith("unknown command") and r[0]["id"] == rid
    assert board.snapshot() == before


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(n=st.integers(1, 400), line=st.sampled_from([
    b'{"cmd":"act","index":99}', b'{"cmd":"nope"}', b"garbage", b'{"cmd":"hello"}',
    b'{"cmd":"new","players":9}', b'{"cmd":"config","op":"set","key":"x","value":1}']))
def test_floods(board, n, line):
    before = board.snapshot()
    replies = board.feed((line + b"\n") * n)
    assert len(replies) == n
    check_replies(board, before, replies, n, allow_ok=line == b'{"cmd":"hello"}')
    if line != b'{"cmd":"hello"}':
        assert all(json.loads(r)["ok"] is False for r in replies)


@FUZZ
@given(req=st.sampled_from([
    {"cmd": "act", "index": 5}, {"cmd": "act", "action": ["move", "wall"]},
    {"cmd": "act", "action": ["roll"], "player": 2}, {"cmd": "new", "players": 0},
    {"cmd": "new", "game": "roller-ghoster", "players": 3, "start": 3},
    {"cmd": "config", "op": "set", "key": "brightness", "value": 2.0},
    {"cmd": "config", "op": "set", "key": "servo.min_ns", "value": 2100000},
    {"cmd": "calibrate", "stop_ns": 10}, {"cmd": "calibrate", "jog": "pulse", "ns": 1},
    {"cmd": "calibrate", "jog": "forward", "ms": 0}]), extra=st.dictionaries(
        st.sampled_from(["zzz", "comment", "x"]), json_values, max_size=2))
def test_well_typed_but_invalid_values(board, req, extra):
    before = board.snapshot()
    msg = dict(extra, **req)
    replies = board.proto.handle_line(json.dumps(msg).encode())
    check_replies(board, before, replies, 1)
    assert len(replies) == 1
