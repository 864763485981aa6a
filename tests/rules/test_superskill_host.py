"""Super-Skill Pinball host tools: bots, the stats command, terminal play, high scores.

Sections cited: "End of Game" / "Victory" (games end, scores valid, winners),
"Ending the Game" (record a high score), "Score Board" (achievements per Pin).
"""
import io
import json
import statistics

import pytest

from hauntbox import bots_superskill as bots
from hauntbox import play_superskill as play
from hauntbox import stats_superskill as stats

CFG = bots.load_table("starfleet-academy")


def _games(policy, n, players=1, first=1):
    out = []
    for s in range(first, first + n):
        pols = [bots.make_policy(policy, s * 10 + k) for k in range(players)]
        g = bots.play_game(CFG, pols, s)
        stats.check_finished(g)
        out.append(g)
    return out


def test_end_of_game_greedy_bot_games_terminate_with_valid_scores():
    """End of Game: 120 greedy bot games all finish three rounds with valid scores."""
    games = _games("greedy", 120)
    sc = [g.players[0].stars for g in games]
    assert all(g.players[0].round == 3 and g.players[0].done for g in games)
    assert min(sc) >= 0 and statistics.mean(sc) > 50


def test_end_of_game_lookahead_bot_games_terminate_and_beat_random():
    """End of Game: look-ahead bot games finish; bots score far above random play."""
    look = [g.players[0].stars for g in _games("lookahead", 50, first=500)]
    rand = [g.players[0].stars for g in _games("random", 100, first=500)]
    greedy = [g.players[0].stars for g in _games("greedy", 50, first=500)]
    assert statistics.mean(look) > statistics.mean(rand) + 30
    assert statistics.mean(greedy) > statistics.mean(rand) + 30
    # the 2d6 look-ahead is at least as good as greedy on these seeds
    assert statistics.mean(look) >= statistics.mean(greedy) - 2


def test_victory_multiplayer_bot_games():
    """Victory: several bots share the rolls; the winners hold the top score."""
    for g in _games("greedy", 20, players=3, first=900):
        best = max(ps.stars for ps in g.players)
        assert g.winners() and all(g.players[p].stars == best for p in g.winners())


def test_bot_only_chooses_legal_actions():
    """Details of Play: a bot's choice is always one of the legal actions."""
    g = bots.play_game(CFG, [bots.greedy_policy], 3, on_effects=None)
    assert g.is_over()
    seen = []

    def pol(game):
        a = bots.lookahead_policy(game)
        assert a in game.legal_actions()
        seen.append(a)
        return a
    bots.play_game(CFG, [pol], 4)
    assert len(seen) > 20


def test_stats_command_report_and_png(tmp_path, capsys):
    """Stats: `stats superskill` prints the distribution and writes a PNG histogram."""
    png = tmp_path / "h.png"
    rc = stats.main(["--table", "starfleet-academy", "--games", "12", "--seed", "5",
                     "--png", str(png), "--policy", "greedy"])
    out, err = capsys.readouterr()
    assert rc == 0
    assert "stars: mean" in out and "score histogram" in out and "12 games" in out
    assert "12/12 games" in err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_stats_run_numbers_and_errors(capsys):
    """Stats: numbers per game; an unknown table is an error exit."""
    st = stats.run("starfleet-academy", 6, 1, "lookahead", players=2)
    assert len(st["scores"]) == 12 and len(st["rolls"]) == 6
    h2h = stats.run("starfleet-academy", 8, 3, ["greedy", "random"], players=2)
    assert h2h["seats"] == ["greedy", "random"] and abs(sum(h2h["seat_wins"]) - 8) < 1e-9
    assert statistics.mean(h2h["seat_scores"][0]) > statistics.mean(h2h["seat_scores"][1])
    assert stats.main(["--table", "no-such-table", "--games", "1", "--quiet"]) == 2
    with pytest.raises(SystemExit):
        stats.main(["--policy", "greedy,psychic"])
    with pytest.raises(SystemExit):
        stats.main(["--games", "0"])


