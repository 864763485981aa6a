"""The flash model (sim/models/flash.py) under the firmware's Store: a save lands
whole, and a power-cut observer still sees it written piece by piece."""
import json

from hauntbox_sim.models.flash import FlashModel, attach, detach

DATA = {"mode": "companion", "game": {"roll_no": 7, "dice": [3, 5],
                                     "players": [[1, False, -1, 0, 0, False]]},
        "rng": {"state": 12345}}


def _save(fs):
    from games.store import Store
    attach(fs)
    try:
        st = Store("/state")
        st.save("game", DATA)
        return st.load("game")
    finally:
        detach()


def test_a_save_without_observer_is_one_write_of_the_same_text(clock):
    import builtins

    import games.store as store_mod
    fs = FlashModel()
    assert _save(fs) == DATA
    text = fs.files["/state/game.json"]
    seal = json.loads(text)
    assert text == json.dumps(seal)     # what json.dump would have written
    assert seal["save"] == 2 and set(seal) == set(DATA) | {"save", "sum"}
    assert fs.ops == 4      # open, one write, close, rename
    assert store_mod.json is json and store_mod.open is builtins.open


def test_a_cut_observer_sees_the_save_in_pieces_with_the_same_result(clock):
    fs = FlashModel()
    seen = []
    fs.on_op = lambda kind, path: seen.append((kind, fs.after_cut(torn=True).get(path)))
    assert _save(fs) == DATA
    writes = [s for k, s in seen if k == "write"]
    assert len(writes) > 10         # json.dump's pieces, each a cut point
    # Each cut point leaves a longer prefix of the final text (torn mode).
    quiet = FlashModel()
    _save(quiet)
    text = quiet.files["/state/game.json"]
    assert fs.files["/state/game.json"] == text
    prefixes = [w for w in writes if w is not None]
    assert all(text.startswith(p) for p in prefixes)
    assert len(set(prefixes)) == len(prefixes)


def test_a_write_stall_keeps_the_pieces(clock):
    fs = FlashModel(stall_us={"write": 10})
    _save(fs)
    assert fs.ops > 10
