"""hauntbox.client: timeouts, id matching, events, reconnect with backoff, resync.

A fake serial port stands in for the board here (it can be unplugged and
plugged back); test_pty_e2e.py does the same against a real pseudo-terminal.
"""
from __future__ import annotations

import json
import os
import threading
import time

import pytest
import serial

from hauntbox.client import (
    Client,
    ClientError,
    Disconnected,
    RequestError,
    RequestTimeout,
)


class FakeBoard:
    """Answers requests like the firmware; can go silent, unplug and come back."""

    def __init__(self) -> None:
        self.plugged = True
        self.answer = True
        self.build = "b1"
        self.seq = 0
        self.opened = 0
        self.port: FakeSerial | None = None
        self.requests: list[dict] = []
        self.before_reply: list[bytes] = []   # lines sent before the next reply

    def open(self, port: str) -> FakeSerial:
        if not self.plugged:
            raise serial.SerialException(f"could not open port {port}: No such file")
        self.opened += 1
        self.port = FakeSerial(self)
        return self.port

    def unplug(self) -> None:
        self.plugged = False
        if self.port is not None:
            self.port.dead = True

    def emit(self, ev: str, *data: object, seq: int | None = None) -> None:
        self.seq = self.seq + 1 if seq is None else seq
        assert self.port is not None
        self.port.push(json.dumps({"ev": ev, "data": list(data), "seq": self.seq}).encode() + b"\n")

    def handle(self, msg: dict) -> bytes | None:
        self.requests.append(msg)
        if not self.answer:
            return None
        cmd = msg.get("cmd")
        rid = msg.get("id")
        if cmd == "hello":
            body = {"ok": True, "id": rid, "proto": 1, "build": self.build, "seq": self.seq,
                    "game": "roller-ghoster"}
        elif cmd == "state":
            body = {"ok": True, "id": rid, "game": "roller-ghoster", "seq": self.seq,
                    "state": {"turn": 0}, "prompt": None}
        elif cmd == "bad":
            body = {"ok": False, "id": rid, "error": "no such thing"}
        else:
            body = {"ok": True, "id": rid, "echo": msg}
        return json.dumps(body).encode() + b"\n"


class FakeSerial:
    def __init__(self, board: FakeBoard) -> None:
        self.board = board
        self.dead = False
        self.closed = False
        self.buf = bytearray()
        self.cond = threading.Condition()
        self.written = bytearray()

    def _check(self) -> None:
        if self.dead:
            raise serial.SerialException("device reports readiness to read but returned no data")
        if self.closed:
            raise serial.SerialException("port closed")

    def push(self, data: bytes) -> None:
        with self.cond:
            self.buf += data
            self.cond.notify_all()

    @property
    def in_waiting(self) -> int:
        self._check()
        return len(self.buf)

    def read(self, n: int = 1) -> bytes:
        with self.cond:
            if not self.buf:
                self.cond.wait(0.02)
            self._check()
            out = bytes(self.buf[:n])
            del self.buf[:n]
            return out

    def write(self, data: bytes) -> int:
        self._check()
        self.written += data
        for line in bytes(data).splitlines():
            msg = json.loads(line)
            for pre in self.board.before_reply:
                self.push(pre)
            self.board.before_reply = []
            reply = self.board.handle(msg)
            if reply is not None:
                self.push(reply)
        return len(data)

    def close(self) -> None:
        self.closed = True


def wait_until(cond, timeout=3.0):
    t = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > t:
            raise AssertionError("condition not met")
        time.sleep(0.01)


@pytest.fixture
def fake():
    return FakeBoard()


def make(fake, **kw):
    kw.setdefault("timeout", 1.0)
    kw.setdefault("backoff", (0.01, 0.05))
    return Client("fake0", open_serial=fake.open, **kw)


def test_hello_and_requests_are_matched_by_id(fake):
    events, texts = [], []
    c = make(fake, on_event=events.append, on_text=texts.append)
    h = c.connect()
    assert h["build"] == "b1" and h["id"] == 1
    # an event, a stray reply and a REPL line arrive before the real reply
    fake.before_reply = [b'{"ev":"roll","data":[0,"2a"],"seq":1}\n',
                         b'{"ok":true,"id":999}\n', b"MicroPython v1.24 on rp2\n"]
    r = c.request("act", index=2)
    assert r["echo"] == {"cmd": "act", "id": 2, "index": 2}
    assert events == [{"ev": "roll", "data": [0, "2a"], "seq": 1}]
    assert texts == ['{"ok":true,"id":999}', "MicroPython v1.24 on rp2"]
    sent = [json.loads(x) for x in fake.port.written.splitlines()]
    assert [m["id"] for m in sent] == [1, 2] and all(len(json.dumps(m)) < 1024 for m in sent)
    c.close()


def test_none_arguments_are_left_out_and_errors_raise(fake):
    c = make(fake)
    c.connect()
    r = c.act(index=1)
    assert r["echo"] == {"cmd": "act", "id": 2, "index": 1}
    r = c.act(action=("move", "wall"), player=1)
    assert r["echo"]["action"] == ["move", "wall"] and r["echo"]["player"] == 1
    with pytest.raises(RequestError) as e:
        c.request("bad")
    assert e.value.error == "no such thing" and isinstance(e.value, ClientError)
    assert c.request("bad", check=False)["ok"] is False
    with pytest.raises(ValueError):
        c.act()
    c.close()


