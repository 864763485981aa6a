"""Settings checked as a whole (issue 17, defects 1, 2 and 5): against the limits
of the game they are for and the servo's rules between its pulses, at load and
at `config set`; `new` checks the limits of the game it names. A bad config.json
never stops the board: its bad keys fall back to their defaults, reported."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_protocol_support import ProtoBoard

from hauntbox_sim.boards.companion import CompanionSim
from hauntbox_sim.boards.roller import RollerSim

FIRMWARE_BOARDS = Path(__file__).resolve().parents[2] / "firmware/boards"


def ask(proto, msg):
    (line,) = proto.handle_line(json.dumps(msg).encode())
    return json.loads(line)


@pytest.fixture
def board():
    b = ProtoBoard(players=2, seed=5)
    b.start()
    yield b
    b.close()


def test_config_set_players_outside_the_games_limits_is_refused(board):
    # Defect 1: accepted before, then every power-up raised "players must be 2..4".
    before = board.snapshot()
    r = board.ask({"cmd": "config", "op": "set", "key": "players", "value": 1})
    assert not r["ok"] and r["error"] == "players must be 2..4 for roller-ghoster"
    assert board.snapshot() == before
    assert board.ask({"cmd": "config", "op": "set", "key": "players", "value": 3})["ok"]


def test_config_set_game_checks_the_players_already_set(tmp_path):
    s = CompanionSim(game="superskill", players=1, seed=2, state_dir=str(tmp_path))
    st = s.app.settings
    assert st.set("game", "superskill") is None and st.set("players", 1) is None
    # Roller Ghoster takes 2..4: switching the game would break every boot.
    assert st.set("game", "roller-ghoster") == "players must be 2..4 for roller-ghoster"
    assert json.loads((tmp_path / "config.json").read_text()) == {"game": "superskill",
                                                                  "players": 1}


def test_a_config_json_that_breaks_a_rule_boots_with_defaults_and_a_fault(tmp_path):
    # Defects 1 and 5: these files stopped the board at every boot.
    (tmp_path / "config.json").write_text(json.dumps(
        {"players": 1, "servo.min_ns": 2000000, "servo.max_ns": 1000000, "settle_ms": 900,
         "colour": "red"}))
    s = RollerSim(players=2, seed=3, state_dir=str(tmp_path))
    app = s.app
    assert app.settings.get("players") == 4 and app.settings.get("settle_ms") == 900
    assert "servo.min_ns" not in app.settings.values
    servo = app.controller.tower.servo
    assert (servo.min_ns, servo.max_ns) == (1000000, 2000000)
    assert app.start_game(app.settings.get("players"), 0, True) is False   # no crash
    # Reported: a config fault per key left out, in the fault log on flash from
    # the boot on, so a host that connects later sees them.
    from protocol import Protocol
    (line,) = Protocol(app, subscribe=False).handle_line(b'{"cmd":"faults"}')
    faults = json.loads(line)["faults"]
    assert {f["kind"] for f in faults} == {"config"} and len(faults) == 4
    details = " / ".join(f["detail"] for f in faults)
    assert "players ignored: players must be 2..4" in details
    assert "unknown setting colour" in details
    assert "servo.min_ns ignored" in details and "servo.max_ns ignored" in details
    health = json.loads((tmp_path / "health.json").read_text())
    assert {f[0] for f in health["faults"]} == {"config"}
    # The file is left as it was (nothing lost until the next config set).
    assert json.loads((tmp_path / "config.json").read_text())["players"] == 1


def test_servo_settings_are_checked_against_each_other_and_the_defaults(board):
    # Defect 5: min_ns 1999999 clamped stop and forward to the same pulse.
    before = board.snapshot()
    for key, value, err in [
        ("servo.min_ns", 1999999, "servo.stop_ns must lie within"),
        ("servo.max_ns", 1400000, "servo.stop_ns must lie within"),
        ("servo.min_ns", 2000000, "servo.min_ns must be below servo.max_ns"),
        ("servo.forward_ns", 1500000, "servo.forward_ns must differ from servo.stop_ns"),
        ("servo.stop_ns", 1300000, "servo.forward_ns must differ from servo.stop_ns"),
    ]:
        r = board.ask({"cmd": "config", "op": "set", "key": key, "value": value})
        assert not r["ok"] and err in r["error"], (key, value, r)
        assert board.snapshot() == before
    r = board.ask({"cmd": "calibrate", "stop_ns": 1300000})
    assert not r["ok"] and "differ" in r["error"]
    assert board.ask({"cmd": "config", "op": "set", "key": "servo.min_ns", "value": 1100000})["ok"]


def test_new_checks_the_limits_of_the_game_it_names(tmp_path):
    # Defect 2: after `new beetlejuice` with 2 players, `new roller-ghoster` with
    # 1 player was answered ok, then crashed the board (its save deleted first).
    from protocol import Protocol
    s = CompanionSim(game="beetlejuice", players=2, seed=2, state_dir=str(tmp_path))
    s.app.start_game(2, 0, resume=False)
    proto = Protocol(s.app)
    saved = (tmp_path / "beetlejuice.json").read_bytes()
    for msg, err in [
        ({"cmd": "new", "game": "roller-ghoster", "players": 1}, "players must be 2..4"),
        ({"cmd": "new", "game": "haunted-house", "players": 5}, "players must be 1..4"),
        ({"cmd": "new", "players": 7}, "players must be 1..6 for beetlejuice"),
    ]:
        r = ask(proto, msg)
        assert not r["ok"] and err in r["error"], (msg, r)
        assert s.app._request is None
    assert (tmp_path / "beetlejuice.json").read_bytes() == saved
    r = ask(proto, {"cmd": "new", "game": "beetlejuice", "players": 6})
    assert r["ok"] and s.app._request == ("beetlejuice", 6, 0, None)


def test_the_registry_limits_are_the_controllers_and_the_servo_defaults_the_pin_maps():
    import importlib

    from games import registry, settings_schema
    for name, mod in registry.GAMES.items():
        m = importlib.import_module(mod)
        cls = [v for v in vars(m).values() if isinstance(v, type) and getattr(v, "save_name", None)]
        assert len(cls) == 1, name
        assert registry.PLAYERS[name] == (cls[0].min_players, cls[0].max_players), name
    pm = json.loads((FIRMWARE_BOARDS / "roller-ghoster.json").read_text())["servo"]
    for k, v in settings_schema.SERVO_DEFAULTS.items():
        assert pm[k] == v, k
    assert set(settings_schema.ORDER) == set(settings_schema.SCHEMA)
