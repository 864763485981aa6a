"""Haunted House persistence: exact to_dict/from_dict round trips, rejection of
impossible saved states, the public view, and the data file checks.

The invariants checked come from the rulebook sections named in each test.
"""
import copy
import json
from pathlib import Path

import pytest

from rules.errors import RuleError
from rules.haunted_house import HauntedHouse
from rules.haunted_house_cfg import HHConfig
from rules.rng import Rng
from scenarios.helpers_haunted_house import launch_rest, new_game, turn

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware" / "data" / "haunted-house.json").read_text())


def _step_random(g, rng):
    acts = g.legal_actions()
    if g.phase == "flight" and rng.chance(1, 3):
        return g.apply(("end_turn",))
    return g.apply(acts[rng.below(len(acts))])


def test_round_trip_every_step_through_json():
    """Setup to Game End: every state of a game survives to_dict -> JSON -> from_dict
    unchanged and keeps the same legal actions."""
    for seed in range(1, 13):
        rng = Rng(seed)
        g = HauntedHouse(CFG, 1 + seed % 4, rng=rng, start=seed % (1 + seed % 4))
        while True:
            d = g.to_dict()
            text = json.dumps(d)
            g2 = HauntedHouse.from_dict(CFG, json.loads(text))
            assert g2.to_dict() == d
            assert json.dumps(g2.to_dict()) == text
            assert g2.legal_actions() == g.legal_actions()
            assert g2.to_act == g.to_act and g2.winners == g.winners
            assert g2.to_public_dict() == g.to_public_dict()
            if g.is_over():
                break
            _step_random(g, rng)


def test_state_view_is_the_saved_state_and_to_dict_a_copy():
    """Setup to Game End: state_view() (what the controller saves every turn, without
    copying) holds exactly what to_dict() holds at every step, and a to_dict() taken
    earlier is not changed by later play (a refused action is proved by comparing it)."""
    for seed in (2, 5, 9):
        rng = Rng(seed)
        g = HauntedHouse(CFG, 1 + seed % 4, rng=rng)
        taken = []
        while not g.is_over():
            d = g.to_dict()
            assert g.state_view() == d and g.state_view() is g.state_view()
            assert json.dumps(g.state_view()) == json.dumps(d)
            taken.append((d, json.dumps(d)))
            _step_random(g, rng)
        for d, text in taken:
            assert json.dumps(d) == text
        assert g.state_view() == g.to_dict()


def test_restored_game_plays_on_identically():
    """Round End / Game End: a game restored mid-round finishes exactly as the original."""
    rng_a = Rng(99)
    g = HauntedHouse(CFG, 3, rng=Rng(5))
    for _ in range(40):
        _step_random(g, rng_a)
    h = HauntedHouse.from_dict(CFG, json.loads(json.dumps(g.to_dict())))
    rng_b = Rng.from_dict(rng_a.to_dict())
    while not g.is_over():
        assert _step_random(g, rng_a) == _step_random(h, rng_b)
    assert h.is_over() and h.to_dict() == g.to_dict()


def _states():
    # A few reference states in every phase.
    out = {}
    g = new_game(CFG, 3, front=[5, 4])
    out["launch"] = g.to_dict()
    g.apply(("launch",))
    g.apply(("monster_hit", "bob"))
    g.apply(("clue_taken", "clue_top_left"))
    g.apply(("circle", 0))
    out["flight"] = g.to_dict()
    g.apply(("end_turn",))
    out["extra"] = g.to_dict()
    launch_rest(g)
    g.apply(("die_result", 0, 3, "ravens"))
    out["round_end"] = g.to_dict()
    while g.dice_to_enter(0):
        g.apply(("die_lost", 0))
    for p in (1, 2):
        while g.dice_to_enter(p):
            g.apply(("die_lost", p))
    g.apply(("score_round",))
    out["round2"] = g.to_dict()
    for _ in range(2):
        launch_rest(g)
        for p in range(3):
            while g.dice_to_enter(p):
                g.apply(("die_lost", p))
        g.apply(("score_round",))
    out["over"] = g.to_dict()
    return out


