"""Watch Out Beetlejuice scenario scripts (tests/scenarios/beetlejuice/*.txt).

Each script names the rulebook section it covers in its file name and its
first comment line; the runner fails on the first unmet expectation.
"""
import json
from pathlib import Path

import pytest

from scenarios import verbs_beetlejuice as runner
from scenarios.runner import ScenarioError

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware/data/beetlejuice.json").read_text())
SCRIPTS = sorted((ROOT / "tests/scenarios/beetlejuice").glob("*.txt"))


def test_scripts_exist_and_cite_a_section():
    """Every script starts with a comment naming the rulebook section(s)."""
    assert len(SCRIPTS) >= 10
    sections = ("How to Play", "End of Turn", "Beetlejuice", "Banishing", "Handbook",
                "End of the Game", "Setup", "Card")
    for s in SCRIPTS:
        first = s.read_text().splitlines()[0]
        assert first.startswith("#") and any(x in first for x in sections), s.name


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_scenario(script):
    transcript = runner.run(script.read_text(), CFG)
    assert transcript  # every script plays at least one action


def test_runner_detects_a_wrong_expectation():
    """The scripts can fail: a wrong expectation is reported with its line."""
    text = (ROOT / "tests/scenarios/beetlejuice/banishing_beetlejuice.txt").read_text()
    with pytest.raises(ScenarioError, match="bj is 'grave', expected 'up'"):
        runner.run(text.replace("expect bj grave", "expect bj up"), CFG)
    with pytest.raises(ScenarioError, match="refused"):
        runner.run("players 2\ndeal r01 r11 r21\nreroll 0 1\n", CFG)
