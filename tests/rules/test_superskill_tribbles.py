"""The Trouble with Tribbles: special rules and the rulebook's worked examples.

Sections cited: "The Trouble with Tribbles Special Rules" (Tribble Track,
DOUBLES, hand icons, the X, Pet, Tribble Scoops, Klingon Spinner, Drop
Targets, HISS Bonuses, PURR Bonuses, Transporter Bumpers) and the Score Board
("The Trouble with Tribbles Achievements"). Layout details the rulebook does
not print are in docs/assumptions/superskill.md.
"""
import json
from pathlib import Path

import pytest

from rules.errors import CHANCE, RuleError
from rules.superskill import START, SuperSkillGame
from rules.superskill import tribbles as tr

ROOT = Path(__file__).resolve().parents[2]
CFG = json.loads((ROOT / "firmware/data/superskill/tribbles.json").read_text())
TRACK = CFG["tribbles"]["track"]


def new(n=1):
    return SuperSkillGame(CFG, n)


def setup(g, p=0, x=None, filled=None, **fields):
    """Rebuild from the saved state with some of player p's fields changed."""
    d = g.to_dict()
    pd = d["players"][p]
    for fid, row in (filled or {}).items():
        pd["filled"][fid] = list(row)
    for k, v in (x or {}).items():
        pd["x"][k] = v
    for k, v in fields.items():
        pd[k] = v
    return SuperSkillGame.from_dict(CFG, d)


def space(kind):
    """Index (tribble count) of the first track space of this kind."""
    for i, sp in enumerate(TRACK):
        if sp == kind:
            return i + 1
    raise AssertionError(kind)


def plain(g):
    return [a for a in g.legal_actions() if a[0] in ("fill", "through") and a[3] == 0 and a[4] == 0]


# ---- the table -------------------------------------------------------------------

def test_table_contents_match_rulebook():
    """The Trouble with Tribbles: PET (3), Transporter Bumpers (6), Klingon Spinner (6),
    Tribble Scoops (6), HISS (3), PURR (3); the Backglass has the Tribble Track."""
    t = new().table
    sizes = {s.id: sum(t.fmap[f].nbox for f in s.features) for s in t.sets}
    assert sizes == {"pet": 3, "transporter": 6, "spinner": 6, "scoops": 6, "hiss": 3, "purr": 3}
    assert t.fmap["hiss"].colour == "yellow" and t.fmap["purr"].colour == "red"
    assert TRACK[-1] == "x" and TRACK.count("x") == 1 and "h" in TRACK
    assert t.rounds == 3


# ---- Tribble Track -----------------------------------------------------------------

def test_tribble_track_scoring_example_three_stars():
    """Tribble Track worked example: the last filled tribble shows a 3-star icon,
    Score Tribbles scores three stars."""
    three = TRACK.index(3) + 1
    g = setup(new(), x={"n": three}, filled={"hiss": [1, 1, 0]}, balls=["flipper_yellow", None])
    g.apply(("roll", 5, 1))
    g.apply(("fill", 0, 0, 0, 0, "hiss", 2))       # completes HISS (+1 star)
    assert g.phase == "bonus"
    eff = g.apply(("bonus", "hiss", "score_tribbles"))
    assert ("stars", 0, 3, "score_tribbles") in eff
    assert g.players[0].stars == 1 + 3
    assert g.players[0].x["scored"] == 1   # the dashed Tribble Scored box


def test_tribble_track_last_space_not_a_star_scores_nothing():
    """Tribble Track: if the last filled tribble is anything but a star, no stars."""
    blank = space("h")
    g = setup(new(), x={"n": blank}, filled={"hiss": [1, 1, 0]}, balls=["flipper_yellow", None])
    g.apply(("roll", 5, 1))
    g.apply(("fill", 0, 0, 0, 0, "hiss", 2))
    g.apply(("bonus", "hiss", "score_tribbles"))
    assert g.players[0].stars == 1


def test_tribble_track_star_spaces_not_scored_when_filled():
    """Tribble Track: filling a tribble with a star does not score that star."""
    g = new(2)
    g.apply(("roll", 4, 4))        # doubles: 4 tribbles each, spaces 1-4 hold a 1-star
    assert [ps.x["n"] for ps in g.players] == [4, 4]
    assert [ps.stars for ps in g.players] == [0, 0]


