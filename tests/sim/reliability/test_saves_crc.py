"""Saves carry a format version and a checksum (issue 17, defect 8): a damaged or
incomplete save is refused, set aside and reported, never resumed as a different
game (a ghost moved, the dice generator re-seeded, `winner: true` read as 1)."""
from __future__ import annotations

import json

import pytest

from hauntbox_sim.boards.companion import CompanionSim
from hauntbox_sim.boards.haunted import HauntedSim
from hauntbox_sim.boards.roller import RollerSim

MAKERS = {
    "roller-ghoster": lambda d: RollerSim(players=3, seed=4, state_dir=d),
    "haunted-house": lambda d: HauntedSim(players=3, seed=4, state_dir=d),
    "beetlejuice": lambda d: CompanionSim(game="beetlejuice", players=3, seed=4, state_dir=d),
    "superskill": lambda d: CompanionSim(game="superskill", players=3, seed=4, state_dir=d),
}


def boot(game, state_dir):
    s = MAKERS[game](str(state_dir))
    resumed = s.app.start_game(3, 0, resume=True)
    return s, resumed


@pytest.mark.parametrize("game", sorted(MAKERS))
def test_every_games_save_is_sealed_and_resumes_exactly(game, tmp_path):
    s, _ = boot(game, tmp_path)
    c = s.app.controller
    name = c.save_name
    on_disk = json.loads((tmp_path / (name + ".json")).read_text())
    assert on_disk["save"] == 2 and isinstance(on_disk["sum"], int)
    s2, resumed = boot(game, tmp_path)
    assert resumed is True
    assert s2.app.controller.public_state() == c.public_state()
    assert s2.app.controller.rng.state == c.rng.state


def test_a_damaged_byte_is_refused_set_aside_and_reported(tmp_path):
    s, _ = boot("roller-ghoster", tmp_path)
    path = tmp_path / "roller-ghoster.json"
    text = path.read_text()
    # The dice generator's state, one digit changed: before the checksum this
    # resumed silently with other dice.
    i = text.index('"state": ') + len('"state": ')
    digit = text[i]
    path.write_text(text[:i] + ("1" if digit != "1" else "2") + text[i + 1:])
    s2, resumed = boot("roller-ghoster", tmp_path)
    assert resumed is False
    assert (tmp_path / "roller-ghoster.json.bad").exists()
    faults = [e for e in s2.app.fault_new if e[0] == "state_bad"]
    assert faults and "checksum" in faults[0][1]
    # A fresh game was started and saved in its place.
    assert json.loads(path.read_text())["game"]["turn"] == 0


def test_a_save_without_its_dice_generator_is_refused(tmp_path):
    # A correctly sealed save that lacks "rng" (or has a bad one) was resumed
    # with the boot's own seed: refused now.
    s, _ = boot("roller-ghoster", tmp_path)
    c = s.app.controller
    for rng in (None, {"state": 0}, {"state": True}, "x"):
        data = {"game": c.game.to_dict()}
        if rng is not None:
            data["rng"] = rng
        s.app.store.save("roller-ghoster", data)
        s2, resumed = boot("roller-ghoster", tmp_path)
        assert resumed is False, rng
        assert any(e[0] == "state_bad" for e in s2.app.fault_new)


def test_an_unsealed_save_of_earlier_firmware_is_refused_with_a_reason(tmp_path):
    s, _ = boot("roller-ghoster", tmp_path)
    c = s.app.controller
    (tmp_path / "roller-ghoster.json").write_text(json.dumps(
        {"game": c.game.to_dict(), "rng": c.rng.to_dict()}))
    s2, resumed = boot("roller-ghoster", tmp_path)
    assert resumed is False
    (e,) = [e for e in s2.app.fault_new if e[0] == "state_bad"]
    assert "seal" in e[1]


def test_winner_true_is_not_player_1_and_turn_must_be_a_number():
    from rules.errors import RuleError
    from rules.roller_ghoster import RollerGhoster
    cfg = json.loads((__import__("pathlib").Path(__file__).resolve().parents[3]
                      / "firmware/data/roller-ghoster.json").read_text())
    g = RollerGhoster(cfg, 2, 0)
    d = g.to_dict()
    d["pos"] = ["start", "top"]
    d["phase"] = "over"
    d["winner"] = 1
    RollerGhoster.from_dict(cfg, d)
    for key, bad in (("winner", True), ("turn", True), ("players", True), ("turn", None)):
        e = dict(d, **{key: bad})
        with pytest.raises(RuleError):
            RollerGhoster.from_dict(cfg, e)


def test_the_checksum_is_the_same_in_the_micropython_vm():
    # The board (MicroPython) and the simulator (CPython) seal alike: a save
    # written by one is read by the other.
    from hauntbox_sim.vm.mpvm import run_micropython, vm_available
    if not vm_available():
        pytest.skip("MicroPython VM not installed (make deps)")
    from games.store import checksum
    data = {"game": {"pos": ["start", "2w1", "ü"], "turn": 1, "winner": None, "x": [True, False, -3]},
            "rng": {"state": 0xFFFFFFFF}, "z": []}
    out = run_micropython("""
import sys
sys.path.insert(0, "/fw")
from games.store import checksum
print(checksum(%r))
""" % (data,))
    assert int(out.strip()) == checksum(data)
