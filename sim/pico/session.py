"""A whole game on the emulated Pico: the board, its build's models, the players.

`RollerPico`, `HauntedPico` and `CompanionPico` wire one build each, the way
`sim/roller_board.py` and friends wire the CPython simulation: the same
models, the same simulated players pressing the same buttons. The players
read the board's prompts from its event stream (the USB serial protocol) as a
person reads the LEDs; the firmware runs only on the chip.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable

from sim.pico import image as pico_image
from sim.pico.board import PicoBoard

BOOT_MS = 3000          # the board answers `hello` well within this (measured: ~40 ms)


@dataclass
class Result:
    winner: Any = None
    over: bool = False
    turns: int = 0
    events: list[tuple] = field(default_factory=list)
    wall_s: float = 0.0
    emulated_s: float = 0.0


class PicoSession:
    """The emulated board of one build, with a host console connected."""

    build = ""

    def __init__(self, settings: dict, *, flash: bytes | None = None, uf2: Any = None,
                 log: Callable[[tuple], None] | None = None, stop_on_flash: bool = False) -> None:
        self.pinmap = pico_image.pinmap(self.build)
        img = flash if flash is not None else pico_image.image(settings)
        self.t0 = time.monotonic()
        self.board = PicoBoard(self.pinmap, img, uf2=uf2, stop_on_flash=stop_on_flash)
        self.host = self.board.host
        self.result = Result()
        self.host.subscribe(self._record)
        if log is not None:
            self.host.subscribe(log)
        # The simulated players subscribe to the host's events as they would to
        # the firmware's bus in the CPython simulation.
        self.view = SimpleNamespace(bus=self.host, controller=SimpleNamespace(game=None))
        self.host.on_reply.append(self._reply)
        self.host.subscribe(self._look)

    def _reply(self, msg: dict) -> None:
        if msg.get("cmd") == "state" and msg.get("ok"):
            self.on_state(msg)

    def _look(self, ev: tuple) -> None:
        # After every turn the players look at the table again (a state request).
        if ev[0] in ("turn", "game", "resumed"):
            self.host.send("state")

    def on_state(self, state: dict) -> None:
        pass

    def _record(self, ev: tuple) -> None:
        self.result.events.append(ev)
        if ev[0] == "turn":
            self.result.turns += 1
        if ev[0] == "over":
            self.result.over = True
            self.result.winner = ev[1] if len(ev) > 1 else None

    def connect(self) -> dict:
        """Speak to the board as a console does: hello (events come on with it)."""
        hello = self.host.request("hello", timeout_ms=BOOT_MS)
        if not hello.get("events", False):
            self.host.request("events", on=True)
        # What was asked before the host listened: the pending prompt, as a
        # console shows it on connect.
        state = self.host.request("state")
        prompt = state.get("prompt")
        if prompt:
            from sim.pico.board import tuples
            ev = ("prompt", prompt["kind"], prompt["player"], tuples(prompt["options"]), 0)
            for fn in list(self.host.subscribers):
                fn(ev)
        return hello

    def play(self, max_s: float = 3600.0, until: Callable[[], bool] | None = None) -> Result:
        """Run until the game is over (or `until()`), at most `max_s` of emulated time."""
        done = until or (lambda: self.result.over)
        self.board.run(max_s * 1000, until=done)
        self.result.wall_s = time.monotonic() - self.t0
        self.result.emulated_s = self.board.now_us / 1e6
        return self.result

    def close(self) -> None:
        self.board.close()

    def __enter__(self) -> "PicoSession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RollerPico(PicoSession):
    build = "roller_ghoster"

    def __init__(self, players: int = 4, seed: int = 1, noise: str = "all",
                 policies: list[str] | None = None, faults: Any = None,
                 settings: dict | None = None, **kw: Any) -> None:
        from sim.models.tower import Faults, TowerModel
        from sim.players import ButtonPlayers
        from sim.roller_board import noise_config

        cfg = {"game": "roller-ghoster", "players": players}
        cfg.update(settings or {})
        super().__init__(cfg, **kw)
        pins = {name: p["gpio"] for name, p in self.pinmap["pins"].items()}
        self.tower = TowerModel(pins, noise_config(noise), seed=seed, faults=faults or Faults())
        self.people = ButtonPlayers(self.view, self.tower, self.pinmap,
                                    policies or ["bold", "safe", "random", "bold"], seed=seed,
                                    bounce=noise in ("bounce", "all"))
        self.colours = ["red", "blue", "green", "yellow"][:players]
        self.turns = 0
        self.layout_cfg = None

    def on_state(self, state: dict) -> None:
        # The players look at the tower: the ghosts where the board says they are.
        from rules.roller_ghoster import RollerGhoster
        if self.layout_cfg is None:
            import json
            self.layout_cfg = json.loads((pico_image.ROOT / "firmware/data/roller_ghoster.json")
                                         .read_text())
        g = state.get("state")
        if isinstance(g, dict):
            self.view.controller.game = RollerGhoster.from_dict(self.layout_cfg, g)
