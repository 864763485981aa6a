"""Issue 17, defect 15: pin maps that used to break the firmware at boot.

One set of broken maps (each a real map with one thing wrong) goes through
the three users of the shared rules (firmware/pinmap_check.py): `hauntbox
pins` (host/hauntbox_fw/pinmap.py), `hauntbox flash` (hauntbox_fw.build refuses it)
and the firmware at boot, on the simulated board: the game stays off with one
fault line naming the key, the board keeps answering its host and keeps
saying why, and no reset is asked for.
"""
from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hauntbox_fw import build as hb
from hauntbox_fw import pinmap as pm

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
GAME_OF = {"roller-ghoster": "roller-ghoster", "haunted-house": "haunted-house",
           "companion": "beetlejuice"}


def _deep(n):
    d: list = []
    for _ in range(n):
        d = [d]
    return d


def _set(path, value):
    def f(m):
        *parents, last = path
        for k in parents:
            m = m[k]
        m[last] = value
    return f


def _drop(path):
    def f(m):
        *parents, last = path
        for k in parents:
            m = m[k]
        del m[last]
    return f


# (id, board file, change, the key the first problem must name)
CASES = [
    ("missing beam", "roller-ghoster", _drop(["pins", "beam3"]), "pins.beam3:"),
    ("missing button", "roller-ghoster", _drop(["pins", "btn_roll"]), "pins.btn_roll:"),
    ("missing notch", "roller-ghoster", _drop(["pins", "notch"]), "pins.notch:"),
    ("gpio as text", "roller-ghoster", _set(["pins", "notch", "gpio"], "17"), "pins.notch.gpio:"),
    ("100000 pixels", "roller-ghoster", _set(["pixels", "count"], 100000), "pixels.count:"),
    ("count as text", "companion", _set(["pixels", "count"], "64"), "pixels.count:"),
    ("negative gap", "roller-ghoster", _set(["beams", "gap_us"], -5), "beams.gap_us:"),
    ("negative debounce", "roller-ghoster", _set(["buttons", "debounce_ms"], -20),
     "buttons.debounce_ms:"),
    ("negative notch timeout", "roller-ghoster", _set(["servo", "notch_timeout_ms"], -1),
     "servo.notch_timeout_ms:"),
    ("no pixels block", "roller-ghoster", _drop(["pixels"]), "pixels:"),
    ("zero mA per LED", "roller-ghoster", _set(["pixels", "max_ma_per_led"], 0),
     "pixels.max_ma_per_led:"),
    ("die LEDs past the chain", "roller-ghoster", _set(["pixels", "die_from"], 48),
     "pixels.die_from:"),
    ("stop equals forward", "roller-ghoster", _set(["servo", "forward_ns"], 1500000),
     "servo.forward_ns:"),
    ("reserved GPIO", "roller-ghoster", _set(["pins", "pixels", "gpio"], 25), "pins.pixels.gpio:"),
    ("I2C pin that cannot carry its bus", "haunted-house", _set(["pins", "i2c_sda", "gpio"], 2),
     "pins.i2c_sda.gpio:"),
    ("no spot chain", "haunted-house", _drop(["pixels", "spots"]), "pixels.spots:"),
    ("expander input with no kind", "haunted-house",
     _drop(["table", "lines", "attic_hole"]), "i2c.devices[0].inputs.attic_hole:"),
    ("bad expander pin", "haunted-house",
     _set(["i2c", "devices", 1, "inputs", "launch"], "C9"), "i2c.devices[1].inputs.launch:"),
    ("no I2C buses", "haunted-house", _drop(["i2c", "buses"]), "i2c.buses:"),
    ("chains over the total", "haunted-house", _set(["pixels", "count"], 100), "pixels.count:"),
    ("matrix larger than the chain", "companion", _set(["pixels", "width"], 9), "pixels.width:"),
    ("wrong build name", "companion", _set(["build"], "roller-ghoster"), "build:"),
    ("deeply nested", "roller-ghoster", _set(["notch", "x"], _deep(40)), "the pin map nests"),
]
IDS = [c[0] for c in CASES]