def test_doubles_every_player_gains_tribbles_example():
    """DOUBLES example: the roll is 3 and 3; all players gain 3 tribbles."""
    g = new(3)
    eff = g.apply(("roll", 3, 3))
    assert [ps.x["n"] for ps in g.players] == [3, 3, 3]
    assert [e for e in eff if e[0] == "tribbles"] == [("tribbles", p, 3, 3) for p in range(3)]
    # no doubles, no tribbles
    g.apply(g.legal_actions()[0])
    while g.to_act != CHANCE:
        g.apply(g.legal_actions()[0])
    g.apply(("roll", 2, 3))
    assert [ps.x["n"] for ps in g.players] == [3, 3, 3]


def test_doubles_gained_before_any_choice_nudge_cannot_avoid():
    """DOUBLES: a Nudge or Skill Shot cannot avoid the doubles tribbles (they come with the roll)."""
    g = setup(new(), skills=[1, 2, 3])
    eff = g.apply(("roll", 2, 2))
    assert ("tribbles", 0, 2, 2) in eff and g.phase == "move"
    # the player may still use a Skill Shot for the move itself
    assert any(a[0] == "fill" and a[3] == 3 for a in g.legal_actions())


def test_hand_space_forces_a_flipper_zone_box_without_stars():
    """Hand icon: immediately fill a Flipper Zone box; an Inlane or Outlane gives no stars."""
    hand = space("h")
    g = setup(new(), x={"n": hand - 1})
    g.apply(("roll", 1, 1))          # doubles of 1: the next space is a hand
    assert g.players[0].x["n"] == hand
    assert g.phase == "choice"
    acts = g.legal_actions()
    assert ("choose", "hand", "inlane_l", 0) in acts and ("choose", "hand", "outlane_r", 0) in acts
    assert ("choose", "hand", "flipper_red", 0) in acts
    eff = g.apply(("choose", "hand", "inlane_l", 0))
    assert g.players[0].filled["inlane_l"] == [1]
    assert g.players[0].stars == 0 and not [e for e in eff if e[0] == "stars"]
    assert g.players[0].balls == [START, None]   # the ball did not move
    # an outlane filled this way does not lose the ball either
    g = setup(new(), x={"n": hand - 1})
    g.apply(("roll", 1, 1))
    g.apply(("choose", "hand", "outlane_l", 0))
    assert g.players[0].balls == [START, None] and g.players[0].stars == 0


def test_hand_space_without_free_flipper_box_has_no_effect():
    """Hand icon: if you have no Flipper boxes to fill, there is no effect."""
    hand = space("h")
    full = {f: [1] * len(r) for f, r in new().players[0].filled.items()
            if new().table.fmap[f].zone == "flipper"}
    g = setup(new(), x={"n": hand - 1}, filled=full)
    eff = g.apply(("roll", 1, 1))
    assert ("no_choice", 0, "hand") in eff and g.phase == "move"


def test_the_x_ends_the_round_immediately():
    """The X: filling the last Tribble Track box ends the round at once."""
    last = len(TRACK)
    g = setup(new(), x={"n": last - 2}, balls=["trans12", None])
    eff = g.apply(("roll", 2, 2))
    assert ("tribble_x", 0) in eff
    assert ("round_end", 0, 1) in eff and g.players[0].round == 2
    assert g.players[0].balls == [START, None] and g.players[0].x["n"] == last
    assert g.phase == "roll"      # the new ball waits for the next roll


def test_cannot_lose_more_tribbles_than_you_have():
    """Tribble Track: you cannot make a choice that would lose more tribbles than you have."""
    g = setup(new(), x={"n": 2})
    g.apply(("roll", 5, 6))
    g.apply(("fill", 0, 0, 0, 0, "scoops", 4))
    assert g.players[0].x["n"] == 7          # 5 > 2: filled, no erase offered


# ---- Pet -----------------------------------------------------------------------------

def test_pet_start_arrow_launches_into_pet_and_skill_shot():
    """Pet: the Start Arrow launches the ball into PET; all three boxes give a Skill Shot."""
    g = setup(new(), filled={"pet": [1, 1, 0]})
    g.apply(("roll", 5, 2))
    assert ("fill", 0, 0, 0, 0, "pet", 2) in g.legal_actions()
    g.apply(("fill", 0, 0, 0, 0, "pet", 2))
    assert g.phase == "skill"
    g.apply(("skill", 2))
    assert g.players[0].skills == [2] and g.players[0].filled["pet"] == [0, 0, 0]


