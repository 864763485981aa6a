"""The Pico's serial output (games/link.PollingWriter, Link with a flush): a host
that keeps the port open but stops reading must not freeze the game. Bytes go out
in small pieces only while the port has room; the rest waits in a bounded
backlog; a line that does not fit is dropped whole; nothing is reordered."""
import asyncio
import json
import random
from pathlib import Path

import pytest

from hauntbox_sim.fakes import install as sim_install
from test_protocol_support import bare_app
from hauntbox_sim.vm.mpvm import run_micropython, vm_available

sim_install.install()       # the firmware's path and time module (ticks_us) on a virtual clock
from games.link_core import BACKLOG, CAREFUL, OUT_CHUNK, Link, PollingWriter  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


class Port:
    """A USB serial port as the writer sees it: room for `room` more pieces."""

    def __init__(self, room=10**9):
        self.room = room
        self.got = bytearray()
        self.pieces = []

    def writable(self):
        return self.room > 0

    def out(self, b):
        assert self.room > 0, "wrote to a port that had no room"
        self.room -= 1
        self.pieces.append(len(b))
        self.got += bytes(b)


def test_small_pieces_only_while_there_is_room_and_the_rest_waits():
    port = Port(room=2)
    w = PollingWriter(port.out, port.writable)
    w.write(b"a" * 40 + b"\n")
    assert port.pieces == [OUT_CHUNK, OUT_CHUNK] and w.waiting == 41 - 2 * OUT_CHUNK
    assert w.flush() is False
    port.room = 100
    assert w.flush() is True and port.got == b"a" * 40 + b"\n"
    assert max(port.pieces) <= OUT_CHUNK


def test_a_line_that_does_not_fit_is_dropped_whole():
    port = Port(room=0)
    w = PollingWriter(port.out, port.writable, cap=100)
    w.write(b"1" * 59 + b"\n")
    w.write(b"2" * 59 + b"\n")          # 120 > 100: dropped, not cut
    w.write(b"3" * 39 + b"\n")
    assert w.dropped == 1
    port.room = 100
    assert w.flush()
    assert port.got == b"1" * 59 + b"\n" + b"3" * 39 + b"\n"


def test_long_runs_with_a_host_that_comes_and_goes_keep_every_byte_in_order():
    rng = random.Random(5)
    port = Port(room=0)
    w = PollingWriter(port.out, port.writable, cap=300)
    sent = bytearray()
    for i in range(3000):
        line = (b'{"n":%d,"pad":"' % i) + b"x" * rng.randrange(0, 90) + b'"}\n'
        before = w.dropped
        w.write(line)
        if w.dropped == before:
            sent += line
        port.room = rng.choice([0, 0, 1, 3, 50])
        w.flush()
    port.room = 10**9
    assert w.flush()
    assert port.got == sent and w.dropped > 0
    assert [json.loads(x)["n"] for x in port.got.splitlines()] == \
        sorted(json.loads(x)["n"] for x in port.got.splitlines())


class StallingPort:
    """MicroPython's USB serial: a 256-byte buffer; POLLOUT while at least one byte
    fits; a write that does not fit waits 500 ms (the clock runs on) and is lost."""

    def __init__(self, level):
        self.level = level
        self.reading = False
        self.got = bytearray()
        self.lost = 0

    def writable(self):
        return self.level < 256

    def out(self, b):
        from hauntbox_sim.core import runtime
        if self.level + len(b) > 256:
            runtime.clock().sleep_us(500_000)
            self.lost += 1
            return
        if not self.reading:
            self.level += len(b)
        self.got += bytes(b)


def test_after_one_wait_for_a_full_buffer_it_sends_byte_by_byte():
    clock = sim_install.install()               # a fresh virtual clock for this test
    """The host stopped reading with 7 bytes of room left: the first 16-byte piece
    waits 500 ms and is lost; then single bytes fill the room and the writer stops
    instead of waiting again and again (which froze the game for 18 s of a 20 s
    pause in the simulator before)."""
    port = StallingPort(level=249)
    w = PollingWriter(port.out, port.writable)
    t0 = clock.now_us
    for i in range(20):
        w.write(b'{"ev":"tick","data":[%d],"seq":%d}\n' % (i, i))
    assert w.stalls == 1 and port.lost == 1
    assert clock.now_us - t0 == 500_000                    # one wait, not twenty
    assert port.level == 256 and w.careful == CAREFUL
    port.level = 0                                         # the host reads again
    port.reading = True
    assert w.flush()
    assert w.careful == 0 or w.careful < CAREFUL           # back towards pieces
    lines = bytes(port.got).splitlines()
    assert all(json.loads(x) for x in lines[1:])            # only the cut line is bad


def test_link_keeps_the_game_running_while_the_host_does_not_read(monkeypatch):
    async def sleep_ms(ms):
        await asyncio.sleep(ms / 1000)
    monkeypatch.setattr(asyncio, "sleep_ms", sleep_ms, raising=False)   # MicroPython's

    App = bare_app()

    from protocol import Protocol
    port = Port(room=0)                   # the host has stopped reading
    w = PollingWriter(port.out, port.writable)
    link = Link(Protocol(App()), w.write, w.flush)

    async def scenario():
        pump = asyncio.create_task(link.pump())
        link.receive(b'{"cmd":"events","on":true,"id":1}\n')
        for i in range(200):            # a game's worth of events while nobody reads
            App.bus.publish(("tick", i))
            await asyncio.sleep(0.001)
        blocked = port.got == b""
        port.room = 10**9               # the host reads again
        await asyncio.sleep(0.1)
        pump.cancel()
        return blocked

    assert asyncio.run(scenario())
    lines = [json.loads(x) for x in port.got.splitlines()]
    assert lines[0]["id"] == 1 and lines[0]["ok"]
    seqs = [x["seq"] for x in lines[1:]]
    assert seqs == sorted(seqs) and seqs[-1] == 200      # the newest made it
    assert link.proto.dropped == 200 - len(seqs)          # the oldest were dropped, counted
    assert BACKLOG >= 1024


@pytest.mark.skipif(not vm_available(), reason="MicroPython VM not installed (make deps)")
def test_the_writer_runs_on_micropython_the_same_way():
    code = (ROOT / "sim" / "vm" / "scripts" / "link_writer.py").read_text()
    out = run_micropython(code, firmware=ROOT / "firmware").strip().splitlines()[-1]
    ok, same, dropped = out.split()
    assert ok == "True" and same == "True" and int(dropped) > 0
