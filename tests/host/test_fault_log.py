"""The board's fault log (issue 17, defect 3): faults, boot-time ones included,
are kept in a small ring across resets and reported to a host (hello, state, a
`faults` request, the console and the monitor); it is written to flash on the
reset paths and with a completed turn's save, not on every fault."""
from __future__ import annotations

import json
import os
import threading
import time

import pytest
from test_client import FakeBoard
from test_client_console import LoopbackClient
from test_protocol_support import ProtoBoard

from hauntbox.client import health_summary
from hauntbox.console import ConsoleCore
from hauntbox.monitor import run_monitor
from hauntbox_sim.boards.roller import RollerSim


def ask(app, msg):
    from protocol import Protocol
    p = Protocol(app, subscribe=False)
    (line,) = p.handle_line(json.dumps(msg).encode())
    return json.loads(line)


def test_boot_time_faults_reach_a_host_that_connects_later(tmp_path):
    # Before: "fault config" / "fault state_bad" were published at boot, before
    # any host could listen, and hello/state/config showed nothing.
    (tmp_path / "config.json").write_text('{"settle_ms": 5}')
    (tmp_path / "roller-ghoster.json").write_text('{"game": ')
    s = RollerSim(players=2, seed=3, state_dir=str(tmp_path))
    s.app.start_game(2, 0, True)
    h = ask(s.app, {"cmd": "hello"})
    assert h["fault_count"] == 2 and h["boot"] == 1 and h["safe_mode"] is None
    assert h["last_fault"]["kind"] == "state_bad"
    st = ask(s.app, {"cmd": "state"})
    assert st["fault_count"] == 2 and st["last_fault"] == h["last_fault"]
    f = ask(s.app, {"cmd": "faults"})
    assert [x["kind"] for x in f["faults"]] == ["config", "state_bad"]
    assert "settle_ms" in f["faults"][0]["detail"] and f["faults"][0]["boot"] == 1
    assert health_summary(h).startswith("2 fault(s) logged, last state_bad")


def test_the_log_survives_resets_with_the_boot_number(tmp_path):
    (tmp_path / "config.json").write_text('{"settle_ms": 5}')
    s = RollerSim(players=2, seed=3, state_dir=str(tmp_path))
    s.app.bus.publish(("fault", "leds", "LED strip write failed"))
    s.app.write_health()            # e.g. the crash handler before its reset
    s2 = RollerSim(players=2, seed=3, state_dir=str(tmp_path))
    f = ask(s2.app, {"cmd": "faults"})
    assert f["boot"] == 2
    got = [(x["kind"], x["boot"], x["n"]) for x in f["faults"]]
    # The same config fault again at boot 2: one entry, counted twice.
    assert got == [("leds", 1, 1), ("config", 2, 2)]
    assert f["total"] == 3


def test_the_ring_is_bounded_and_repeats_are_counted(tmp_path):
    s = RollerSim(players=2, seed=3, state_dir=str(tmp_path))
    app = s.app
    for i in range(20):
        app.bus.publish(("fault", "beam_stuck", i))
    for _ in range(30):
        app.bus.publish(("fault", "leds", "x" * 500))
    # In RAM: the last 8 of this run, the same fault again counted in one entry.
    assert len(app.fault_new) == 8
    assert app.fault_new[-1][0] == "leds" and app.fault_new[-1][4] == 30
    app.write_health()
    f = ask(app, {"cmd": "faults"})
    assert len(f["faults"]) == f["kept"] == 8 and f["total"] == 50
    assert f["faults"][-1]["detail"] == "x" * 60 and f["faults"][-1]["n"] == 30
    assert len(json.dumps(json.loads((tmp_path / "health.json").read_text()))) < 1200


def test_faults_are_not_written_one_by_one_but_with_a_completed_turn(tmp_path):
    s = RollerSim(players=2, seed=3, state_dir=str(tmp_path))
    app = s.app
    writes = []
    real = app.store.save

    def save(name, data, *rest):
        writes.append(name)
        real(name, data, *rest)
    app.store.save = save
    app.start_game(2, 0, False)
    for i in range(40):
        app.bus.publish(("fault", "beam_stuck" if i % 2 else "beam_ok", 2))
    assert "health" not in writes
    # The first completed turn's save takes them along: one write.
    c = app.controller
    c.turns += 1
    c.save()
    assert writes.count("health") == 1
    c.save()                        # nothing new: no second write
    assert writes.count("health") == 1
    # A task died: the watchdog resets the board next, so it is written now.
    app.bus.publish(("fault", "unhealthy", "a task stopped"))
    assert writes.count("health") == 2
    kinds = [e[0] for e in json.loads((tmp_path / "health.json").read_text())["faults"]]
    assert kinds == ["beam_ok", "beam_stuck", "unhealthy"]


def test_a_damaged_log_is_set_aside_at_boot_and_the_request_changes_nothing(tmp_path):
    s = RollerSim(players=2, seed=3, state_dir=str(tmp_path))
    path = tmp_path / "health.json"
    path.write_text(path.read_text().replace('"boot": 1', '"boot": 7'))   # checksum fails
    before = {n: (tmp_path / n).read_bytes() for n in os.listdir(tmp_path)}
    f = ask(s.app, {"cmd": "faults"})
    assert f["faults"] == [] and {n: (tmp_path / n).read_bytes()
                                  for n in os.listdir(tmp_path)} == before
    s2 = RollerSim(players=2, seed=3, state_dir=str(tmp_path))
    assert (tmp_path / "health.json.bad").exists()
    assert s2.app.boot == 1
    assert [x["kind"] for x in ask(s2.app, {"cmd": "faults"})["faults"]] == ["health_bad"]


@pytest.fixture
def console():
    b = ProtoBoard(players=2, seed=9)
    b.start()
    core = ConsoleCore(LoopbackClient(b))
    yield b, core
    b.close()


def test_the_console_lists_the_faults_and_its_header_shows_them(console):
    b, core = console
    b.app.bus.publish(("fault", "jam", "no notch after retry"))
    core.set_hello(core.client.hello())
    core.refresh(force=True)
    assert "1 fault(s) logged, last jam: no notch after retry" in core.header()
    msg = core.command("faults")
    assert msg.startswith("boot 1, 0 reset(s) in a row, 1 fault(s) logged")
    assert any(line.startswith("  jam: no notch after retry  [boot 1,") for line in core.log)


def test_the_monitor_says_when_the_board_is_in_safe_mode():
    class SafeBoard(FakeBoard):
        def handle(self, msg):
            if msg.get("cmd") == "hello":
                self.requests.append(msg)
                return json.dumps({"ok": True, "id": msg.get("id"), "proto": 1, "build": "b1",
                                   "seq": 0, "game": "roller-ghoster", "crashes": 3,
                                   "safe_mode": "3 resets in a row", "fault_count": 4,
                                   "last_fault": {"kind": "safe_mode", "detail": "3 resets",
                                                  "boot": 5, "ms": 10, "n": 1}}).encode() + b"\n"
            return super().handle(msg)
    fake = SafeBoard()
    out: list[str] = []

    def emitter():
        while fake.port is None or len(fake.requests) < 2:
            time.sleep(0.01)
        fake.emit("turn", 1)
    threading.Thread(target=emitter, daemon=True).start()
    assert run_monitor("fake", count=1, out=out.append, open_serial=fake.open) == 0
    assert out[1].startswith("-- SAFE MODE: 3 resets in a row; 4 fault(s) logged, last safe_mode")