def test_pet_reachable_from_red_flipper_only():
    """Pet: the Red Flipper can shoot the ball back to PET (the Yellow one cannot)."""
    g = setup(new(), balls=["flipper_red", None])
    g.apply(("roll", 1, 5))
    assert "pet" in {a[5] for a in plain(g) if a[0] == "fill"}
    g = setup(new(), balls=["flipper_yellow", None])
    g.apply(("roll", 1, 5))
    assert "pet" not in {a[5] for a in plain(g) if a[0] == "fill"}


# ---- Tribble Scoops --------------------------------------------------------------------

def test_scoop_example_three_or_fewer_must_fill_four():
    """Tribble Scoops example: roll 4 and 6, the 4 Scoop scores four stars; with
    three or fewer tribbles you must fill in four (you cannot erase)."""
    for have in (0, 1, 2, 3):
        g = setup(new(), x={"n": have})
        g.apply(("roll", 4, 6))
        eff = g.apply(("fill", 0, 0, 0, 0, "scoops", 3))
        assert ("stars", 0, 4, "scoops") in eff
        assert g.players[0].x["n"] == have + 4
        assert ("tribbles", 0, 4, have + 4) in eff
        assert not any(a == ("choose", "scoop", "erase") for a in g.legal_actions())


def test_scoop_with_enough_tribbles_fill_or_erase():
    """Tribble Scoops: with enough tribbles you choose to fill or erase that many."""
    g = setup(new(), x={"n": 9})
    g.apply(("roll", 4, 6))
    g.apply(("fill", 0, 0, 0, 0, "scoops", 3))
    assert g.phase == "choice"
    assert g.legal_actions() == [("choose", "scoop", "fill"), ("choose", "scoop", "erase")]
    g.apply(("choose", "scoop", "erase"))
    assert g.players[0].x["n"] == 5 and g.players[0].stars == 4


def test_scoops_reachable_from_either_flipper_and_erased_when_full():
    """Tribble Scoops: reached from the Red or Yellow Flipper; all six filled are erased."""
    for flip in ("flipper_red", "flipper_yellow"):
        g = setup(new(), balls=[flip, None], filled={"scoops": [1, 1, 1, 1, 1, 0]})
        g.apply(("roll", 6, 1))
        g.apply(("fill", 0, 0, 0, 0, "scoops", 5))
        assert g.players[0].filled["scoops"] == [0] * 6


# ---- Klingon Spinner -------------------------------------------------------------------

def test_spinner_example_unchosen_die_scores():
    """Klingon Spinner example: roll 3 and 5 through the Spinner using the 3: the 5
    box (unchosen die) is filled for five stars; the 3 fills a box in the next Zone."""
    g = setup(new(), balls=["flipper_red", None])
    g.apply(("roll", 3, 5))
    a = ("through", 0, 0, 0, 0, "spinner", 4, "scoops", 2)
    assert a in g.legal_actions()
    eff = g.apply(a)
    assert ("spin", 0, 0, "spinner", 5) in eff
    assert ("stars", 0, 5, "spinner") in eff and ("stars", 0, 3, "scoops") in eff
    ps = g.players[0]
    assert ps.filled["spinner"] == [0, 0, 0, 0, 1, 0]
    assert ps.balls[0] == "scoops"     # never stops in the spinner


def test_spinner_box_already_filled_passes_without_stars():
    """Klingon Spinner example: if the 5 was already filled, the ball still passes, no stars."""
    g = setup(new(), balls=["flipper_red", None], filled={"spinner": [0, 0, 0, 0, 1, 0]})
    g.apply(("roll", 3, 5))
    acts = g.legal_actions()
    assert ("through", 0, 0, 0, 0, "spinner", -1, "scoops", 2) in acts
    assert not any(a[0] == "through" and a[6] >= 0 and a[2] == 0 for a in acts)
    eff = g.apply(("through", 0, 0, 0, 0, "spinner", -1, "scoops", 2))
    assert [e for e in eff if e[0] == "stars"] == [("stars", 0, 3, "scoops")]