def test_request_timeout(fake):
    c = make(fake, timeout=0.2)
    c.connect()
    fake.answer = False
    t0 = time.monotonic()
    with pytest.raises(RequestTimeout):
        c.state()
    assert 0.15 < time.monotonic() - t0 < 1.0
    assert c._pending == {}
    fake.answer = True
    assert c.state()["ok"]  # the link itself is fine
    c.close()


def test_event_gaps_are_counted(fake):
    events = []
    c = make(fake, on_event=events.append)
    c.connect()
    fake.emit("turn", 0, seq=1)
    fake.emit("turn", 1, seq=2)
    fake.emit("turn", 0, seq=6)    # 3 events dropped by the board
    wait_until(lambda: len(events) == 3)
    assert c.missed == 3 and c.last_seq == 6
    c.close()


def test_partial_lines_are_joined(fake):
    events = []
    c = make(fake, on_event=events.append)
    c.connect()
    fake.port.push(b'{"ev":"tu')
    time.sleep(0.05)
    fake.port.push(b'rn","data":[1],"seq":1}\r\n')
    wait_until(lambda: events)
    assert events == [{"ev": "turn", "data": [1], "seq": 1}]
    c.close()


def test_reconnect_after_unplug_and_resync(fake):
    statuses, resyncs = [], []
    c = make(fake, on_status=lambda s, d: statuses.append(s),
             on_resync=lambda h, st: resyncs.append((h, st)), timeout=2.0)
    c.connect()
    fake.answer = False
    errors = []

    def pending_request():
        try:
            c.state()
        except ClientError as e:
            errors.append(e)

    t = threading.Thread(target=pending_request)
    t.start()
    time.sleep(0.1)
    t0 = time.monotonic()
    fake.unplug()
    t.join(2)
    # the outstanding request fails at once, not after its timeout
    assert isinstance(errors[0], Disconnected) and time.monotonic() - t0 < 1.0
    wait_until(lambda: "reconnecting" in statuses)
    time.sleep(0.1)
    assert fake.opened == 1  # still unplugged: retries failed
    fake.build = "b2"
    fake.answer = True
    fake.plugged = True
    wait_until(lambda: resyncs)
    h, st = resyncs[0]
    assert h["build"] == "b2" and st["game"] == "roller-ghoster"
    assert c.hello_info["build"] == "b2" and c.reconnects == 1
    # one "reconnecting" per attempt (each says how long the board has been away)
    steps = [x for i, x in enumerate(statuses) if i == 0 or x != statuses[i - 1]]
    assert steps[:4] == ["connected", "lost", "reconnecting", "connected"]
    assert [r["cmd"] for r in fake.requests[-2:]] == ["hello", "state"]
    assert c.request("act", index=0)["ok"]
    c.close()


def test_reconnect_backs_off_and_gives_up(fake):
    statuses = []
    sleeps: list[float] = []
    c = make(fake, on_status=lambda s, d: statuses.append(s), backoff=(0.01, 0.08),
             reconnect_for=0.5, timeout=0.3)
    c._sleep = lambda s: (sleeps.append(s), time.sleep(s))
    c.connect()
    fake.unplug()
    wait_until(lambda: "gone" in statuses, timeout=3)
    assert sleeps[:5] == [0.01, 0.02, 0.04, 0.08, 0.08]
    assert max(sleeps) == 0.08
    t0 = time.monotonic()
    with pytest.raises(Disconnected):
        c.hello()
    assert time.monotonic() - t0 < 0.1  # no waiting once the board is gone
    c.close()


def test_no_reconnect_when_disabled(fake):
    statuses = []
    c = make(fake, reconnect=False, on_status=lambda s, d: statuses.append(s))
    c.connect()
    fake.unplug()
    wait_until(lambda: "gone" in statuses)
    assert fake.opened == 1


def test_cannot_open_raises_disconnected(fake):
    fake.plugged = False
    with pytest.raises(Disconnected, match="cannot open fake0"):
        make(fake).connect()
    with pytest.raises(Disconnected):
        Client("x").hello()  # never connected


def test_selftest_waits_for_its_result_event(fake):
    c = make(fake)
    c.connect()
    orig = fake.handle

    def handle(msg):
        out = orig(msg)
        if msg["cmd"] == "selftest":
            def later():
                time.sleep(0.05)
                fake.emit("selftest", {"id": msg["id"] + 100, "result": "other"})
                fake.emit("selftest", {"id": msg["id"], "result": "ok", "problems": []})
            threading.Thread(target=later).start()
        return out
    fake.handle = handle
    r = c.selftest(wait=2.0)
    assert r["result"] == "ok"
    c.close()


def test_timeout_on_a_real_pty_nobody_answers():
    master, slave = os.openpty()
    try:
        path = os.ttyname(slave)
        c = Client(path, timeout=0.3)
        t0 = time.monotonic()
        with pytest.raises(RequestTimeout):
            c.connect()
        assert time.monotonic() - t0 < 1.5
        # what the client wrote arrived on the board side, one JSON line
        data = os.read(master, 4096)
        assert json.loads(data.splitlines()[0]) == {"cmd": "hello", "id": 1}
        c.close()
    finally:
        os.close(master)
        os.close(slave)
