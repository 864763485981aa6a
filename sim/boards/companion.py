"""A whole simulated dice companion: firmware + buttons + LED matrix + people.

The firmware (``games/beetlejuice.py`` or ``games/superskill.py``) runs unmodified
on the simulated companion build (``firmware/boards/companion.json``). Simulated
players read the prompts and press the simulated buttons, as people at the
table do:

* Watch Out Beetlejuice: each seat has a host bot (``hauntbox_sim.players.beetlejuice_bots``:
  ``heuristic`` or ``random``) that decides on the firmware's game; the adapter
  turns the decision into presses (cursor moves, keep toggles, MENU, ROLL).
  With ``cards="enter"`` a person draws a real card (chosen at random here)
  and enters it with LEFT/RIGHT/ROLL.
* Super-Skill Pinball: the players' score sheets are a
  "paper" game (``rules.superskill`` engine run by the simulator, not by the
  firmware) played by ``hauntbox_sim.players.superskill_bots`` policies on the dice the
  firmware shows; the players report what the firmware cannot see (a round
  over, a Nudge amount) with the buttons, and enter the winner at the end.
"""
from __future__ import annotations

import json
import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.core import runtime
from hauntbox_sim.core.clock import VirtualClock
from hauntbox_sim.players.buttons import ButtonPlayers

FIRMWARE = sim_install.FIRMWARE
GAMES = ("beetlejuice", "superskill")
DEFAULT_POLICIES = {"beetlejuice": ["heuristic", "heuristic", "random"],
                    "superskill": ["lookahead", "greedy", "random", "random"]}


def load_pinmap() -> dict:
    return json.loads((FIRMWARE / "boards/companion.json").read_text())


def led_index(px: dict, x: int, y: int) -> int:
    """LED index of matrix cell (x, y), as devices/dice_display.Matrix computes it."""
    w = px.get("width", 8)
    if px.get("serpentine") and y & 1:
        x = w - 1 - x
    i = y * w + x
    return px["count"] - 1 - i if px.get("flip") else i


class CompanionPlayers(ButtonPlayers):
    """Common part: a press sequence per prompt, shortest way round a list."""

    def __init__(self, app: Any, pinmap: dict, seed: int, think_ms: tuple[int, int],
                 bounce: bool) -> None:
        super().__init__(app, None, pinmap, ["random"], seed=seed, think_ms=think_ms,
                         bounce=bounce)
        self.sequences = 0
        self.errors: list[BaseException] = []

    def on_event(self, ev: tuple) -> None:
        # The event bus drops a sink that raises; keep the error for run() to report.
        try:
            self.handle(ev)
        except Exception as e:
            self.errors.append(e)
            raise

    def handle(self, ev: tuple) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def schedule(self, names: list[str]) -> None:
        clk = runtime.clock()
        t = clk.now_us + self.rng.randint(*self.think_ms) * 1000
        self.sequences += 1
        for name in names:
            t = self.press(name, t)

    @staticmethod
    def steps(frm: int, to: int, n: int) -> list[str]:
        """Presses that move a wrapping highlight from index frm to index to."""
        right = (to - frm) % n
        left = (frm - to) % n
        return ["right"] * right if right <= left else ["left"] * left

    def pick(self, options: list, action: tuple) -> list[str]:
        return self.steps(0, options.index(tuple(action)), len(options)) + ["roll"]


class BeetlejuicePlayers(CompanionPlayers):
    def __init__(self, app: Any, pinmap: dict, policies: list[str], seed: int,
                 think_ms: tuple[int, int] = (150, 600), bounce: bool = False) -> None:
        from hauntbox_sim.players.beetlejuice_bots import make_bot
        from rules.rng import Rng
        self.bots = [make_bot(p, Rng((seed * 7919 + 104729 * (i + 1)) & 0xFFFFFFFF))
                     for i, p in enumerate(policies)]
        self.draws = random.Random(seed ^ 0xCA4D)
        self.forced_seen = 0
        super().__init__(app, pinmap, seed, think_ms, bounce)

    def bot(self, player: int):
        return self.bots[player % len(self.bots)]

    def handle(self, ev: tuple) -> None:
        if ev[0] != "prompt" or ev[4] != 0:
            return
        _, kind, player, options, _ = ev
        c = self.app.controller
        g = c.game
        if kind == "roll" or kind == "resume":
            seq = ["roll"]          # roll the dice / resume the saved game
        elif kind in ("deal", "draw_bj"):
            # A person draws a real card from the shuffled pile and enters it.
            seq = self.pick(options, options[self.draws.randrange(len(options))])
        elif kind == "keep":
            seq = self.keep_presses(c, g, options)
        else:
            seq = self.pick(options, self.bot(player).choose(g))
        self.schedule(seq)

    def keep_presses(self, c: Any, g: Any, options: list) -> list[str]:
        """Cursor moves and keep toggles, then MENU and the chosen menu line."""
        action = tuple(self.bot(g.cur).choose(g))
        n = len(g.dice)
        target = c.keep
        if action[0] == "reroll":
            target = 0
            for i in range(n):
                if i not in action[1]:
                    target |= 1 << i
        seq: list[str] = []
        if c.menu is None:
            order = [i for i in range(n) if c.toggleable(i)]
            pos = order.index(c.cursor) if c.cursor in order else 0
            for i in order:
                if (target ^ c.keep) & (1 << i):
                    k = order.index(i)
                    seq += self.steps(pos, k, len(order)) + ["roll"]
                    pos = k
            diff = (target ^ c.keep) & ~sum(1 << i for i in order)
            assert not diff, f"bot wants to change dice that cannot be toggled: {action}"
            seq.append("menu")
            menu = c.menu_items(target, options)
        else:
            assert action[0] != "reroll", "menu opened without a reroll on offer"
            menu = c.menu
        seq += self.steps(0, menu.index(action), len(menu)) + ["roll"]
        return seq


