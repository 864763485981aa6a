"""`hauntbox check beams --pico`: the time-matched beam check on the emulated
Pico (the official rp2 firmware, its own frames, saves and USB event stream).
A short run; `hauntbox check beams --pico --rotations 30` is the longer one."""
from hauntbox_sim.checks.accuracy import main
from hauntbox_sim.checks.pico import pico_beams


def test_every_ball_is_matched_by_time_on_the_emulated_pico():
    r = pico_beams(rotations=3, seed=1)
    assert r.rotations == 3 and r.released >= 1
    # A count between turns (a glitch stretched by a save's flash erase with
    # interrupts off) is in no turn's result: reported apart, not a phantom.
    assert (r.missed, r.phantom, r.wrong_turn) == (0, 0, 0), r.lines()
    # The host heard each count soon after the ball: the window is not what passes it.
    assert 0 < r.max_latency_ms < 100


def test_the_pico_check_refuses_a_sweep(capsys):
    assert main(["beams", "--pico", "--sweep"]) == 2
    assert "not with --pico" in capsys.readouterr().err
