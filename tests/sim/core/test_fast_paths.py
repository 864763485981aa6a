"""The faster paths of the simulator and the bots give what the slow ones gave
(issue 19, simulator speed): each is checked against the firmware's or the
model's own reference computation on many positions."""
import random

from hauntbox_sim.players import beetlejuice_bots as bjb
from hauntbox_sim.models.mcp23017 import Mcp23017Model
from rules.beetlejuice import BJ, BeetlejuiceGame, auto_chance, reroll_for_keep
from rules.errors import CHANCE
from rules.rng import Rng


def test_bot_feasible_sets_match_the_engine():
    # Rulebook, "Scaring": a set of Residents can be scared together when the
    # dice cover them all, each die for one card. The bot's decoded-record
    # version must list the same sets, in the same order, as the engine's.
    cfg = bjb._config(bjb.load_config())
    checked = 0
    for seed in range(40):
        rng = Rng(seed)
        game = BeetlejuiceGame(cfg, 3, rng, {})
        bot = bjb.RandomBot(Rng(seed + 1))
        pick = random.Random(seed)
        while not game.is_over() and checked < 4000:
            if game.phase == "decide":
                assert bjb.feasible_sets(game) == game.feasible_sets()
                faces = [pick.choice(list(cfg.symbols) + ["bj"]) for _ in range(pick.randint(0, 6))]
                assert bjb.feasible_sets(game, faces) == game.feasible_sets(faces)
                checked += 1
            a = auto_chance(game, rng) if game.to_act == CHANCE else bot.choose(game)
            game.apply(a)
    assert checked > 500


def test_heuristic_games_do_not_depend_on_the_shared_config():
    # play_game builds the card index once per card-data dict: the same seed
    # plays the same game with a fresh index or the shared one.
    data = bjb.load_config()
    shared = bjb.play_game(data, ["heuristic", "heuristic"], 12345)
    fresh = bjb.play_game(bjb.Config(bjb.load_config()), ["heuristic", "heuristic"], 12345)
    assert shared == fresh


def _reference_reroll_sets(g):
    # The list BeetlejuiceGame.legal_actions() gave before the mask-based one
    # (rules/beetlejuice_moves.py before issue 19's second round): one
    # canonical index set per distinct multiset of faces rerolled.
    groups = {}
    order = []
    bj_first = None
    for i in range(len(g.dice)):
        f = g.dice[i]
        if f == BJ:
            if bj_first is None:
                bj_first = i
            continue
        if f not in groups:
            groups[f] = []
            order.append(f)
        groups[f].append(i)
    choices = [[]]
    for f in order:
        idx = groups[f]
        nxt = []
        for base in choices:
            for k in range(len(idx) + 1):
                nxt.append(base + idx[:k])
        choices = nxt
    if g.bjre and bj_first is not None:
        choices = choices + [c + [bj_first] for c in choices]
    return [tuple(sorted(c)) for c in choices if len(c) >= 2]


class _ReferenceBot(bjb.HeuristicBot):
    # HeuristicBot.best_plan as it was before it worked on dice counts and
    # remembered its target sets: the same plan must come out.
    _feasible = staticmethod(bjb.feasible_sets)

    def best_plan(self, game: BeetlejuiceGame):
        """Best (value, keep indices, needs_bj) over target sets, or None without rerolls."""
        rolls_left = game.rolls_left()      # asked once: the engine counts the active cards
        if not rolls_left or reroll_for_keep(game, ()) is None:
            return None
        cfg = game.cfg
        dice = game.dice
        forb = set(game.forbidden())
        bj_count = dice.count(BJ)
        spare_bj = 1 if (game.bjre and bj_count) else 0
        thr = game.threshold()
        trig_v = self.trigger_value(game)
        occ = [i for i, c in enumerate(game.slots) if c is not None]
        by_face: dict[str, list[int]] = {}
        for i, f in enumerate(dice):
            by_face.setdefault(f, []).append(i)
        fallback_cache: dict[tuple, list] = {}
        best = None
        for mask in range(1, 1 << len(occ)):
            sel = tuple(occ[k] for k in range(len(occ)) if mask >> k & 1)
            sel_set = set(sel)
            cards = [game.slots[i] for i in sel]
            value = self._set_value(game, sel)
            for need, need_bj in self._ref_needs(cfg, cards, forb):
                keep: list[int] = []
                missing = []
                for s, k in need.items():
                    have = by_face.get(s, [])[:k]
                    keep.extend(have)
                    if k > len(have):
                        missing.append(k - len(have))
                if need_bj:
                    keep.extend(by_face.get(BJ, []))
                bj_eff = bj_count - (0 if need_bj else spare_bj)
                free = len(dice) - len([i for i in keep if dice[i] != BJ]) - bj_eff
                if sum(missing) > free:
                    continue
                if not missing and (not need_bj or bj_count >= 1):
                    continue  # already satisfied: covered by stopping now
                p_s, p_t = bjb.plan_odds(tuple(sorted(missing, reverse=True)), need_bj,
                                         free, bj_eff, thr, rolls_left)
                kept_faces = tuple(sorted(dice[i] for i in keep if dice[i] != BJ))
                kept_faces += (BJ,) * bj_eff
                sets = fallback_cache.get(kept_faces)
                if sets is None:
                    sets = self._feasible(game, kept_faces)
                    fallback_cache[kept_faces] = sets
                fb = max((self._set_value(game, s) for s in sets if sel_set.issuperset(s)),
                         default=0.0)
                v = value * p_s + fb * max(0.0, 1.0 - p_s - p_t) + trig_v * p_t
                if best is None or v > best[0]:
                    best = (v, tuple(keep), need_bj)
        return best

    @staticmethod
    def _ref_needs(cfg, cards: list[str], forb: set):
        """Every combined requirement (alternative per card) usable with the symbols
        allowed; remembered (the caller must not change it)."""
        memo = _REF_NEEDS
        key = (tuple(cards), frozenset(forb))
        combos = memo.get(key)
        if combos is None:
            combos = memo[key] = bjb.HeuristicBot._work_out_needs(cfg, cards, forb)
        return combos