class SuperSkillPlayers(CompanionPlayers):
    def __init__(self, app: Any, pinmap: dict, policies: list[str], seed: int,
                 think_ms: tuple[int, int] = (150, 600), bounce: bool = False) -> None:
        from hauntbox_sim.players.superskill_bots import make_policy
        self.seat_policies = [make_policy(p, seed + 31 * i) for i, p in enumerate(policies)]
        self.paper: Any = None
        self.todo: list[tuple] = []
        self.reported: list[tuple] = []
        super().__init__(app, pinmap, seed, think_ms, bounce)

    def policy(self, player: int):
        return self.seat_policies[player % len(self.seat_policies)]

    def start_paper(self, players: int) -> None:
        from rules.superskill import SuperSkillGame
        cfg = json.loads((FIRMWARE / "data/superskill/starfleet_academy.json").read_text())
        self.paper = SuperSkillGame(cfg, players)

    def paper_roll(self, d1: int, d2: int) -> None:
        """The players use the roll on their sheets; note what they must report."""
        g = self.paper
        effects = list(g.apply(("roll", d1, d2)))
        from rules.errors import CHANCE
        while not g.is_over() and g.to_act != CHANCE:
            effects += g.apply(self.policy(g.to_act)(g))
        tilted = set()
        nudges = []
        overs = []
        for e in effects:
            if e[0] == "tilt":
                tilted.add(e[1])
            elif e[0] == "nudge":
                nudges.append(("nudge", e[1], e[4]))
            elif e[0] == "round_end" and e[1] not in tilted:
                overs.append(("round_over", e[1]))
        self.todo = nudges + overs

    def handle(self, ev: tuple) -> None:
        c = self.app.controller
        if ev[0] == "roll" and self.paper is not None:
            self.paper_roll(ev[1], ev[2])
            return
        if ev[0] != "prompt" or ev[4] != 0:
            return
        _, kind, player, options, _ = ev
        if kind == "roll" or kind == "resume":
            self.schedule(["roll"])
        elif kind == "report":
            self.schedule(self.report_presses(c))
        elif kind == "result":
            w = self.paper.winners()
            self.schedule(self.pick(options, ("winner", w[0]) if len(w) == 1 else ("tie",)))
        else:
            self.schedule(self.pick(options, self.policy(player)(c.game)))

    def report_presses(self, c: Any) -> list[str]:
        g = c.game
        while self.todo and g.players[self.todo[0][1]].done:
            self.todo.pop(0)        # the firmware already ended that player's game
        if not self.todo:
            return ["roll"]
        item = self.todo.pop(0)
        self.reported.append(item)
        p = item[1]
        seq = []
        s = -1
        while s != p:      # RIGHT cycles the players still playing, then "nobody"
            s += 1
            if s >= g.n:
                s = -1
            if s >= 0 and g.players[s].done:
                continue
            seq.append("right")
        items = c.report_items(p)
        seq += ["menu"] * (items.index(item) + 1)
        seq.append("roll")
        return seq


