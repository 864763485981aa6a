"""Roller Ghoster rules: scenario scripts (one per rulebook clause), playouts, persistence."""
import json
from pathlib import Path

import pytest

from rules.errors import CHANCE, RuleError
from rules.rng import Rng
from rules.roller_ghoster import FACES, RollerGhoster
from rules.roller_layout import Layout
from scenarios import verbs_roller_ghoster as roller_runner
from scenarios.runner import ScenarioError

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = json.loads((ROOT / "firmware/data/roller-ghoster.json").read_text())
SCRIPTS = sorted((ROOT / "tests/scenarios/roller-ghoster").glob("*.txt"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_scenario(script):
    transcript = roller_runner.run(script.read_text(), LAYOUT)
    assert transcript, "a scenario must apply at least one action"


def test_scenario_runner_reports_a_failed_expectation():
    with pytest.raises(ScenarioError, match="line 4"):
        roller_runner.run("players red blue\nroll 1\nmove\nexpect red at 1w1\n", LAYOUT)


def play_random(seed, players=4, policy="random"):
    rng = Rng(seed)
    g = RollerGhoster(LAYOUT, players, rng.below(players))
    turns = 0
    while not g.is_over():
        acts = g.legal_actions()
        if policy == "outer":
            pref = [a for a in acts if "outer" in a] or acts
            a = pref[0] if g.to_act != CHANCE else rng.choice(acts)
        elif policy == "wall":
            pref = [a for a in acts if "wall" in a] or acts
            a = pref[0] if g.to_act != CHANCE else rng.choice(acts)
        else:
            a = rng.choice(acts)
        g.apply(a)
        check_invariants(g)
        turns += 1
        assert turns < 20000, "game does not terminate"
    return g, turns


def check_invariants(g):
    lay = g.layout
    steps = [p for p in g.pos if p != "start" and not lay.trench_stair(p)]
    assert len(steps) == len(set(steps)), f"two ghosts on one step: {g.pos}"
    for p in g.pos:
        assert lay.is_valid_position(p)
        assert p not in lay.broken, "a ghost never rests on a broken step"
    tops = [i for i, p in enumerate(g.pos) if p == "top"]
    assert len(tops) == (1 if g.is_over() else 0)
    # The saved form round-trips exactly.
    d = json.loads(json.dumps(g.to_dict()))
    assert RollerGhoster.from_dict(LAYOUT, d).to_dict() == g.to_dict()


@pytest.mark.parametrize("policy", ["random", "outer", "wall"])
def test_random_playouts_end_with_one_winner(policy):
    winners = set()
    for seed in range(1, 151):
        g, _ = play_random(seed, players=2 + seed % 3, policy=policy)
        assert g.winner is not None
        winners.add(g.winner)
    assert winners == {0, 1, 2, 3}


def test_die_faces_are_the_six_of_the_rulebook():
    assert sorted(FACES) == sorted(["1", "2", "3", "1a", "2a", "ghost"])
    g = RollerGhoster(LAYOUT, 2)
    assert g.to_act == CHANCE
    assert sorted(a[1] for a in g.legal_actions()) == sorted(FACES)


def test_illegal_action_changes_nothing():
    g = RollerGhoster(LAYOUT, 3)
    before = g.to_dict()
    for bad in [(), ("move",), ("roll", "7"), ("balls", (1,)), "roll", ("roll",), None, 5]:
        with pytest.raises(RuleError):
            g.apply(bad)
        assert g.to_dict() == before


def test_players_two_to_four():
    for n in (0, 1, 5, "2", True):
        with pytest.raises(RuleError):
            RollerGhoster(LAYOUT, n)
    for n in (2, 3, 4):
        assert RollerGhoster(LAYOUT, n).players == n


def test_balls_from_json_lists_in_any_order():
    g = RollerGhoster(LAYOUT, 2)
    g.pos[1] = "3o1"
    g.apply(("roll", "1a"))
    g.apply(("move",))
    g.apply(["balls", [3, 1, 3]])
    assert g.pos[1] == "3T"


@pytest.mark.parametrize("mutate, msg", [
    (lambda d: d.update(v=99), "v1"),
    (lambda d: d.update(pos=["1w1", "1w1"]), "two ghosts"),
    (lambda d: d.update(pos=["9w9", "start"]), "bad space"),
    (lambda d: d.update(phase="dance"), "bad phase"),
    (lambda d: d.update(phase="balls", face="3"), "does not fit"),
    (lambda d: d.update(pos=["top", "start"]), "not over"),
    (lambda d: d.update(turn=7), "start player"),
    (lambda d: d.update(players=9), "players"),
    (lambda d: d.pop("pos"), "pos"),
])
def test_from_dict_rejects_impossible_state(mutate, msg):
    d = RollerGhoster(LAYOUT, 2).to_dict()
    mutate(d)
    with pytest.raises(RuleError, match=msg):
        RollerGhoster.from_dict(LAYOUT, d)


@pytest.mark.parametrize("mutate, msg", [
    (lambda d: d.update(staircases=[]), "staircases"),
    (lambda d: d["staircases"][0].update(outer=9), "shorter"),
    (lambda d: d["staircases"][1].update(slide_to=7), "slide_to"),
    (lambda d: d["staircases"][1].update(broken=0), "broken"),
    (lambda d: d.update(notches_per_rev="8"), "notches_per_rev"),
])
def test_layout_validation(mutate, msg):
    d = json.loads(json.dumps(LAYOUT))
    mutate(d)
    with pytest.raises(RuleError, match=msg):
        Layout(d)


def test_default_layout_paths():
    lay = Layout(LAYOUT)
    # Wall path is longer than the outer path on every staircase (Two paths per staircase).
    assert lay.n_stairs == 4 and lay.notches_per_rev == 8
    assert lay.exposed["last"] == 4
    assert lay.broken["1w3"] == "start" and lay.broken["2w3"] == "2o2"
