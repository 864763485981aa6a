"""Simulated people at the table: they read the prompts and press the buttons.

Bots act through the same physical interface as players (pressing the
simulated ROLL/LEFT/RIGHT buttons, with contact bounce), so a simulated game
exercises the firmware's real input path. They also do what the firmware asks
of people: turn a jammed tower by hand, put balls back, answer for a stuck beam.
"""
from __future__ import annotations

import random
from typing import Any, Callable

from hauntbox_sim.core import runtime
from hauntbox_sim.fakes import machine

PRESS_MS = 80
GAP_MS = 120

Policy = Callable[[Any, int, list[tuple], random.Random], int]


def policy_random(game: Any, player: int, options: list[tuple], rng: random.Random) -> int:
    return rng.randrange(len(options))


def policy_safe(game: Any, player: int, options: list[tuple], rng: random.Random) -> int:
    for i, o in enumerate(options):
        if "wall" in o:
            return i
    return _push_leader(game, player, options, rng)


def policy_bold(game: Any, player: int, options: list[tuple], rng: random.Random) -> int:
    for i, o in enumerate(options):
        if "outer" in o and o[0] == "move":
            return i
    return _push_leader(game, player, options, rng, outer=True)


def _push_leader(game: Any, player: int, options: list[tuple], rng: random.Random,
                 outer: bool = False) -> int:
    # With the ghost face, push the ghost closest to the top onto the outer path
    # (more exposed), else any option.
    ghost_opts = [(i, o) for i, o in enumerate(options) if o[0] == "ghost"]
    if ghost_opts:
        order = game.layout.order
        def progress(p: int) -> int:
            pos = game.pos[p]
            return order.index(pos) if pos in order else -1
        best = max(ghost_opts, key=lambda io: (progress(io[1][1]), io[1][2] == "outer"))
        return best[0]
    return rng.randrange(len(options)) if options else 0


POLICIES: dict[str, Policy] = {"random": policy_random, "safe": policy_safe, "bold": policy_bold}


class ButtonPlayers:
    def __init__(self, app: Any, tower: Any, pinmap: dict, policies: list[str], seed: int = 0,
                 think_ms: tuple[int, int] = (150, 600), bounce: bool = False) -> None:
        self.app = app
        self.tower = tower
        self.rng = random.Random(seed ^ 0x5EED)
        self.policies = [POLICIES[p] for p in policies]
        self.think_ms = think_ms
        self.bounce = bounce
        pins = pinmap["pins"]
        self.pins = {name: machine.pin(pins["btn_" + name]["gpio"]) for name in ("roll", "left", "right", "menu")
                     if "btn_" + name in pins}
        for p in self.pins.values():
            p.sim_drive(None)
        self.rotation_start_us = 0
        self.presses = 0
        self.faces: list[str] = []      # the real die's faces rolled (physical die setting)
        app.bus.subscribe(self.on_event)

    def on_event(self, ev: tuple) -> None:
        if ev[0] == "rotating":
            self.rotation_start_us = runtime.clock().now_us
        if ev[0] != "prompt":
            return
        _, kind, player, options, highlight = ev
        if highlight != 0:
            return  # our own LEFT/RIGHT presses moving the highlight
        clk = runtime.clock()
        delay = self.rng.randint(*self.think_ms)
        if kind == "manual_turn":
            clk.after_ms(delay, self.tower.turn_by_hand)
            delay += 300
        elif kind == "refill":
            clk.after_ms(delay, self.tower.refill)
            delay += 300
        target = self.choose(kind, player, options)
        t = clk.now_us + delay * 1000
        if kind == "die" and target > len(options) // 2:
            # Entering the real die's face: the shorter way round, with LEFT.
            for _ in range(len(options) - target):
                t = self.press("left", t)
        else:
            for _ in range(target):
                t = self.press("right", t)
        self.press("roll", t)

    def choose(self, kind: str, player: int, options: list[tuple]) -> int:
        if kind.startswith("ball_on_"):
            k = int(kind.rsplit("_", 1)[1])
            seen = any(s == k and t >= self.rotation_start_us for s, t in self.tower.released)
            return options.index(("yes",) if seen else ("no",))
        if kind == "die":
            # The physical die setting: the player rolls the real die (a fair
            # six-sided one: the people's own chance, not the firmware's).
            i = self.rng.randrange(len(options))
            self.faces.append(options[i][1])
            return i
        if len(options) == 1 or kind == "resume":
            return 0        # people at the table resume their saved game
        game = self.app.controller.game
        pol = self.policies[player % len(self.policies)]
        return pol(game, player, options, self.rng)

    def press(self, name: str, t_us: int) -> int:
        """Schedule one press of a button at t_us; returns when the next may start."""
        pin = self.pins[name]
        clk = runtime.clock()
        self.presses += 1
        if self.bounce:
            for i in range(3):
                clk.at(t_us + i * 300, lambda: pin.sim_drive(0))
                clk.at(t_us + i * 300 + 150, lambda: pin.sim_drive(None))
            t_us += 1000
        clk.at(t_us, lambda: pin.sim_drive(0))
        clk.at(t_us + PRESS_MS * 1000, lambda: pin.sim_drive(None))
        return t_us + (PRESS_MS + GAP_MS) * 1000