def broken(board, change):
    m = json.loads((FIRMWARE / "boards" / (board + ".json")).read_text())
    change(m)
    return m


def test_every_real_map_passes_the_shared_rules_and_the_host_checks():
    for path in sorted((FIRMWARE / "boards").glob("*.json")):
        m = json.loads(path.read_text())
        assert pm.RULES.check(m, pm.expected_build(path)) == []
        assert pm.validate(m, pm.expected_build(path)) == []


@pytest.mark.parametrize("board, change, key", [c[1:] for c in CASES], ids=IDS)
def test_hauntbox_pins_names_the_key(tmp_path, capsys, board, change, key):
    path = tmp_path / (board + ".json")
    path.write_text(json.dumps(broken(board, change)))
    assert pm.main([str(path)]) == 1
    out = capsys.readouterr().out
    assert "  - " + key in out
    assert "Traceback" not in out


def test_hauntbox_pins_on_a_very_deeply_nested_file_prints_no_traceback(tmp_path):
    # 100,000 levels: CPython's json gives up (RecursionError); so did `pins`.
    path = tmp_path / "deep.json"
    path.write_text("[" * 100000 + "]" * 100000)
    obj = tmp_path / "deep_obj.json"
    obj.write_text('{"build": "x", "pins": ' + '{"a": ' * 100000 + "1" + "}" * 100001)
    cp = subprocess.run([sys.executable, "-m", "hauntbox_fw.pinmap", str(path), str(obj)],
                        capture_output=True, text=True, cwd=ROOT,
                        env={"PYTHONPATH": str(ROOT / "host"), "PATH": "/usr/bin:/bin"})
    assert cp.returncode == 1
    assert "Traceback" not in cp.stderr + cp.stdout, cp.stderr
    assert cp.stdout.count("the pin map nests more than 8 levels deep") == 2


@pytest.mark.parametrize("text, key", [
    ('{"count": NaN}', "pixels.count:"),
    ('{"count": 51, "budget_ma": Infinity}', "pixels.budget_ma:"),
    ('{"count": 51, "max_ma_per_led": NaN}', "pixels.max_ma_per_led:"),
    ('{"count": 51, "brightness": NaN}', "pixels.brightness:"),
    ('{"count": 1e400}', "pixels.count:"),
])
def test_numbers_json_lets_through_are_refused(text, key):
    m = json.loads((FIRMWARE / "boards" / "roller-ghoster.json").read_text())
    extra = json.loads(text)
    m["pixels"] = dict(m["pixels"], **extra)
    problems = pm.validate(m, "roller-ghoster")
    assert any(p.startswith(key) for p in problems), problems


# --------------------------------------------------------------------------
# hauntbox flash (the build) refuses a bad map


def _tree_with(tmp_path, board, m):
    src = tmp_path / "fw"
    (src / "boards").mkdir(parents=True)
    (src / "main.py").write_text("print(1)\n")
    for p in (FIRMWARE / "boards").glob("*.json"):
        shutil.copy(p, src / "boards" / p.name)
    (src / "boards" / (board + ".json")).write_text(json.dumps(m))
    return src


@pytest.mark.parametrize("board, change, key", [c[1:] for c in CASES], ids=IDS)
def test_the_build_refuses_a_map_pins_rejects(tmp_path, board, change, key):
    src = _tree_with(tmp_path, board, broken(board, change))
    with pytest.raises(hb.BuildError) as err:
        hb.build(src=src, out=tmp_path / "out")
    msg = str(err.value)
    assert msg.startswith("boards/%s.json: %s" % (board, key)), msg
    assert "\n" not in msg
    assert not (tmp_path / "out").exists()


