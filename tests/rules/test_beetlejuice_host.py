"""Watch Out Beetlejuice host tools: bots, stats command and terminal play."""
import io
import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hauntbox import bots_beetlejuice as bots
from hauntbox import play_beetlejuice, stats_beetlejuice
from rules.beetlejuice import BeetlejuiceGame
from rules.rng import Rng

ROOT = Path(__file__).resolve().parents[2]
CFG = bots.load_config()


def fresh(players=2, slots=("r01", "r11", "r21")):
    g = BeetlejuiceGame(CFG, players)
    for c in slots:
        g.apply(("draw_house", c))
    return g


def craft(g, **changes):
    d = g.to_dict()
    d.update(changes)
    return BeetlejuiceGame.from_dict(CFG, d)


# ---- probability model ----------------------------------------------------------

def test_plan_odds_exact_small_cases():
    """The heuristic's odds model: exact values for tiny cases."""
    assert bots.plan_odds((1,), False, 1, 0, 3, 1) == pytest.approx((1 / 6, 0.0))
    assert bots.plan_odds((1,), False, 1, 2, 3, 1) == pytest.approx((1 / 6, 1 / 6))
    # two rolls at one missing symbol with one die: 1/6 + 5/6 * ... (bj dice stay)
    s, t = bots.plan_odds((1,), False, 1, 0, 3, 2)
    assert s == pytest.approx(1 / 6 + 4 / 6 * 1 / 6) and t == 0.0
    # with two dice the success chance is 1 - (5/6)^2 on one roll
    assert bots.plan_odds((1,), False, 2, 0, 3, 1)[0] == pytest.approx(1 - (5 / 6) ** 2)
    # the Handbook also needs a Beetlejuice symbol
    assert bots.plan_odds((), True, 1, 0, 3, 1) == pytest.approx((1 / 6, 0.0))


def test_plan_odds_matches_simulation():
    """The odds model agrees with a Monte Carlo of the keep-what-matches policy."""
    rng = Rng(5)
    missing, free, bj, thr, rolls = (3, 1), 6, 1, 3, 2
    want_s, want_t = bots.plan_odds(missing, False, free, bj, thr, rolls)
    n, succ, trig = 20000, 0, 0
    for _ in range(n):
        m, f, b = list(missing), free, bj
        for _ in range(rolls):
            faces = [rng.below(6) for _ in range(f)]  # 0,1 = needed symbols, 5 = bj
            b += faces.count(5)
            if b >= thr:
                trig += 1
                break
            used = 0
            for k in range(len(m)):
                got = min(faces.count(k), m[k])
                m[k] -= got
                used += got
            f -= used + faces.count(5)
            if not any(m):
                succ += 1
                break
    assert succ / n == pytest.approx(want_s, abs=0.015)
    assert trig / n == pytest.approx(want_t, abs=0.015)


# ---- heuristic choices -------------------------------------------------------------

def test_heuristic_stops_on_a_good_hand_with_two_beetlejuices():
    """Heuristic: with a scared Resident and two Beetlejuice symbols showing, stop."""
    g = fresh()
    g.apply(("roll", ("roach", "roach", "roach", "bj", "bj", "adam", "corpse", "barbara")))
    assert bots.HeuristicBot().choose(g) == ("stop",)


def test_heuristic_keeps_matching_dice():
    """Heuristic: keep the dice that build toward a Resident, reroll the rest."""
    g = fresh(slots=("r41", "r42", "r43"))  # 4x roach / 4x ghost / 4x corpse
    g.apply(("roll", ("roach", "roach", "roach", "adam", "barbara", "adam", "barbara", "ghost")))
    a = bots.HeuristicBot().choose(g)
    assert a[0] == "reroll" and not {0, 1, 2} & set(a[1])


def test_heuristic_hands_two_skull_card_to_the_leader():
    """Heuristic: the 2-skull card goes to the opponent with the most points."""
    g = fresh(players=3)
    d = g.to_dict()
    g = craft(g, bj_up=True, held=[["b14", "b19"], [], []], won=[[], [], ["r41"]],
              bj_deck=[c for c in d["bj_deck"] if c not in ("b14", "b19")],
              house=[c for c in d["house"] if c != "r41"], phase="pass", dice=[], rolling=[])
    assert bots.HeuristicBot().choose(g) == ("pass", "b19", 2)  # remove 2 dice is worst


def test_heuristic_does_not_end_a_game_it_would_lose():
    """Heuristic: never collect the fifth Resident while behind on points."""
    g = fresh()
    d = g.to_dict()
    mine, theirs = ["r02", "r03", "r04", "r05"], ["r46", "r47", "r48", "r49"]
    g = craft(g, won=[mine, theirs], house=[c for c in d["house"] if c not in mine + theirs])
    g.apply(("roll", ("roach",) * 3 + ("adam", "adam", "corpse", "barbara", "ghost")))
    g.apply(("stop",))
    assert bots.HeuristicBot().choose(g) == ("collect", ())