def test_spinner_only_from_red_flipper_and_only_upwards():
    """Klingon Spinner: reached from the Red Flipper only, never stopped in, only passed
    when coming up from a Flipper; the ball proceeds to a Zone above the Spinner."""
    g = setup(new(), balls=["flipper_yellow", None])
    g.apply(("roll", 3, 5))
    assert not any(a[0] == "through" for a in g.legal_actions())
    g = setup(new(), balls=["purr", None])       # coming down from above
    g.apply(("roll", 3, 5))
    assert not any(a[0] == "through" or (a[0] == "fill" and a[5] == "spinner")
                   for a in g.legal_actions())
    g = setup(new(), balls=["flipper_red", None])
    g.apply(("roll", 3, 5))
    lv = g.table.level("spinner")
    for a in g.legal_actions():
        if a[0] == "through":
            assert g.table.level(a[7]) < lv
        assert not (a[0] == "fill" and a[5] == "spinner")


def test_spinner_multiball_unchosen_die_of_this_ball():
    """Klingon Spinner NOTE: in Multiball the unchosen die for the spinning ball is the
    other die, even though the other ball uses it."""
    g = setup(new(), balls=["flipper_red", "flipper_yellow"], mb=True)
    g.apply(("roll", 3, 5))
    g.apply(("through", 0, 0, 0, 0, "spinner", 4, "scoops", 2))
    assert g.players[0].filled["spinner"][4] == 1
    assert g.players[0].todo == [1]
    assert all(a[0] != "fill" or a[2] == 1 for a in g.legal_actions())   # die 5 left


def test_spinner_set_erased_when_all_six_filled():
    """Klingon Spinner: if all six Spinner boxes are filled, the Set is erased."""
    g = setup(new(), balls=["flipper_red", None], filled={"spinner": [1, 1, 1, 1, 0, 1]})
    g.apply(("roll", 3, 5))
    eff = g.apply(("through", 0, 0, 0, 0, "spinner", 4, "scoops", 2))
    assert ("set_complete", 0, "spinner") in eff
    assert g.players[0].filled["spinner"] == [0] * 6


def test_spinner_may_be_skipped_and_unchosen_die_on_doubles():
    """Klingon Spinner: filling the box is optional ("you may"); on doubles the unchosen
    die shows the same number."""
    g = setup(new(), balls=["flipper_red", None])
    g.apply(("roll", 4, 4))
    acts = g.legal_actions()
    assert ("through", 0, 0, 0, 0, "spinner", 3, "scoops", 3) in acts
    assert ("through", 0, 0, 0, 0, "spinner", -1, "scoops", 3) in acts


# ---- Drop targets and bonuses ------------------------------------------------------------

def test_hiss_star_purr_two_tribbles():
    """Drop Targets: a Yellow HISS target gives a star; a Red PURR target no star, two tribbles."""
    g = setup(new(), balls=["flipper_yellow", None])
    g.apply(("roll", 1, 6))
    eff = g.apply(("fill", 0, 0, 0, 0, "hiss", 0))
    assert ("stars", 0, 1, "hiss") in eff
    g = setup(new(), balls=["flipper_red", None])
    g.apply(("roll", 6, 1))
    g.apply(("fill", 0, 0, 0, 0, "purr", 2))
    assert g.players[0].stars == 0 and g.players[0].x["n"] == 2


def test_purr_tribbles_before_score_tribbles():
    """PURR Bonuses note: gain the target's tribbles before applying Score Tribbles."""
    three = TRACK.index(3) + 1      # two more tribbles land on the 3-star space
    g = setup(new(), balls=["flipper_red", None], x={"n": three - 2},
              filled={"purr": [1, 1, 0]})
    g.apply(("roll", 5, 1))
    g.apply(("fill", 0, 0, 0, 0, "purr", 2))
    while g.phase == "choice":      # a hand on the way
        g.apply(g.legal_actions()[0])
    eff = g.apply(("bonus", "purr", "score_tribbles"))
    assert ("stars", 0, 3, "score_tribbles") in eff


