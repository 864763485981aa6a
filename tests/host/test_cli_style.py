"""One CLI style for `play`, `stats` and `sim` across games (issue 20, item 10).

The same flags mean the same things (`--players` seats in total, `--humans`
the people among them, `--policy` the bots', `--games` with a default); the
old spellings still work with one deprecation line; `q` quits every game
with exit 0 and a one-line goodbye; every usage error is one line with a
non-zero exit; `--help` lists the exit codes.
"""
from __future__ import annotations

import io

import pytest

from hauntbox import play_beetlejuice, play_superskill, stats_beetlejuice, stats_superskill
from hauntbox.cli import main as hauntbox

COMMANDS = [["play", "beetlejuice"], ["play", "superskill"], ["stats", "beetlejuice"],
            ["stats", "superskill"], ["sim"]]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_help_lists_the_exit_codes_and_the_common_flags(cmd, capsys):
    assert hauntbox(cmd + ["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "exit codes: 0" in out and "2 bad options" in out and "130" in out
    for flag in ("--players", "--policy", "--seed"):
        assert flag in out, flag
    if cmd[0] == "play":
        assert "--humans" in out and "q quit" in out.replace("=", "").replace("  ", " ")
    if cmd[0] == "stats":
        assert "--games" in out and "default 1000" in out


@pytest.mark.parametrize("cmd,bad", [
    (["play", "beetlejuice"], ["--players", "9"]),
    (["play", "beetlejuice"], ["--policy", "oracle"]),
    (["play", "superskill"], ["--players", "5"]),
    (["play", "superskill"], ["--humans", "3", "--players", "2"]),
    (["stats", "beetlejuice"], ["--games", "0"]),
    (["stats", "superskill"], ["--policy", "psychic"]),
    (["stats", "superskill"], ["--frobnicate"]),
    (["sim"], ["--game", "beetlejuice", "--policy", "bold"]),
])
def test_a_usage_error_is_one_line_with_exit_2(cmd, bad, capsys):
    assert hauntbox(cmd + bad) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("hauntbox "), err
    assert "usage:" not in err


def _bj(argv, lines):
    feed = iter(lines)
    out: list[str] = []

    def ask(prompt):
        out.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None
    return play_beetlejuice.main(argv, ask=ask, say=out.append), out


def test_q_quits_beetlejuice_with_exit_0_and_one_line():
    rc, out = _bj(["--seed", "5"], ["q"])
    assert rc == 0
    assert out[-1] == "Goodbye: the game is left unfinished."
    assert any("q = quit" in x for x in out)             # said at the prompt


def test_q_quits_superskill_with_exit_0_and_one_line(tmp_path):
    out = io.StringIO()
    rc = play_superskill.main(["--seed", "1", "--scores", str(tmp_path / "s.json")],
                              stdin=io.StringIO("q\n"), stdout=out)
    assert rc == 0
    assert out.getvalue().rstrip().splitlines()[-1] == "Goodbye: game abandoned, nothing recorded."
    assert play_superskill.KEYS in out.getvalue()          # b, + and q explained


def test_superskills_error_stays_under_the_prompt(tmp_path):
    """A wrong answer is said under the prompt; the (long) move list is not printed again."""
    out = io.StringIO()
    play_superskill.main(["--seed", "1", "--scores", str(tmp_path / "s.json")],
                         stdin=io.StringIO("zz\n999\nq\n"), stdout=out)
    text = out.getvalue()
    assert text.count("  1) ") == 1, text                  # listed once
    lines = text.splitlines()
    err = [i for i, x in enumerate(lines) if "'zz' is not a move" in x]
    assert err and "'999' is not a move" in lines[err[0] + 1]


def test_players_means_seats_in_both_games(tmp_path):
    rc, out = _bj(["--players", "3", "--humans", "0", "--seed", "2", "--policy", "random"], [])
    assert rc == 0 and out[0].count("random bot") == 3
    text = io.StringIO()
    rc = play_superskill.main(["--players", "2", "--humans", "0", "--seed", "2",
                               "--policy", "greedy,random"], stdin=io.StringIO(""), stdout=text)
    assert rc == 0 and "players: Bot 1, Bot 2" in text.getvalue()


def test_old_spellings_still_work_with_one_deprecation_line(tmp_path, capsys):
    rc, out = _bj(["--players", "2", "--humans", "0", "--seed", "2", "--bot", "random"], [])
    assert rc == 0
    assert capsys.readouterr().err == ("hauntbox play beetlejuice: --bot is now --policy "
                                       "(the old name still works, for now)\n")
    a = play_superskill.parse_args(["--names", "Ann,Bob", "--bots", "1", "--bot-policy", "greedy"])
    assert (a.players, a.humans, a.human_names, a.bot_names, a.policy) == (
        3, 2, ["Ann", "Bob"], ["Bot 1"], ["greedy"])
    err = capsys.readouterr().err.splitlines()
    assert err == ["hauntbox play superskill: --bot-policy is now --policy (the old name still "
                   "works, for now)",
                   "hauntbox play superskill: --bots is now --players TOTAL --humans H (here: "
                   "--players 3 --humans 2; the old form still works, for now)"]
    a = stats_beetlejuice.parse_args(["--policies", "random"])
    assert a.policy_list == ["random"] and a.games == 1000
    assert "--policies is now --policy" in capsys.readouterr().err
    assert stats_superskill.parse_args([]).games == 1000
