"""Star Trek: Super-Skill Pinball scenario scripts (tests/scenarios/superskill/*.txt).

One or more scripts per rulebook clause, on all four tables; each script's
first comment names its section. The Nudging scripts on Lower Decks and
Tribbles pin the rule "a Nudge is refused exactly when the nudged move would
lose the ball".
"""
import json
from pathlib import Path

import pytest

from rules.rng import Rng
from rules.superskill import SuperSkillGame
from scenarios.runner import ScenarioError, run
from scenarios.verbs_superskill import TABLES, SuperSkillVerbs

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "tests/scenarios/superskill"
SCRIPTS = sorted(DIR.glob("*.txt"))
_CFG = {}


def table_data(name):
    if name not in _CFG:
        _CFG[name] = json.loads((ROOT / "firmware/data/superskill" / (name + ".json")).read_text())
    return _CFG[name]


def play(text, name="test.txt"):
    return run(text, SuperSkillVerbs, table_data, name)


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_scenario(script):
    """The section named in the script's first comment (see the file)."""
    text = script.read_text()
    assert text.startswith("# ")
    assert play(text, script.name)


def test_every_table_and_the_general_clauses_have_scripts():
    """Every table has scripts, and the general rule sections are covered."""
    texts = [s.read_text() for s in SCRIPTS]
    for t in TABLES:
        assert any(("table " + t + "\n") in x for x in texts), t
    firsts = " ".join(x.splitlines()[0] for x in texts)
    for section in ("Nudging", "Tilting"):
        assert section in firsts, section


def test_failures_name_script_line_and_difference():
    """A wrong expectation fails with the script name, its line and both values."""
    text = (DIR / "nudging__tribble_x_loses_the_ball.txt").read_text()
    bad = text.replace("expect nudges 1", "expect nudges 2")
    with pytest.raises(ScenarioError, match=r"x\.txt line \d+: nudges is 1, expected 2"):
        play(bad, "x.txt")
    with pytest.raises(ScenarioError, match="line 2: unknown command 'bogus'"):
        play("table tribbles\nbogus 1\n")
    with pytest.raises(ScenarioError, match="unknown table"):
        play("table tribbles-ish\n")


NUDGE_SCRIPTS = ("nudging__outlane_that_turns_the_table.txt", "nudging__tribble_x_loses_the_ball.txt")


@pytest.mark.parametrize("name", NUDGE_SCRIPTS)
def test_nudge_scripts_fail_under_the_old_outlane_rule(name, monkeypatch):
    """Nudging: the old rule (no Nudge into any outlane, every other Nudge
    allowed) is wrong on Lower Decks and Tribbles, and these scripts say so."""
    text = (DIR / name).read_text()
    play(text, name)
    monkeypatch.setattr(SuperSkillGame, "_nudge_loses",
                        lambda g, p, b, a, fid, i: g.table.fmap[fid].kind == "outlane")
    with pytest.raises(ScenarioError, match=name + " line"):
        play(text, name)


@pytest.mark.parametrize("table", sorted(TABLES))
def test_risky_fill_never_hides_a_losing_nudge(table):
    """Nudging: the tables' cheap risky_fill guess never lets a ball-losing
    Nudge through: in random games the offered moves are the same as when
    every nudged move is played out."""
    rng = Rng(sum(map(ord, table)))
    checked = 0
    games = 0
    while checked < 200:
        g = SuperSkillGame(table_data(TABLES[table]), 2)
        games += 1
        if table == "tribbles":
            # start near the X, where scoops and PURR targets can end the round
            d = g.to_dict()
            for pd in d["players"]:
                pd["x"]["n"] = 48 + games % 11
            g = SuperSkillGame.from_dict(g.table, d)
        while not g.is_over():
            acts = g.legal_actions()
            if g.phase == "move":
                everything = g.clone()
                everything.hooks = _AllRisky(g.hooks)
                everything._cache = None
                assert sorted(everything.legal_actions(), key=repr) == sorted(acts, key=repr)
                checked += 1
            g.apply(acts[rng.below(len(acts))])


class _AllRisky:
    def __init__(self, hooks):
        self._h = hooks

    def risky_fill(self, game, p, fid, i):
        return True

    def __getattr__(self, name):
        return getattr(self._h, name)


# The VM side: sim/vm/scripts/superskill_scenarios.py.


def test_scripts_identical_on_micropython():
    """Parity: every Super-Skill script runs in the MicroPython VM with the same
    transcript as on CPython (the runner and the verbs are MicroPython code)."""
    mpvm = pytest.importorskip("hauntbox_sim.vm.mpvm")
    if not mpvm.vm_available():
        pytest.skip("MicroPython VM not installed")
    got = json.loads(mpvm.run_micropython(mpvm.script_code("superskill_scenarios")))
    assert sorted(got) == [s.name for s in SCRIPTS]
    for s in SCRIPTS:
        assert got[s.name] == play(s.read_text(), s.name), s.name