def test_score_tribbles_once_per_round_tribble_scored_box():
    """Score Tribbles: the dashed Tribble Scored box allows it once per round (either menu)."""
    g = setup(new(), x={"n": 7, "scored": 1}, filled={"hiss": [1, 1, 0]},
              balls=["flipper_yellow", None])
    g.apply(("roll", 5, 1))
    g.apply(("fill", 0, 0, 0, 0, "hiss", 2))
    assert ("bonus", "hiss", "score_tribbles") not in g.legal_actions()
    assert g.legal_actions() == [("bonus", "hiss", o) for o in
                                 ("spinner_x3", "scoop_x3", "flipper_pass", "tribble_control")]


def test_score_tribbles_box_erased_at_round_end():
    """HISS Bonuses note: the Tribble Scored box is dashed, erased at the end of the Round."""
    g = setup(new(), x={"scored": 1, "nspin": 1, "nscoop": 1, "nbonus": 1},
              balls=["purr", None],
              filled={"flipper_red": [1, 1, 1], "flipper_yellow": [1, 1, 1], "inlane_l": [1],
                      "inlane_r": [1], "outlane_l": [1], "outlane_r": [1]})
    g.apply(("roll", 2, 3))
    assert ("drain", 0) in g.legal_actions()
    g.apply(("drain", 0))
    x = g.players[0].x
    assert g.players[0].round == 2
    assert (x["scored"], x["nspin"], x["nscoop"], x["nbonus"]) == (0, 0, 0, 0)


def test_hiss_next_spinner_and_scoop_x3():
    """HISS Bonuses: Next Spinner x3 and Next Tribble Scoop x3 (tribbles not tripled),
    each lasting until used."""
    g = setup(new(), balls=["flipper_red", None], x={"nspin": 1, "nscoop": 1})
    g.apply(("roll", 3, 5))
    eff = g.apply(("through", 0, 0, 0, 0, "spinner", 4, "scoops", 2))
    assert ("stars", 0, 15, "spinner") in eff and ("stars", 0, 9, "scoops") in eff
    x = g.players[0].x
    assert x["nspin"] == 0 and x["nscoop"] == 0 and x["n"] == 3    # tribbles not tripled
    # skipping the spinner box keeps the x3 for later
    g = setup(new(), balls=["flipper_red", None], x={"nspin": 1})
    g.apply(("roll", 3, 5))
    g.apply(("through", 0, 0, 0, 0, "spinner", -1, "scoops", 2))
    assert g.players[0].x["nspin"] == 1


def test_hiss_menu_choices_and_tribble_control():
    """HISS Bonuses: Tribble Control lets you decide on doubles whether to gain tribbles."""
    g = setup(new(), filled={"hiss": [1, 1, 0]}, balls=["flipper_yellow", None])
    g.apply(("roll", 5, 1))
    g.apply(("fill", 0, 0, 0, 0, "hiss", 2))
    ids = [a[2] for a in g.legal_actions()]
    assert ids == ["spinner_x3", "scoop_x3", "flipper_pass", "tribble_control", "score_tribbles"]
    g.apply(("bonus", "hiss", "tribble_control"))
    assert "hiss.tribble_control" in g.players[0].flags
    g.apply(("roll", 5, 5))
    assert g.phase == "choice"
    assert g.legal_actions() == [("choose", "doubles", "gain"), ("choose", "doubles", "skip")]
    g.apply(("choose", "doubles", "skip"))
    assert g.players[0].x["n"] == 0


def test_purr_multiball_available_twice_and_bonus_x2():
    """PURR Bonuses: Multiball x2 (available twice); Next Tribble Bonus x2 doubles the
    next Score Tribbles; all stars doubled in Multiball."""
    g = new()
    opts = [o.id for o in g.bonus_options(0, "purr")]
    assert opts == ["bumpers_x3", "multiball", "bonus_x2", "score_tribbles"]
    g = setup(g, taken=["purr.multiball"])
    assert "multiball" in [o.id for o in g.bonus_options(0, "purr")]
    g = setup(g, taken=["purr.multiball", "purr.multiball"])
    assert "multiball" not in [o.id for o in g.bonus_options(0, "purr")]
    three = TRACK.index(3) + 1
    g = setup(new(), x={"n": three, "nbonus": 1}, filled={"hiss": [1, 1, 0]},
              balls=["flipper_yellow", None])
    g.apply(("roll", 5, 1))
    g.apply(("fill", 0, 0, 0, 0, "hiss", 2))
    eff = g.apply(("bonus", "hiss", "score_tribbles"))
    assert ("stars", 0, 6, "score_tribbles") in eff and g.players[0].x["nbonus"] == 0


