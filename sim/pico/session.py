"""A whole game on the emulated Pico: the board, its build's models, the players.

`RollerPico`, `HauntedPico` and `CompanionPico` wire one build each, the way
`sim/boards/roller.py` and friends wire the CPython simulation: the same
models, the same simulated players pressing the same buttons. The players
read the board's prompts from its event stream (the USB serial protocol) as a
person reads the LEDs; the firmware runs only on the chip.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable

from hauntbox_fw.paths import FIRMWARE_DIR
from hauntbox_sim.pico import image as pico_image
from hauntbox_sim.pico.board import PicoBoard

BOOT_MS = 5000          # emulated ms; the game's boot answers hello after ~1 s (docs/pico.md)


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
        from hauntbox_sim.pico.emulator import firmware_identity
        self.micropython, self.machine = firmware_identity(self.board.pico.uf2)
        self.host = self.board.host
        self.result = Result()
        self.host.subscribe(self._record)
        if log is not None:
            self.host.subscribe(log)
        # The simulated players subscribe to the host's events as they would to
        # the firmware's bus in the CPython simulation.
        self.view = SimpleNamespace(bus=self.host, controller=SimpleNamespace(game=None))
        self._last_prompt: tuple | None = None
        self.host.on_reply.append(self._reply)
        self.host.subscribe(self._note_prompt)
        self.host.subscribe(self._look)

    def _reply(self, msg: dict) -> None:
        # A state reply: ours, or (on a pty) one the console asked for.
        if msg.get("ok") and "state" in msg and "prompt" in msg:
            self.on_state(msg)
            if self.host.passive:
                self._prompt_from(msg)

    def _prompt_from(self, state: dict, again: bool = False) -> None:
        # The prompt a state reply shows, to the players, unless they have seen
        # it already (on connect; on a pty, where the console asks for states).
        from hauntbox_sim.pico.board import tuples
        p = state.get("prompt")
        if not p:
            return
        ev = ("prompt", p["kind"], p["player"], tuples(p["options"]), 0)
        if again or ev != self._last_prompt:
            for fn in list(self.host.subscribers):
                fn(ev)

    def _note_prompt(self, ev: tuple) -> None:
        if ev[0] == "prompt":
            self._last_prompt = ev

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

    def bots_off(self) -> None:
        """People play every seat (through a console): the simulated players sit out."""
        who = getattr(self, "people", None)
        if who is not None and who.on_event in self.host.subscribers:
            self.host.subscribers.remove(who.on_event)
        if hasattr(self, "_prompt") and self._prompt in self.host.subscribers:
            self.host.subscribers.remove(self._prompt)
        if self._look in self.host.subscribers:
            self.host.subscribers.remove(self._look)

    def connect(self) -> dict:
        """Speak to the board as a console does: hello (events come on with it)."""
        hello = self.host.request("hello", timeout_ms=BOOT_MS)
        if not hello.get("events", False):
            self.host.request("events", on=True)
        # What was asked before the host listened: the pending prompt, as a
        # console shows it on connect.
        self._prompt_from(self.host.request("state"), again=True)
        return hello

    def play(self, max_s: float = 3600.0, until: Callable[[], bool] | None = None) -> Result:
        """Run until the game is over (or `until()`), at most `max_s` of emulated time."""
        done = until or (lambda: self.result.over)
        self.board.run(max_s * 1000, until=done)
        self.result.wall_s = time.monotonic() - self.t0
        self.result.emulated_s = self.board.now_us / 1e6
        return self.result

    def power_cycle(self, flash: bytes) -> None:
        """A power cut, then power-up on `flash` (the filesystem region) in the
        same Node process (its JIT stays warm); the host's end of the link
        starts afresh, the models keep their state (nothing moves in a cut)."""
        self.board._handle(self.board.pico.power_cycle(flash))
        self.host.buf.clear()
        self.host.replies.clear()
        self.host.text.clear()

    def close(self) -> None:
        self.board.close()

    def __enter__(self) -> "PicoSession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RollerPico(PicoSession):
    build = "roller-ghoster"

    def __init__(self, players: int = 4, seed: int = 1, noise: str = "all",
                 policies: list[str] | None = None, faults: Any = None,
                 settings: dict | None = None, **kw: Any) -> None:
        from hauntbox_sim.models.tower import Faults, TowerModel
        from hauntbox_sim.players.buttons import ButtonPlayers
        from hauntbox_sim.boards.roller import noise_config

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
            self.layout_cfg = json.loads((FIRMWARE_DIR / "data/roller-ghoster.json")
                                         .read_text())
        g = state.get("state")
        if isinstance(g, dict):
            self.view.controller.game = RollerGhoster.from_dict(self.layout_cfg, g)


class HauntedPico(PicoSession):
    build = "haunted-house"

    def __init__(self, players: int = 4, seed: int = 1, noise: str = "all",
                 policies: list[str] | None = None, settings: dict | None = None,
                 p_confirm: float = 0.25, outages: list | None = None, **kw: Any) -> None:
        from hauntbox_sim.boards.haunted import (CreditTracker, HauntedPeople, attach_chips, load_data,
                                       noise_config)
        from hauntbox_sim.models.table import TableModel

        cfg = {"game": "haunted-house", "players": players}
        cfg.update(settings or {})
        super().__init__(cfg, **kw)
        self.data = load_data()
        tcfg = noise_config(noise)
        # The chip's own interrupt latency and interrupts-off windows are real
        # here: the model adds none of its own.
        tcfg.irq_delay_p = 0.0
        self.chips = attach_chips(self.pinmap, tcfg, seed, irq_off=None)
        self.policies = policies or ["bold", "safe", "random", "bold"]
        self.table = TableModel(self.pinmap, self.data, self.chips, tcfg, seed=seed,
                                policies=self.policies)
        self.people = HauntedPeople(self.view, self.table, self.pinmap, seed=seed,
                                    bounce=noise in ("bounce", "all"), p_confirm=p_confirm)
        self.tracker = CreditTracker(self.host, self.table, self.data["monster_scores"])
        self.colours = ["red", "blue", "green", "yellow"][:players]
        # Expanders that stop answering for a while (sim/haunted_board.Outage):
        # the chip's I2C transfers to them then go unacknowledged.
        self.outages = outages or []
        if self.outages:
            self.host.subscribe(self._outage_events)

    def _outage_events(self, ev: tuple) -> None:
        from hauntbox_sim.boards.haunted import apply_outages
        apply_outages(ev, self.outages, self.chips, len(self.tracker.credits))


class CompanionPico(PicoSession):
    """The dice companion (Beetlejuice or Super-Skill) on the emulated Pico.

    ROLL prompts are pressed on the buttons; the seats' other decisions are
    made by the same bots as in the CPython simulation, on the game the board
    reports (`state`), and sent with the protocol's `act`, as a console player
    does. (The CPython simulation presses every decision on the buttons, which
    needs the controller's cursor state: the board does not publish it.)
    """

    build = "companion"

    def __init__(self, game: str = "beetlejuice", players: int = 3, seed: int = 1,
                 policies: list[str] | None = None, settings: dict | None = None,
                 **kw: Any) -> None:
        import random

        from hauntbox_sim.boards.companion import DEFAULT_POLICIES
        from hauntbox_sim.players.buttons import PRESS_MS, ButtonPlayers
        cfg = {"game": game, "players": players}
        cfg.update(settings or {})
        super().__init__(cfg, **kw)
        self.game = game
        self.players = players
        self.colours = ["red", "blue", "green", "yellow", "purple", "orange"][:players]
        self.rng = random.Random(seed ^ 0xC0)
        # The players' hands on the buttons; what to press is decided here, so
        # their own reaction to prompts is taken off the event stream.
        self.buttons = ButtonPlayers(self.view, None, self.pinmap, ["random"], seed=seed)
        self.host.subscribers.remove(self.buttons.on_event)
        self.press_ms = PRESS_MS
        self.mirror: Any = None
        self.pending: tuple | None = None
        pol = policies or DEFAULT_POLICIES[game]
        if game == "beetlejuice":
            from hauntbox_sim.players.beetlejuice_bots import make_bot
            from rules.beetlejuice_cards import Config
            from rules.rng import Rng
            raw = json.loads((FIRMWARE_DIR / "data/beetlejuice.json").read_text())
            self.cfg = Config(raw)
            self.bots = [make_bot(p, Rng((seed * 7919 + 104729 * (i + 1)) & 0xFFFFFFFF))
                         for i, p in enumerate(pol)]
        else:
            from hauntbox_sim.players.superskill_bots import make_policy
            from hauntbox_sim.boards.companion import SuperSkillPlayers
            # The players' score sheets: the same paper game as in the CPython
            # simulation, played on the dice the board shows.
            self.sheets = SimpleNamespace(paper=None, todo=[], seat_policies=[
                make_policy(p, seed + 31 * i) for i, p in enumerate(pol)])
            self.sheets.policy = lambda player: SuperSkillPlayers.policy(self.sheets, player)
            SuperSkillPlayers.start_paper(self.sheets, players)
            self.paper_roll = lambda d1, d2: SuperSkillPlayers.paper_roll(self.sheets, d1, d2)
        self.host.subscribe(self._prompt)

    def on_state(self, state: dict) -> None:
        s = state.get("state")
        if not isinstance(s, dict):
            return
        if self.game == "beetlejuice":
            from rules.beetlejuice import BeetlejuiceGame
            self.mirror = BeetlejuiceGame.from_dict(self.cfg, s["game"])
        else:
            self.mirror = s
        if self.pending is not None:
            ev, self.pending = self.pending, None
            self._decide(ev)

    def _prompt(self, ev: tuple) -> None:
        if ev[0] == "roll" and self.game == "superskill":
            if not self.sheets.paper.is_over():
                self.paper_roll(ev[1], ev[2])
            return
        if ev[0] != "prompt" or ev[4] != 0:
            return
        kind = ev[1]
        clk = self.board.clock
        if kind == "play_again" or self.result.over:
            return
        if kind in ("roll", "resume"):
            self.buttons.press("roll", clk.now_us + self.rng.randint(150, 600) * 1000)
            return
        # Look at the table first (the dice as they lie), then decide.
        self.pending = ev
        self.host.send("state")

    def _decide(self, ev: tuple) -> None:
        _, kind, player, options, _ = ev
        if self.game == "beetlejuice" and self.mirror is not None and kind not in ("deal", "draw_bj"):
            action = self.bots[player % len(self.bots)].choose(self.mirror)
        elif self.game == "superskill" and kind == "report":
            # What the sheets say the board cannot see (a round over, a Nudge),
            # one item per prompt, then "next".
            todo = self.sheets.todo
            while todo and todo[0] not in options:
                todo.pop(0)                 # the board already ended that player's game
            paper = self.sheets.paper
            ended = [("round_over", p) for p, ps in enumerate(paper.players) if ps.done]
            if todo:
                action = todo.pop(0)
            else:
                # A sheet whose game is over that the board still counts as
                # playing (its last ball ended on a tilt): say so.
                action = next((o for o in ended if o in options), ("next",))
        elif self.game == "superskill" and kind == "result":
            w = self.sheets.paper.winners()
            action = ("winner", w[0]) if len(w) == 1 else ("tie",)
        else:
            action = options[self.rng.randrange(len(options))]
        self.host.send("act", action=list(action))
