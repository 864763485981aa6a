"""Board scenarios (tests/scenarios/roller_board/*.txt): Roller Ghoster on the
simulated board, through its buttons and the host's act, with the electronic
die (the default) and the physical one (issue 20)."""
from pathlib import Path

import pytest

from scenarios import board_runner

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "tests/scenarios/roller_board").glob("*.txt"))


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_board_scenario(path):
    board_runner.run(path.read_text())


def test_a_wrong_expectation_names_its_line():
    with pytest.raises(board_runner.ScenarioError, match=r"line 2: the die row shows \['1'\]"):
        board_runner.run("setting roller-ghoster.die physical\nexpect led die ghost\n")