def test_purr_bumpers_x3():
    """PURR Bonuses: Bumpers x3 triples the Transporter bumper scores."""
    g = setup(new(), flags=["purr.bumpers_x3"], balls=["flipper_yellow", None])
    g.apply(("roll", 1, 6))
    eff = g.apply(("fill", 0, 0, 0, 0, "trans12", 0))
    assert ("stars", 0, 3, "trans12") in eff


def test_doubling_never_doubles_tribbles():
    """NOTE: bonuses that double or triple stars do not double tribble gains or losses."""
    g = setup(new(), mb=True, balls=["flipper_red", "flipper_yellow"])
    g.apply(("roll", 2, 5))
    g.apply(("fill", 0, 0, 0, 0, "purr", 0))
    assert g.players[0].x["n"] == 2


# ---- Transporter Bumpers ------------------------------------------------------------------

def transporter(players, n=10, done=()):
    g = new(players)
    d = g.to_dict()
    for q in done:
        pd = d["players"][q]
        pd.update({"done": True, "fin": 1, "balls": [None, None], "round": 3})
    pd = d["players"][0]
    pd["x"]["n"] = n
    pd["balls"] = ["flipper_yellow", None]
    pd["filled"].update({"trans12": [1, 1], "trans34": [1, 1], "trans56": [1, 0]})
    g = SuperSkillGame.from_dict(CFG, d)
    g.apply(("roll", 6, 2))
    eff = g.apply(("fill", 0, 0, 0, 0, "trans56", 1))
    return g, eff


def test_transporter_example_three_opponents_three_each():
    """Transporter Bumpers example: erase ten tribbles, Alice, Bob and Cathy get three each
    (one is lost); ten stars; the bumper boxes are erased."""
    g, eff = transporter(4)
    assert ("stars", 0, 10, "transporter") in eff
    assert g.phase == "choice" and g.legal_actions()[-1] == ("choose", "transport", 10)
    eff = g.apply(("choose", "transport", 10))
    assert ("transport", 0, 10, (1, 2, 3), 3) in eff
    assert [ps.x["n"] for ps in g.players] == [0, 3, 3, 3]
    assert all(v == [0, 0] for k, v in g.players[0].filled.items() if k.startswith("trans"))


def test_transporter_example_bob_finished_five_each():
    """Transporter Bumpers example: Bob has completed his third round: Alice and Cathy get five."""
    g, _ = transporter(4, done=(2,))
    eff = g.apply(("choose", "transport", 10))
    assert ("transport", 0, 10, (1, 3), 5) in eff
    assert [ps.x["n"] for ps in g.players] == [0, 5, 0, 5]


def test_transporter_example_only_alice_six_at_most():
    """Transporter Bumpers example: only Alice remains: she gets six, the most anyone can get."""
    g, _ = transporter(4, done=(2, 3))
    eff = g.apply(("choose", "transport", 10))
    assert ("transport", 0, 10, (1,), 6) in eff
    assert [ps.x["n"] for ps in g.players] == [0, 6, 0, 0]


def test_transporter_choice_zero_to_all_and_solo():
    """Transporter Bumpers: erase from zero to all your tribbles; solo they are sent away."""
    g, _ = transporter(1, n=7)
    assert g.legal_actions() == [("choose", "transport", k) for k in range(8)]
    eff = g.apply(("choose", "transport", 5))
    assert ("transport", 0, 5, (), 0) in eff and g.players[0].x["n"] == 2


def test_transporter_bumpers_from_yellow_flipper_then_scoops_or_below():
    """Transporter Bumpers: reached from the Yellow Flipper; one star a box; leaving the
    bumpers the ball goes to the Tribble Scoops or below."""
    g = setup(new(), balls=["flipper_red", None])
    g.apply(("roll", 1, 2))
    assert not any(a[5].startswith("trans") for a in plain(g) if a[0] == "fill")
    g = setup(new(), balls=["trans12", None])
    g.apply(("roll", 3, 1))
    where = {a[5] for a in plain(g) if a[0] == "fill"}
    assert "trans34" in where           # the arrow to the next bumper
    assert not where & {"pet", "hiss", "trans56"}
    zones = {g.table.fmap[f].zone for f in where - {"trans34"}}
    assert zones <= {"scoops", "flipper"}


