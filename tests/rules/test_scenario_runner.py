"""The scenario language (tests/scenarios/runner.py): one core, a verb table per game.

The common verbs behave the same for every game, and a failure names the
script, the line and what differed.
"""
import json
from pathlib import Path

import pytest

from scenarios import verbs_beetlejuice, verbs_haunted_house, verbs_roller_ghoster
from scenarios.runner import ScenarioError, run
from scenarios.verbs_superskill import SuperSkillVerbs

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "firmware/data"


def _superskill(name):
    return json.loads((DATA / "superskill" / (name + ".json")).read_text())


# per game: verbs, data, a setup, one legal action, one refused action, an
# effect line of that legal action
GAMES = {
    "roller-ghoster": (verbs_roller_ghoster.RollerVerbs,
                       json.loads((DATA / "roller-ghoster.json").read_text()),
                       "players red blue", "roll 1", "ghost red", "roll red 1"),
    "beetlejuice": (verbs_beetlejuice.BeetlejuiceVerbs,
                    json.loads((DATA / "beetlejuice.json").read_text()),
                    "players 2", "deal r01", "reroll 0 1", "dealt 0 r01"),
    "haunted-house": (verbs_haunted_house.HauntedHouseVerbs,
                      json.loads((DATA / "haunted-house.json").read_text()),
                      "players orange yellow", "launch", "score_round", "launched orange regular"),
    "superskill": (SuperSkillVerbs, _superskill, "table starfleet-academy", "roll 1 3",
                   "fill km with 1", "roll 1 3"),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_common_verbs_and_failures_name_script_and_line(game):
    verbs, cfg, setup, good, bad, effect = GAMES[game]
    text = "# a comment\n%s\n\n%s  # trailing comment\n" % (setup, good)
    assert run(text, verbs, cfg, "ok.txt")
    run(text + "expect illegal %s\n" % bad, verbs, cfg)
    if effect:
        run(text + "expect effect %s\n" % effect, verbs, cfg)
        with pytest.raises(ScenarioError, match=r"^x\.txt line 5: effect .* present"):
            run(text + "expect noeffect %s\n" % effect, verbs, cfg, "x.txt")
    # a refused action in the script stops it, naming the line
    with pytest.raises(ScenarioError, match=r"^x\.txt line 5: %s refused" % bad):
        run(text + bad + "\n", verbs, cfg, "x.txt")
    # an expected refusal that is accepted fails
    with pytest.raises(ScenarioError, match=r"^x\.txt line 2: action .* was accepted"):
        run("%s\nexpect illegal %s\n" % (setup, good), verbs, cfg, "x.txt")
    with pytest.raises(ScenarioError, match=r"^x\.txt line 5: .* is refused"):
        run(text + "expect legal %s\n" % bad, verbs, cfg, "x.txt")
    with pytest.raises(ScenarioError, match=r"line 5: unknown command 'frobnicate'"):
        run(text + "frobnicate\n", verbs, cfg)
    with pytest.raises(ScenarioError, match=r"line 5: unknown expectation 'frobnicate'"):
        run(text + "expect frobnicate 1\n", verbs, cfg)
    with pytest.raises(ScenarioError, match=r"line 5: seed after the game started"):
        run(text + "seed 3\n", verbs, cfg)
    first = setup.split()[0]
    with pytest.raises(ScenarioError, match=r"line 5: %s after the game started" % first):
        run(text + setup + "\n", verbs, cfg)


def test_refusal_text_is_checked():
    """expect illegal ACTION -- TEXT: the refusal's message must contain TEXT."""
    cfg = _superskill
    text = "table starfleet-academy\nroll 1 3\n"
    run(text + "expect illegal fill km with 1 -- illegal action\n", SuperSkillVerbs, cfg)
    with pytest.raises(ScenarioError, match="does not say 'game over'"):
        run(text + "expect illegal fill km with 1 -- game over\n", SuperSkillVerbs, cfg)


def test_refused_expectation_must_not_change_the_state():
    """expect illegal: an engine that changes its state while refusing is caught."""
    class Leaky(SuperSkillVerbs):
        def apply(self, action):
            if action[0] == "fill":
                self.game.players[0].stars += 1
            return SuperSkillVerbs.apply(self, action)

    with pytest.raises(ScenarioError, match="a refused action changed the state"):
        run("table starfleet-academy\nroll 1 3\nexpect illegal fill km with 1\n", Leaky,
            _superskill)