_REF_NEEDS: dict = {}


def _positions(seeds, policy="random"):
    # Decision positions of real games (3 players, every policy's moves).
    cfg = bjb._config(bjb.load_config())
    for seed in seeds:
        rng = Rng(seed)
        game = BeetlejuiceGame(cfg, 3, rng, {"expert": seed % 2 == 0})
        bots = [bjb.make_bot(policy, Rng(seed * 31 + i)) for i in range(3)]
        while not game.is_over():
            if game.phase == "decide":
                yield game
            a = auto_chance(game, rng) if game.to_act == CHANCE else bots[game.to_act].choose(game)
            game.apply(a)


def test_reroll_list_matches_the_reference():
    # Rulebook, "Rerolling": any two or more dice but Beetlejuice symbols (one
    # may go back with the Handbook); legal_actions() lists one set per
    # distinct multiset of faces, in the order the reference made them.
    from rules.beetlejuice_moves import reroll_actions, reroll_sets
    checked = 0
    for game in _positions(range(60)):
        for bjre in (False, True):
            game.bjre, was = bjre, game.bjre
            want = _reference_reroll_sets(game)
            assert reroll_sets(game) == want
            assert reroll_actions(game) == [("reroll", t) for t in want]
            game.bjre = was
        checked += 1
    assert checked > 500


def test_heuristic_plan_matches_the_reference():
    # The heuristic's plan (value, dice kept, Beetlejuice symbol needed) from
    # dice counts and remembered targets equals the plan of the reference.
    bot, ref = bjb.HeuristicBot(), _ReferenceBot()
    checked = 0
    for game in _positions(range(80), "heuristic"):
        assert bot.best_plan(game) == ref.best_plan(game)
        checked += 1
    assert checked > 500


def _port_level_per_pin(m: Mcp23017Model, port: int) -> int:
    v = 0
    for bit in range(8):
        v |= m._pin_level(port * 8 + bit) << bit
    return v


def test_mcp23017_port_level_matches_the_pins():
    # Datasheet: an output pin reads its latch, an input what is driven, else
    # its pull-up, else 0. The masked port read must agree pin by pin.
    r = random.Random(3)
    m = Mcp23017Model()
    for _ in range(3000):
        what = r.randrange(3)
        if what == 0:
            m.set_input(r.randrange(16), r.choice([None, 0, 1]))
        else:
            reg = r.choice([0x00, 0x01, 0x0C, 0x0D, 0x14, 0x15])   # IODIR, GPPU, OLAT
            m.write_regs(reg, bytes([r.randrange(256)]))
        for port in (0, 1):
            assert m._port_level(port) == _port_level_per_pin(m, port)


def test_neopixel_frames_are_encoded_when_read():
    # The lazily encoded stream is PixelBuf's GRB encoding of what was written
    # at that instant, even when buf changes after the write.
    from hauntbox_sim.core import runtime
    from hauntbox_sim.fakes import install
    from hauntbox_sim.fakes.machine import Pin
    from hauntbox_sim.fakes.neopixel import NeoPixel
    install.install()
    np = NeoPixel(Pin(22, Pin.OUT), 3)
    np[0] = (10, 20, 30)
    np[2] = (255, 0, 7)
    t = runtime.clock().now_us
    np.write()      # (the write itself takes time: interrupts off)
    np[1] = (1, 2, 3)           # after the write: not in that frame
    assert np.last_frame() == bytes([20, 10, 30, 0, 0, 0, 0, 255, 7])
    assert np.decoded() == [(10, 20, 30), (0, 0, 0), (255, 0, 7)]
    assert np.frames == [(t, np.last_frame())]


def test_cli_saves_in_memory_and_puts_the_files_back(tmp_path):
    # Without --state-dir a run's saves go to the flash model; afterwards the
    # firmware's store reaches real files again, and --state-dir still writes them.
    import builtins
    import contextlib
    import io

    from hauntbox_sim import cli
    import games.store as store
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(["--game", "beetlejuice", "--seed", "2", "--quiet"]) == 0
    assert store.open is builtins.open
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(["--game", "beetlejuice", "--seed", "2", "--quiet",
                         "--state-dir", str(tmp_path)]) == 0
    assert list(tmp_path.glob("*.json"))