def test_transporter_sending_can_end_an_opponents_round():
    """Transporter Bumpers: tribbles sent to an opponent fill their track (hands, the X)."""
    g = new(2)
    d = g.to_dict()
    d["players"][1]["x"]["n"] = len(TRACK) - 3
    d["players"][0]["x"]["n"] = 8
    d["players"][0]["balls"] = ["flipper_yellow", None]
    d["players"][0]["filled"].update({"trans12": [1, 1], "trans34": [1, 1], "trans56": [1, 0]})
    g = SuperSkillGame.from_dict(CFG, d)
    g.apply(("roll", 6, 2))
    g.apply(("fill", 0, 0, 0, 0, "trans56", 1))
    eff = g.apply(("choose", "transport", 8))
    assert ("tribble_x", 1) in eff and ("round_end", 1, 1) in eff
    assert g.players[1].round == 2 and g.players[0].x["ends"] == 1
    assert "send_end" in tr.achievements(g.players[0].x)


# ---- achievements ------------------------------------------------------------------------

def test_achievements_score_board():
    """Score Board - The Trouble with Tribbles Achievements: 30 and 60 Tribble Bonus, send
    tribbles making an opponent fill two or more flipper boxes, or end their round."""
    assert [a["name"] for a in CFG["achievements"]] == [
        "Score 30 Tribble Bonus", "Score 60 Tribble Bonus",
        "Send tribbles to an opponent causing them to fill two or more flipper boxes",
        "Send tribbles to an opponent causing them to end their round"]
    thirty = TRACK.index(30) + 1
    g = setup(new(), x={"n": thirty, "nbonus": 1}, filled={"hiss": [1, 1, 0]},
              balls=["flipper_yellow", None])
    g.apply(("roll", 5, 1))
    g.apply(("fill", 0, 0, 0, 0, "hiss", 2))
    g.apply(("bonus", "hiss", "score_tribbles"))
    assert g.players[0].x["best"] == 60
    assert tr.achievements(g.players[0].x) == ["score30", "score60"]
    # two hands sent to the opponent: two flipper boxes to fill
    hands = [i + 1 for i, sp in enumerate(TRACK) if sp == "h"]
    two = next(h for h in hands if h + 2 in hands)       # e.g. 30 and 32 (25 h 30 h ...)
    g = new(2)
    d = g.to_dict()
    d["players"][1]["x"]["n"] = two - 1
    d["players"][0]["x"]["n"] = 6
    d["players"][0]["balls"] = ["flipper_yellow", None]
    d["players"][0]["filled"].update({"trans12": [1, 1], "trans34": [1, 1], "trans56": [1, 0]})
    g = SuperSkillGame.from_dict(CFG, d)
    g.apply(("roll", 6, 2))
    g.apply(("fill", 0, 0, 0, 0, "trans56", 1))
    g.apply(("choose", "transport", 6))
    assert g.players[0].x["flips"] == 1
    assert tr.achievements(g.players[0].x) == ["send_flips"]
    # the opponent answers the two hand questions on their turn
    assert g.to_act == 1 and g.phase == "choice"


# ---- persistence ------------------------------------------------------------------------

def test_state_round_trip_and_validation():
    """Details of Play: a Tribbles game saves and restores; bad extra state is refused."""
    g = setup(new(2), x={"n": 5, "nspin": 1})
    d = json.loads(json.dumps(g.to_dict()))
    assert SuperSkillGame.from_dict(CFG, d).to_dict() == d
    for bad in ({"n": len(TRACK) + 1}, {"nspin": 2}, {"n": -1}, {"best": True}):
        d2 = json.loads(json.dumps(d))
        d2["players"][0]["x"].update(bad)
        with pytest.raises(RuleError):
            SuperSkillGame.from_dict(CFG, d2)
    d2 = json.loads(json.dumps(d))
    d2["players"][0]["taken"] = ["purr.multiball"] * 3
    with pytest.raises(RuleError):
        SuperSkillGame.from_dict(CFG, d2)