STATES = _states()


@pytest.mark.parametrize("name", sorted(STATES))
def test_reference_states_load(name):
    """Setup .. Game End: the reference states are valid and round-trip."""
    d = STATES[name]
    assert HauntedHouse.from_dict(CFG, copy.deepcopy(d)).to_dict() == d


def _set(key, value):
    def f(d):
        d[key] = value
    return f


def _item(key, i, value):
    def f(d):
        d[key][i] = value
    return f


def _extra_clue(d):
    d["deck"].append(1)


def _lost_clue(d):
    d["deck"].pop()


def _changed_clue(d):
    d["clues"][0] = [3]


def _hits_dup(d):
    d["hits"][0][0] = ["bob", "bob"]


def _monster_points(d):
    d["rounds"][0][0][1] = 10


def _entry_outside(d):
    d["entries"][1] = [[3, None]]


RULE_BREAKS = {
    # name: (state, mutation) -- each is impossible under the rulebook.
    "not a dict": ("launch", None),
    "wrong game": ("launch", _set("game", "roller_ghoster")),
    "wrong version": ("launch", _set("v", 2)),
    "extra key": ("launch", _set("cheat", 1)),
    "unknown colour": ("launch", _item("colours", 0, "green")),
    "repeated colour": ("launch", _item("colours", 1, "red")),
    "five players": ("launch", _set("colours", ["red", "blue", "orange", "yellow", "red"])),
    "first out of range": ("launch", _set("first", 3)),
    "round 0": ("launch", _set("round", 0)),
    "round 4": ("launch", _set("round", 4)),
    "unknown phase": ("launch", _set("phase", "bonus")),
    "active out of range": ("launch", _set("active", 3)),
    "active in round end": ("round_end", _set("active", 0)),
    "bool as int": ("launch", _item("dice_left", 0, True)),
    "five dice": ("launch", _item("dice_left", 1, 5)),
    "negative dice": ("launch", _item("dice_left", 1, -1)),
    "three summoned (Summoning Circle limit)": ("flight", _item("summoned", 0, 3)),
    "due above summoned": ("flight", _item("due", 1, 1)),
    "more on table than launched": ("flight", _item("on_table", 1, 1)),
    "entries outside round end": ("flight", _entry_outside),
    "too many entries": ("round_end", _item("entries", 1, [None] * 5)),
    "bad face": ("round_end", _item("entries", 0, [[7, None]])),
    "bad realm": ("round_end", _item("entries", 0, [[3, "moon"]])),
    "dice still to launch at round end": ("round_end", _item("dice_left", 0, 1)),
    "monster on unknown level": ("launch", _set("monsters", {"medusa": "roof", "frank": "middle",
                                                              "bob": "bottom"})),
    "monster missing": ("launch", _set("monsters", {"medusa": "top", "frank": "middle"})),
    "same monster twice in a round": ("flight", _hits_dup),
    "unknown monster hit": ("flight", _item("hits", 0, [["kraken"], [], []])),
    "hits for a future round": ("flight", _set("hits", [[[], [], []], [[], [], []]])),
    "monster points mismatch": ("round2", _monster_points),
    "scores for an unplayed round": ("round2", _set("rounds", [])),
    "clue appears": ("flight", _extra_clue),
    "clue vanishes": ("flight", _lost_clue),
    "clue changes value": ("flight", _changed_clue),
    "clue spot missing": ("flight", _set("spots", {"clue_top_left": None})),
    "no die to launch": ("launch", _item("dice_left", 0, 0)),
    "flight without launch": ("flight", _set("turn_launches", 0)),
    "flag not bool": ("flight", _set("turn_regular", 1)),
    "summoned before regular": ("extra", _set("turn_regular", False)),
    "over before round 3": ("over", _set("round", 2)),
    "dice on machine after the game": ("over", _item("on_table", 0, 1)),
    "turn data outside a turn": ("round_end", _set("turn_launches", 1)),
}


