"""One name per game everywhere (issue 19): roller-ghoster, haunted-house, beetlejuice,
superskill. The command lines take only those (read from the firmware's registry), an old
spelling is refused with the name meant, and a save written under an old name resumes."""
import json
import subprocess
import sys

import pytest

from hauntbox_fw.games import check_game, game_names
from hauntbox_fw.paths import FIRMWARE_DIR

GAMES = {"roller-ghoster", "haunted-house", "beetlejuice", "superskill"}


def test_the_registry_has_the_four_names():
    assert set(game_names()) == GAMES


@pytest.mark.parametrize("old, meant", [("roller", "roller-ghoster"), ("roller_ghoster", "roller-ghoster"),
                                        ("haunted_house", "haunted-house"), ("Haunted", "haunted-house"),
                                        ("super-skill", "superskill")])
def test_an_old_spelling_is_refused_with_the_name_meant(old, meant):
    with pytest.raises(ValueError, match=f"unknown game '{old}': did you mean '{meant}'"):
        check_game(old)


@pytest.mark.parametrize("module", ["decide", "events", "link", "roller", "haunted"])
def test_a_firmware_module_is_not_a_game(module):
    with pytest.raises(ValueError, match="unknown game"):
        check_game(module)


def test_data_and_board_files_carry_the_names():
    assert (FIRMWARE_DIR / "data" / "roller-ghoster.json").is_file()
    assert (FIRMWARE_DIR / "data" / "haunted-house.json").is_file()
    for build in ("roller-ghoster", "haunted-house"):
        pm = json.loads((FIRMWARE_DIR / "boards" / f"{build}.json").read_text())
        assert pm["build"] == build
    assert json.loads((FIRMWARE_DIR / "data" / "haunted-house.json").read_text())["game"] == "haunted-house"


@pytest.mark.parametrize("argv", [["flash", "--dry-run", "--game", "haunted_house"],
                                  ["sim", "--game", "roller"]])
def test_the_cli_refuses_in_one_line(argv):
    r = subprocess.run([sys.executable, "-m", "hauntbox.cli", *argv], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "did you mean" in r.stderr.strip().splitlines()[-1]


def test_a_save_of_earlier_firmware_resumes(tmp_path):
    # roller_ghoster.json (the name before) is adopted as roller-ghoster.json and resumed.
    from hauntbox_sim.boards.roller import RollerSim
    first = RollerSim(players=2, seed=5, state_dir=str(tmp_path))
    first.app.start_game(2, 0, resume=False)
    saved = tmp_path / "roller-ghoster.json"
    game = json.loads(saved.read_text())["game"]
    saved.rename(tmp_path / "roller_ghoster.json")
    again = RollerSim(players=2, seed=6, state_dir=str(tmp_path))
    assert again.app.start_game(2, 0, resume=True) is True
    assert again.app.controller.game.to_dict() == game
    assert saved.is_file() and not (tmp_path / "roller_ghoster.json").exists()