def test_random_bot_only_plays_legal_moves():
    g = fresh()
    g.apply(("roll", ("bj", "roach", "roach", "adam", "corpse", "barbara", "ghost", "ghost")))
    bot = bots.RandomBot(Rng(1))
    for _ in range(20):
        assert bot.choose(g) in g.legal_actions()


def test_heuristic_beats_random_clearly():
    """Heuristic vs random (seats alternate): the heuristic must win far more often."""
    wins = {"heuristic": 0.0, "random": 0.0}
    games = 120
    for i in range(games):
        pol = ["heuristic", "random"] if i % 2 == 0 else ["random", "heuristic"]
        r = bots.play_game(CFG, pol, 500 + i)
        for w in r["winners"]:
            wins[pol[w]] += 1 / len(r["winners"])
    assert wins["heuristic"] / games > 0.6
    assert wins["random"] / games < 0.1


def test_play_game_is_deterministic():
    a = bots.play_game(CFG, ["heuristic", "heuristic", "random"], 42)
    b = bots.play_game(CFG, ["heuristic", "heuristic", "random"], 42)
    assert a == b and a["result"] in ("bj", "players")


def test_unknown_policy():
    with pytest.raises(ValueError):
        bots.make_bot("genius", Rng(1))


# ---- stats -----------------------------------------------------------------------------

def test_stats_main_prints_report_and_png(tmp_path, capsys):
    png = tmp_path / "bj.png"
    rc = stats_beetlejuice.main(["--games", "40", "--seed", "3", "--players", "3",
                                 "--png", str(png)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "win rate by policy" in out and "seat 3" in out and "Beetlejuice wins" in out
    assert "game length in turns" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_stats_run_numbers_add_up():
    s = stats_beetlejuice.run(30, seed=9, players=2)
    total = sum(s["win_rate_by_policy"].values()) + s["bj_win_rate"]
    assert total == pytest.approx(1.0)
    assert sum(s["win_rate_by_seat"]) == pytest.approx(1.0 - s["bj_win_rate"])
    assert s["length_min"] <= s["length_median"] <= s["length_max"]
    assert len(s["lengths"]) == 30


def test_stats_rejects_bad_arguments():
    for argv in (["--games", "0"], ["--games", "5", "--players", "9"],
                 ["--games", "5", "--policy", "oracle"]):
        with pytest.raises(SystemExit):
            stats_beetlejuice.main(argv)


def test_stats_runs_as_a_module():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "host"))
    p = subprocess.run([sys.executable, "-m", "hauntbox.stats_beetlejuice", "--games", "5",
                        "--quiet"], capture_output=True, text=True, env=env, cwd=ROOT,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert "win rate by seat" in p.stdout


# ---- terminal play -------------------------------------------------------------------

def _play(argv, lines):
    feed = io.StringIO("".join(x + "\n" for x in lines))
    out = []

    def ask(prompt):
        out.append(prompt)
        line = feed.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")

    rc = play_beetlejuice.main(argv, ask=ask, say=out.append)
    return rc, "\n".join(out)


def test_play_bots_only_runs_to_the_end():
    rc, out = _play(["--humans", "0", "--players", "3", "--seed", "11", "--compare"], [])
    assert rc == 0 and "GAME OVER" in out and "Final scores" in out
    assert "Beetlejuice (" in out


def test_play_hot_seat_by_stdin():
    """Terminal play: residents, dice and kept dice are shown; blank lines stop/accept."""
    rc, out = _play(["--humans", "2", "--seed", "5"], ["r", "1 2"] + [""] * 3000)
    assert rc == 0 and "GAME OVER" in out
    assert "Residents:" in out and "Dice (roll 1/3" in out and "* = kept" in out
    assert re.search(r"\[1\] \d+ pts: ", out)       # a Resident, in words (no card id)
    assert not re.search(r"\b[rbh]\d\d?\b", out)


def test_play_input_ending_early_returns_1():
    rc, out = _play(["--seed", "5"], [])
    assert rc == 1 and "input ended" in out


def test_play_forced_die_message():
    """How to Play: keeping all but one die forces a kept die back into the reroll."""
    term_out = []
    g = fresh()
    g.apply(("roll", ("roach",) * 7 + ("ghost",)))
    answers = iter(["1 2 3 4 5 6 7"])
    t = play_beetlejuice.Terminal(lambda p: next(answers), term_out.append)
    assert t.decide(g, set()) == ("reroll", (6, 7))
    assert any("goes back in" in x for x in term_out)


def test_play_renders_cards_and_effects():
    g = fresh(slots=("h1", "r11", "r21"))
    g.apply(("roll", ("roach", "ghost", "corpse", "barbara", "adam", "bj", "ghost", "ghost")))
    text = play_beetlejuice.render(g, {0, 1})
    assert "Handbook for the Recently Deceased" in text
    assert "3x Cockroach Swarm or 3x Ghostly Apparition" in text
    assert "1:Roach*" in text and "6:BEETLEJUICE" in text and "1/3 Beetlejuice" in text
    assert play_beetlejuice.card_text(g, "b28").endswith("4 Beetlejuice symbols needed to banish")
    assert json.dumps(play_beetlejuice.effect_text(g, ("summoned",)))