@pytest.mark.parametrize("case", sorted(RULE_BREAKS))
def test_from_dict_rejects_impossible_states(case):
    """Setup, Gameplay, Monsters, Clues, The Summoning Circle, Round End: saved
    states that break those rules are refused with RuleError."""
    base, mutate = RULE_BREAKS[case]
    d = copy.deepcopy(STATES[base])
    if mutate is None:
        d = [d]
    else:
        mutate(d)
    with pytest.raises(RuleError):
        HauntedHouse.from_dict(CFG, d)


def test_public_view_hides_clue_values():
    """Clues: values are secret until the game ends; the public view shows only counts."""
    g = new_game(CFG, 2, front=[5, 4, 3, 2, 1, 1])
    turn(g, [("clue_taken", "clue_top_left")])
    pub = g.to_public_dict()
    text = json.dumps(pub)
    assert "deck" not in pub and "clues" not in pub
    assert pub["deck_left"] == 19 and pub["clue_counts"] == [1, 0]
    assert all(v in (True, False) for v in pub["spots"].values())
    assert "4" not in text.split('"spots"')[1].split("}")[0]
    assert g.to_dict()["clues"] == [[5], []]


def test_to_dict_does_not_alias_state():
    """Persistence: the saved dict is a copy; editing it never changes the game."""
    g = new_game(CFG, 2)
    turn(g, [("monster_hit", "bob"), ("clue_taken", "clue_top_left")])
    d = g.to_dict()
    d["dice_left"][0] = 0
    d["hits"][0][0].append("medusa")
    d["clues"][0].append(99)
    d["monsters"]["bob"] = "bottom"
    assert g.to_dict() != d
    assert g.dice_left[0] == 3 and g.monsters["bob"] == "top"


@pytest.mark.parametrize("path,value", [
    (("rounds",), 0), (("dice_per_player",), "4"), (("monster_scores",), [0, 2, 5]),
    (("realms", 0, "multiplier"), 0), (("monsters", 0, "home"), "roof"),
    (("colours",), ["red", "red"]), (("clue_deck", 0), -1), (("max_players",), 9),
    (("rotate_start_player",), 1), (("monsters", 1, "spots", "top"), "medusa_top")])
def test_config_rejects_bad_data(path, value):
    """Components: the data file must describe a playable machine."""
    cfg = copy.deepcopy(CFG)
    node = cfg
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    with pytest.raises(RuleError):
        HHConfig(cfg)
    cfg = copy.deepcopy(CFG)
    del cfg["levels"]
    with pytest.raises(RuleError):
        HHConfig(cfg)
    with pytest.raises(RuleError):
        HHConfig([])


GARBAGE_PARTS = ["launch", "end_turn", "monster_hit", "clue_taken", "circle", "hole",
                 "die_result", "die_lost", "score_round", "off_table", "bob", "ravens",
                 "clue_top_left", 0, 1, 3, 6, 7, -1, None, True, 2.5, [], [1], {}, ("x",)]


@pytest.mark.parametrize("name", sorted(STATES))
def test_malformed_actions_raise_rule_error_only(name):
    """Gameplay / Round End: malformed sensor or player input is refused with
    RuleError (never another exception) and leaves the state untouched."""
    rng = Rng(77)
    g = HauntedHouse.from_dict(CFG, copy.deepcopy(STATES[name]))
    legal = g.legal_actions()
    for _ in range(400):
        k = 1 + rng.below(4)
        action = tuple(GARBAGE_PARTS[rng.below(len(GARBAGE_PARTS))] for _ in range(k))
        before = g.to_dict()
        if action in legal:
            continue
        with pytest.raises(RuleError):
            g.apply(action)
        assert g.to_dict() == before
    for bad in (None, 5, "launch", [], {}, ()):
        with pytest.raises(RuleError):
            g.apply(bad)
