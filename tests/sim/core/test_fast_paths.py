"""The faster paths of the simulator and the bots give what the slow ones gave
(issue 19, simulator speed): each is checked against the firmware's or the
model's own reference computation on many positions."""
import random

from hauntbox_sim.players import beetlejuice_bots as bjb
from hauntbox_sim.models.mcp23017 import Mcp23017Model
from rules.beetlejuice import BeetlejuiceGame, auto_chance
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
