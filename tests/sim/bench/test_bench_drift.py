"""The leak verdict of `make bench` (hauntbox_sim.bench.vm_figures.drift) on synthetic heap series:
a steady leak is caught, a flat series and a single bounded step are not leaks,
and a leak that grows in several steps is still one."""
import random

from hauntbox_sim.bench.vm_figures import drift


def figures(series, first=None):
    games = list(range(2, 2 + len(series)))
    return {"games": games[-1], "sample_games": games, "samples": series,
            "after_first_game": series[0] if first is None else first}


def wobble(n, seed=1, amp=96):
    r = random.Random(seed)
    return [64000 + 16 * r.randint(-amp // 16, amp // 16) for _ in range(n)]


def test_flat_series_is_not_a_leak():
    d = drift(figures(wobble(199)))
    assert d["judged"] and not d["leak"] and d["step"] is None


def test_two_bytes_per_game_is_a_leak():
    xs = [x + 2 * g for g, x in enumerate(wobble(199, seed=2))]
    d = drift(figures(xs))
    assert d["leak"] and d["step"] is None and 1.5 < d["slope"] < 2.5


def test_one_late_step_that_stays_flat_is_bounded_not_a_leak():
    # Beetlejuice, seed 7: +2 KB at game ~180, then flat (a block pinned by a stale word)
    xs = [x + (2000 if g >= 178 else 0) for g, x in enumerate(wobble(199, seed=3))]
    d = drift(figures(xs))
    assert not d["leak"]
    assert d["step"] is not None and 1900 <= d["step"]["size"] <= 2100
    assert 170 <= d["step"]["game"] <= 185


def test_a_leak_that_grows_in_several_steps_is_still_a_leak():
    xs = [x + 1024 * (g // 40) for g, x in enumerate(wobble(199, seed=4))]
    d = drift(figures(xs))
    assert d["leak"] and d["step"] is None


def test_a_step_on_top_of_a_steady_leak_is_still_a_leak():
    xs = [x + 2 * g + (2000 if g >= 150 else 0) for g, x in enumerate(wobble(199, seed=5))]
    assert drift(figures(xs))["leak"]


def test_short_runs_are_not_judged():
    d = drift(figures(wobble(30)))
    assert not d["judged"] and not d["leak"]
