"""`make sim` options that do not apply, or are out of range, are refused in
one line with exit 2, never a traceback and never a normal game (issue 20, item 6)."""
import pytest

from sim import cli
from sim import pty_board

BAD = [
    (["--fault", "stuck-beam:9"], "the staircase must be 1..4, not '9'"),
    (["--fault", "stuck-beam:0"], "the staircase must be 1..4, not '0'"),
    (["--fault", "stuck-beam:-1"], "the staircase must be 1..4, not '-1'"),
    (["--fault", "dead-beam:5"], "the staircase must be 1..4, not '5'"),
    (["--fault", "stuck-beam:x"], "the staircase must be 1..4, not 'x'"),
    (["--fault", "jam:3"], "jam takes no argument"),
    (["--fault", "sticky"], "unknown fault 'sticky' for Roller Ghoster"),
    (["--game", "haunted-house", "--fault", "expander-down:zzz@3+2"], "no expander 'zzz'"),
    (["--game", "haunted-house", "--fault", "expander-down:exp_a@x+2"], "whole numbers from 1"),
    (["--game", "haunted-house", "--fault", "jam"], "unknown fault 'jam' for Haunted House"),
    (["--game", "beetlejuice", "--view"], "--view draws Roller Ghoster and Haunted House only"),
    (["--game", "superskill", "--view"], "--view draws Roller Ghoster and Haunted House only"),
    (["--policy", "heuristic"], "--policy heuristic: roller-ghoster's bots play random | safe | bold"),
    (["--game", "superskill", "--policy", "lookahead,bold"], "superskill's bots play lookahead"),
    (["--game", "beetlejuice", "--fault", "jam"], "no faults are modelled for beetlejuice"),
]


@pytest.mark.parametrize("argv,said", BAD)
def test_a_bad_option_is_one_line_and_exit_2(argv, said, capsys):
    assert cli.main(argv + ["--quiet"]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_pty_link_in_a_missing_folder_is_one_line(capsys):
    assert pty_board.main(["--link", "/nonexistent/dir/port"]) == 2
    err = capsys.readouterr().err
    assert "no such folder" in err and err.count("\n") == 1
