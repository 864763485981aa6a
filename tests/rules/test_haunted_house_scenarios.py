"""Haunted House scenario scripts (tests/scenarios/haunted-house/*.txt): the
rulebook's worked examples (Round End, Monsters and Clues examples) and The
Summoning Circle / Round End clauses as readable scripts, plus CPython /
MicroPython VM parity of their transcripts and of a seeded random game.
"""
import json
from pathlib import Path

import pytest

from scenarios.runner import ScenarioError
from scenarios.verbs_haunted_house import random_game, run

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware" / "data" / "haunted-house.json").read_text())
SCRIPTS = sorted((ROOT / "tests" / "scenarios" / "haunted-house").glob("*.txt"))


def test_every_worked_example_has_a_script():
    """Round End, Monsters and Clues examples each have a scenario script."""
    names = {p.stem for p in SCRIPTS}
    assert {"round_end_example", "monster_example", "clue_example"} <= names


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_scenario_script(path):
    """The section named in the script's first comment line (see the file)."""
    text = path.read_text()
    assert text.startswith("# ")
    transcript = run(text, CFG)
    assert transcript and any(line.startswith("> ") for line in transcript)


SCORED = "expect effect round_scored 1 orange 23 5 28\n"


@pytest.mark.parametrize("anchor,bad", [
    (SCORED, "expect round_score orange 1 27"),
    (SCORED, "expect hits orange medusa 1"),
    (SCORED, "expect winner yellow"),
    (SCORED, "expect effect round_scored 1 orange 23 5 29"),
    (SCORED, "expect total orange 36"),
    ("die_lost yellow\n", "expect illegal die_lost yellow"),
    ("expect effect summoned orange now 1\n", "expect effect summoned orange next 1"),
])
def test_scenario_runner_catches_wrong_expectations(anchor, bad):
    """Round End example with one wrong expectation added: the runner must fail."""
    text = (ROOT / "tests" / "scenarios" / "haunted-house" / "round_end_example.txt").read_text()
    assert anchor in text
    run(text, CFG)
    with pytest.raises(ScenarioError):
        run(text.replace(anchor, anchor + bad + "\n", 1), CFG)


VM_CODE = r"""
import json
from scenarios.verbs_haunted_house import run, random_game
f = open('/fw/data/haunted-house.json')
cfg = json.loads(f.read())
f.close()
for name in %(names)r:
    f = open('/t/scenarios/haunted-house/' + name)
    text = f.read()
    f.close()
    for line in run(text, cfg):
        print(line)
    print('== ' + name)
for seed, players in %(games)r:
    g, t = random_game(cfg, seed, players)
    for line in t:
        print(line)
    print('== game %%d %%r' %% (seed, g.final_scores()))
"""
GAMES = [(7, 4), (8, 1), (2024, 3)]


def _cpython_transcript(names):
    out = []
    for name in names:
        text = (ROOT / "tests" / "scenarios" / "haunted-house" / name).read_text()
        out += run(text, CFG)
        out.append("== " + name)
    for seed, players in GAMES:
        g, t = random_game(CFG, seed, players)
        out += t
        out.append("== game %d %r" % (seed, g.final_scores()))
    return out


def test_vm_parity():
    """Parity (all sections): scripts and seeded random games give the same
    transcript in the MicroPython VM as in CPython."""
    mpvm = pytest.importorskip("hauntbox_sim.vm.mpvm")
    if not mpvm.vm_available():
        pytest.skip("MicroPython VM not installed")
    names = [p.name for p in SCRIPTS]
    got = mpvm.run_micropython(VM_CODE % {"names": names, "games": GAMES}).splitlines()
    want = _cpython_transcript(names)
    assert len(want) > 500
    assert got == want


def test_random_game_is_deterministic():
    """Setup (shuffled clues): the same seed replays the same game."""
    a = random_game(CFG, 31, 4)[1]
    b = random_game(CFG, 31, 4)[1]
    c = random_game(CFG, 32, 4)[1]
    assert a == b and a != c