@dataclass
class CompanionSim:
    game: str = "beetlejuice"
    players: int = 3
    seed: int = 1
    policies: list[str] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    bounce: bool = False
    state_dir: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    think_ms: tuple[int, int] = (150, 600)
    max_sim_s: float = 6 * 3600.0

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"unknown companion game {self.game!r}")
        self.clock = sim_install.install(VirtualClock())
        if self.state_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="hauntbox-state-")
            self.state_dir = self._tmp.name
        Path(self.state_dir).mkdir(parents=True, exist_ok=True)
        import app as firmware_app  # the unmodified firmware module
        self.pinmap = load_pinmap()
        self.app = firmware_app.App(root=str(FIRMWARE) + "/", state_root=self.state_dir,
                                    settings=self.settings, seed=self.seed, game=self.game)
        if self.options:
            defaults = getattr(self.app.controller, "defaults", None)
            if defaults is None:
                raise ValueError(f"{self.game} takes no game options")
            defaults.update(self.options)
        pol = self.policies or DEFAULT_POLICIES[self.game]
        cls = BeetlejuicePlayers if self.game == "beetlejuice" else SuperSkillPlayers
        self.people = cls(self.app, self.pinmap, pol, self.seed, think_ms=self.think_ms,
                          bounce=self.bounce)

    @property
    def controller(self) -> Any:
        return self.app.controller

    @property
    def colours(self) -> list[str]:
        return list(self.app.controller.colours)

    @property
    def np(self) -> Any:
        return self.app.controller.build.strip.np

    def frame(self) -> list[tuple[int, int, int]]:
        """The matrix as the LEDs show it now: frame[y][x] = (r, g, b)."""
        px = self.pinmap["pixels"]
        leds = self.np.decoded()
        return [[leds[led_index(px, x, y)] for x in range(px["width"])] for y in range(px["height"])]

    def scaled(self, colour: tuple[int, int, int]) -> tuple[int, int, int]:
        """A firmware colour as it reaches the chain (after the brightness scale)."""
        s = self.app.controller.build.strip._scale
        return ((colour[0] * s) >> 8, (colour[1] * s) >> 8, (colour[2] * s) >> 8)

    def run(self, resume: bool = True) -> Any:
        if self.game == "superskill" and isinstance(self.people, SuperSkillPlayers):
            self._prepare_paper(resume)
        import asyncio

        async def bounded() -> Any:
            # A game the people cannot finish (a stuck prompt) fails instead of
            # running forever in virtual time (the watchdog task never sleeps out).
            return await asyncio.wait_for(self.app.main_async(self.players, 0, resume),
                                          self.max_sim_s)
        winner = sim_install.run(bounded())
        if self.people.errors:
            raise RuntimeError(f"a simulated player failed: {self.people.errors[0]!r}")
        return winner

    def _prepare_paper(self, resume: bool) -> None:
        # The paper sheets start with the game; a resumed game keeps the sheets
        # the people already have (set self.people.paper before run()).
        if self.people.paper is None:
            self.people.start_paper(self.players)

    def sim_seconds(self) -> float:
        return runtime.clock().now_us / 1e6


def run_cli(args: Any) -> int:
    """`python -m hauntbox_sim --game beetlejuice|superskill ...` (called from sim/cli.py)."""
    import sys
    import time

    from hauntbox_sim.views.companion_log import BeetlejuiceLog, SuperSkillLog

    game = args.game
    hi = 6 if game == "beetlejuice" else 4
    if not 1 <= args.players <= hi:
        print(f"hauntbox sim: --players must be 1..{hi} for {game}", file=sys.stderr)
        return 2
    options: dict[str, Any] = {}
    mode = getattr(args, "mode", None)
    if mode:
        if game != "beetlejuice":
            print(f"hauntbox sim: --mode is for beetlejuice (cards firmware|enter); {game} has none",
                  file=sys.stderr)
            return 2
        if mode not in ("firmware", "enter"):
            print("hauntbox sim: --mode must be firmware or enter for beetlejuice", file=sys.stderr)
            return 2
        options["cards"] = mode
    policies = None
    if getattr(args, "bot", None):
        policies = list(args.bot)
    t0 = time.monotonic()
    try:
        s = CompanionSim(game=game, players=args.players, seed=args.seed, policies=policies,
                         options=options, bounce=args.noise in ("bounce", "all"),
                         state_dir=args.state_dir)
    except ValueError as e:
        print(f"hauntbox sim: {e}", file=sys.stderr)
        return 2
    c = s.controller
    if not args.quiet:
        if game == "beetlejuice":
            s.app.bus.subscribe(BeetlejuiceLog(s.colours, c.cfg, clock_s=s.sim_seconds))
        else:
            s.app.bus.subscribe(SuperSkillLog(s.colours, clock_s=s.sim_seconds))
    winner = s.run()
    wall = time.monotonic() - t0
    g = c.game
    if game == "beetlejuice":
        pts = ", ".join(f"{s.colours[p]} {g.points(p)} pts/{len(g.won[p])}" for p in range(g.n))
        who = ("Beetlejuice" if g.result == "bj" else
               " and ".join(s.colours[p] for p in g.winners))
        print(f"Winner: {who} after {g.turn} turns ({pts}; Beetlejuice {len(g.bj_pile)}); "
              f"{s.people.presses} button presses, {s.np.writes} LED frames; "
              f"{s.sim_seconds():.0f} s of play simulated in {wall:.2f} s")
    else:
        who = s.colours[winner] if winner is not None else "shared"
        extra = ""
        if s.people.paper is not None:
            extra = " (paper: " + ", ".join(f"{s.colours[p]} {ps.stars} stars"
                                            for p, ps in enumerate(s.people.paper.players)) + ")"
        print(f"Winner: {who} after {g.roll_no} rolls{extra}; {s.people.presses} button presses, "
              f"{s.np.writes} LED frames; {s.sim_seconds():.0f} s of play simulated in {wall:.2f} s")
    return 0