def test_flash_exits_1_with_one_line_before_touching_a_board(tmp_path, monkeypatch, capsys):
    from hauntbox import flash as fl

    src = _tree_with(tmp_path, "roller-ghoster",
                     broken("roller-ghoster", _set(["pixels", "count"], 100000)))

    def boom(*a, **k):
        raise AssertionError("a board was touched")

    monkeypatch.setattr(fl.SubprocessRunner, "run", boom)
    monkeypatch.setattr(fl.ports, "resolve_port", boom)
    real_build = hb.build
    monkeypatch.setattr(hb, "build", lambda **kw: real_build(
        **dict(kw, src=src, out=tmp_path / "out")))
    assert fl.main(["--port", "/dev/null"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: boards/roller-ghoster.json: pixels.count: must be a whole number "
                   "1..256, not 100000"]


# --------------------------------------------------------------------------
# the firmware at boot (simulated board)


def board_root(tmp_path, board, m):
    root = tmp_path / "root"
    shutil.copytree(FIRMWARE / "data", root / "data")
    shutil.copytree(FIRMWARE / "boards", root / "boards")
    (root / "boards" / (board + ".json")).write_text(
        m if isinstance(m, str) else json.dumps(m))
    (tmp_path / "state").mkdir()
    return str(root) + "/", str(tmp_path / "state")


def boot(tmp_path, board, m):
    from hauntbox_sim.fakes import install as sim_install
    from hauntbox_sim.core.clock import VirtualClock

    sim_install.install(VirtualClock())
    import app as firmware_app

    root, state = board_root(tmp_path, board, m)
    seen = []
    orig = firmware_app.EventBus.publish

    def publish(self, ev):
        seen.append(ev)
        return orig(self, ev)

    firmware_app.EventBus.publish = publish
    try:
        a = firmware_app.App(root=root, state_root=state, seed=3, game=GAME_OF[board])
    finally:
        firmware_app.EventBus.publish = orig
    return a, seen


@pytest.mark.parametrize("board, change, key", [c[1:] for c in CASES], ids=IDS)
def test_the_firmware_keeps_the_game_off_with_one_fault_naming_the_key(tmp_path, capsys,
                                                                        board, change, key):
    a, seen = boot(tmp_path, board, broken(board, change))
    faults = [ev for ev in seen if ev[0] == "fault"]
    assert len(faults) == 1 and faults[0][1] == "pinmap", seen
    detail = faults[0][2]
    assert detail.startswith(key) and "\n" not in detail
    assert a.controller.off.endswith(detail)
    assert a.controller.public_state() is None and a.controller.tasks() == []
    out = capsys.readouterr().out
    assert "hauntbox: fault pinmap: " + detail in out


def test_a_file_json_cannot_read_is_a_fault_too(tmp_path):
    a, seen = boot(tmp_path, "roller-ghoster", "[" * 100000 + "]" * 100000)
    assert seen[-1][:2] == ("fault", "pinmap")
    assert seen[-1][2].startswith("boards/roller-ghoster.json: not a readable JSON file")


def test_a_missing_map_is_a_fault(tmp_path):
    from hauntbox_sim.fakes import install as sim_install
    from hauntbox_sim.core.clock import VirtualClock

    sim_install.install(VirtualClock())
    import app as firmware_app

    root, state = board_root(tmp_path, "companion", "{}")
    (Path(root) / "boards" / "companion.json").unlink()
    a = firmware_app.App(root=root, state_root=state, seed=3, game="superskill")
    assert a.controller.off.endswith("boards/companion.json: missing on the board "
                                     "(run hauntbox flash)")


def test_the_halted_board_answers_its_host_keeps_reporting_and_never_resets(tmp_path):
    from hauntbox_sim.core import runtime
    from hauntbox_sim.core.loop import VirtualTimeLoop

    from protocol import Protocol

    m = broken("roller-ghoster", _drop(["pins", "beam3"]))
    a, _ = boot(tmp_path, "roller-ghoster", m)
    state = Path(a.store.root)
    (state / "roller-ghoster.json").write_text('{"kept": true}')   # the saved game
    proto = Protocol(a)
    loop = VirtualTimeLoop()
    proto.spawn = loop.create_task

    def ask(msg):
        (r,) = [json.loads(x) for x in proto.handle_line(json.dumps(msg).encode())]
        return r

    async def go():
        main = asyncio.create_task(a.main_async(2, 0, True, exit_when_over=False,
                                                extra_tasks=[a.watchdog_task(100)]))
        await asyncio.sleep(35)
        hello = ask({"cmd": "hello", "id": 1})
        st = ask({"cmd": "state", "id": 2})
        same = ask({"cmd": "new", "id": 3, "players": 2})
        act = ask({"cmd": "act", "id": 4, "index": 0})
        await asyncio.sleep(1)
        assert not main.done()
        other = ask({"cmd": "new", "id": 5, "game": "beetlejuice", "players": 2})
        await asyncio.sleep(2)
        main.cancel()
        try:
            await main
        except BaseException:  # noqa: BLE001
            pass
        return hello, st, same, act, other

    try:
        hello, st, same, act, other = loop.run_until_complete(go())
    finally:
        loop.close()
        proto.close()
    assert hello["ok"] and hello["game"] == "roller-ghoster"
    assert st["ok"] and st["state"] is None and st["faults"] == 1
    assert not same["ok"] and same["error"].startswith(
        "the game is off: pin map fault: pins.beam3: missing")
    assert not act["ok"]
    reports = []
    while (line := proto.take_event()) is not None:
        ev = json.loads(line)
        if ev["ev"] == "fault":
            reports.append(ev["data"])
    # said again every 10 s of the 35 s (the one at boot came before this host)
    assert len(reports) >= 3 and all(r[0] == "pinmap" for r in reports)
    assert runtime.take_pending_reset() is None       # the watchdog was fed all along
    assert (state / "roller-ghoster.json").read_text() == '{"kept": true}'
    # another game whose map is fine can still be started from the host
    assert other["ok"] and a.game_name == "beetlejuice"
    assert getattr(a.controller, "off", None) is None


# --------------------------------------------------------------------------
# the same rules on MicroPython


def test_micropython_finds_the_same_problems_as_cpython():
    from hauntbox_sim.vm.mpvm import run_micropython, vm_available

    if not vm_available():
        pytest.skip("MicroPython VM not installed (make deps)")
    maps = []
    for path in sorted((FIRMWARE / "boards").glob("*.json")):
        maps.append((path.stem, json.loads(path.read_text())))
    for _, board, change, _key in CASES:
        maps.append((board, broken(board, change)))
    code = ("import json, pinmap_check\n"
            "for build, m in json.loads(%r):\n"
            "    print(json.dumps(pinmap_check.check(m, build)))\n" % json.dumps(maps))
    out = run_micropython(code).splitlines()
    want = [json.dumps(pm.RULES.check(m, build)) for build, m in maps]
    assert out == want
    assert sum(1 for line in out if line == "[]") == 3


# --------------------------------------------------------------------------
# a map the flash checked is not checked again (the check's names cost RAM)


def test_the_board_skips_the_check_only_for_the_map_the_flash_checked(tmp_path, monkeypatch):
    from hauntbox_sim.fakes import install as sim_install

    sim_install.install()
    import board
    import pinmap_check

    res = hb.build(out=tmp_path / "out")
    root = str(res.out_dir) + "/"
    checked = json.loads((res.out_dir / hb.PINMAPS_CHECKED_PATH).read_text())
    assert sorted(checked) == ["boards/companion.json", "boards/haunted-house.json",
                               "boards/roller-ghoster.json"]
    calls = []
    real = pinmap_check.check
    monkeypatch.setattr(pinmap_check, "check", lambda pm, b: calls.append(b) or real(pm, b))
    for name in ("roller-ghoster", "haunted-house", "companion"):
        assert board.load_pinmap(name, root)["pins"]
    assert calls == []
    # edited on the board: its content no longer matches, so it is checked
    path = res.out_dir / "boards" / "roller-ghoster.json"
    m = json.loads(path.read_text())
    m["pixels"]["count"] = 100000
    path.write_text(json.dumps(m))
    with pytest.raises(board.PinmapError, match="^pixels.count: must be a whole number"):
        board.load_pinmap("roller-ghoster", root)
    assert calls == ["roller-ghoster"]
    # no record of the flash's check at all: checked
    (res.out_dir / hb.PINMAPS_CHECKED_PATH).unlink()
    assert board.load_pinmap("companion", root)
    assert calls == ["roller-ghoster", "companion"]
