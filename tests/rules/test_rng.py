"""The shared random source: xorshift32, identical everywhere, unbiased draws."""
import pytest

from rules.rng import Rng

MASK = 0xFFFFFFFF


def reference(seed, n):
    x = seed & MASK or 0x6D2B79F5
    out = []
    for _ in range(n):
        x ^= (x << 13) & MASK
        x ^= x >> 17
        x ^= (x << 5) & MASK
        out.append(x)
    return out


@pytest.mark.parametrize("seed", [1, 2, 0, 0xDEADBEEF, 2**32 - 1, 2**40 + 7])
def test_halves_implementation_is_exactly_xorshift32(seed):
    r = Rng(seed)
    assert [r.next32() for _ in range(2000)] == reference(seed, 2000)


def test_below_is_in_range_and_roughly_uniform():
    r = Rng(99)
    counts = [0] * 6
    for _ in range(60000):
        v = r.below(6)
        assert 0 <= v < 6
        counts[v] += 1
    assert max(counts) - min(counts) < 600
    with pytest.raises(ValueError):
        r.below(0)


def test_state_round_trips_and_bad_state_is_refused():
    r = Rng(7)
    r.below(10)
    r2 = Rng.from_dict(r.to_dict())
    assert [r.below(100) for _ in range(50)] == [r2.below(100) for _ in range(50)]
    for bad in [{}, {"state": 0}, {"state": -1}, {"state": 2**32}, {"state": "5"}, {"state": True}, None]:
        with pytest.raises(ValueError):
            Rng.from_dict(bad)


def test_shuffle_is_a_permutation():
    items = list(range(52))
    Rng(3).shuffle(items)
    assert sorted(items) == list(range(52)) and items != list(range(52))


def test_a_save_gives_its_dice_generator_or_keeps_the_current_one():
    a = Rng(7)
    a.below(6)
    saved = {"rng": a.to_dict()}
    b = Rng.saved_or(saved, Rng(1))
    assert [b.below(6) for _ in range(20)] == [a.below(6) for _ in range(20)]
    current = Rng(3)
    assert Rng.saved_or({"game": {}}, current) is current      # a save without one
    with pytest.raises(ValueError):
        Rng.saved_or({"rng": {"state": 0}}, current)           # damaged: refused