def _play(argv, answers, tmp_path):
    out = io.StringIO()
    rc = play.main(argv + ["--scores", str(tmp_path / "scores.json")],
                   stdin=io.StringIO(answers), stdout=out)
    return rc, out.getvalue()


def test_play_solo_to_the_end_records_high_score(tmp_path):
    """Ending the Game: if you set a high score, record it (solo terminal game)."""
    rc, out = _play(["--seed", "3"], "1\n" * 3000, tmp_path)
    assert rc == 0
    assert "=== GAME OVER ===" in out and "Winner: Player 1" in out
    assert "Kobayashi Maru" in out and "Round" in out and "Skill Shots" in out
    data = json.loads((tmp_path / "scores.json").read_text())
    hs = data["tables"]["starfleet-academy"]["high_scores"]
    assert len(hs) == 1 and hs[0]["name"] == "Player 1"
    # a second game adds to the list, best first
    rc, out = _play(["--seed", "4", "--names", "Zoe"], "1\n" * 3000, tmp_path)
    hs = json.loads((tmp_path / "scores.json").read_text())["tables"]["starfleet-academy"][
        "high_scores"]
    assert rc == 0 and len(hs) == 2 and hs[0]["stars"] >= hs[1]["stars"]


def test_play_lists_legal_moves_for_the_roll(tmp_path):
    """Step 2: the terminal shows the legal moves for the current roll."""
    rc, out = _play(["--seed", "1", "--dice", "manual"], "1 4\n+\nq\n", tmp_path)
    assert rc == 0 and "Goodbye: game abandoned, nothing recorded." in out
    assert "roll 1 and 4" in out
    assert "die 1 -> Command [1/2]" in out and "die 4 -> Red Flipper [4/5]" in out
    assert "nudge" in out                       # the + listing shows nudge moves
    assert not (tmp_path / "scores.json").exists()


def test_play_several_players_with_bot(tmp_path):
    """Rounds and Turns: humans and a bot share each roll in the terminal game."""
    rc, out = _play(["--seed", "8", "--names", "Ann,Bob", "--bots", "1",
                     "--bot-policy", "greedy"], "1\n" * 6000, tmp_path)
    assert rc == 0
    assert "Ann - roll" in out and "Bob - roll" in out and "Bot 1: die" in out
    hs = json.loads((tmp_path / "scores.json").read_text())["tables"]["starfleet-academy"][
        "high_scores"]
    assert sorted(e["name"] for e in hs) == ["Ann", "Bob"]     # bots are not recorded


def test_play_bad_input_is_asked_again(tmp_path):
    """Step 1: a typed roll must be two dice from 1 to 6."""
    rc, out = _play(["--dice", "manual"], "9 9\nx\n2 2\nzz\n99\nq\n", tmp_path)
    assert rc == 0
    assert "two numbers from 1 to 6" in out and "enter one of the numbers" in out


def test_high_scores_top_ten_and_achievements_once(tmp_path):
    """Score Board: high scores per Pin (top ten) and an achievements checklist."""
    g = bots.play_game(CFG, [bots.greedy_policy], 2)
    g.players[0].x.update({"km": 2, "km_mb": 0, "best": 12})
    data = {"version": 1, "tables": {}}
    for i in range(12):
        g.players[0].stars = 10 * i
        ranks, new = play.record_game(data, g, ["Kirk"], [True], "2024-01-01")
        if i == 0:
            assert set(new) == {"km", "km_twice", "bumper_streak"}
        else:
            assert new == []
    tab = data["tables"]["starfleet-academy"]
    assert [e["stars"] for e in tab["high_scores"]] == [110, 100, 90, 80, 70, 60, 50, 40, 30, 20]
    assert ranks == [1]
    path = tmp_path / "s" / "scores.json"
    play.save_scores(path, data)
    assert play.load_scores(path, io.StringIO()) == data


def test_corrupt_scores_file_is_replaced(tmp_path):
    """Ending the Game: an unreadable high-score file does not stop the game."""
    p = tmp_path / "scores.json"
    p.write_text("{not json")
    err = io.StringIO()
    assert play.load_scores(p, err) == {"version": 1, "tables": {}}
    assert "ignoring" in err.getvalue()
