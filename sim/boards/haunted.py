"""A whole simulated Haunted House build: firmware + expander chips + table model + people.

The firmware runs unmodified: it configures the simulated MCP23017 chips over
the fake I2C bus, takes their INT edges through its EdgeRecorders, and hears
the people only through the panel buttons. The people (bots) launch dice when
prompted, move monsters and clues as the rules ask, and act as the referee:
they answer "whose die?" and the round-end faces/realms by pressing
LEFT/RIGHT/CONFIRM, from what a person at the table sees (sim/players/referee_view.py:
the colour of the die lying in the circle or in the hole's tray, each die's
face and realm where it lies), never from the model's record of the launch.

`CreditTracker` compares what the firmware credited (rule effects on the event
bus) with what really happened (the model's record of each launch).
"""
from __future__ import annotations

import json
import random
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.core import runtime
from hauntbox_sim.core.clock import VirtualClock
from hauntbox_sim.fakes import machine
from hauntbox_sim.models.mcp23017 import Mcp23017Model
from hauntbox_sim.models.table import Launch, TableConfig, TableModel, noise_config

FIRMWARE = sim_install.FIRMWARE
PRESS_MS = 80
GAP_MS = 120


def load_pinmap() -> dict:
    return json.loads((FIRMWARE / "boards/haunted-house.json").read_text())


def load_data() -> dict:
    return json.loads((FIRMWARE / "data/haunted-house.json").read_text())


class IrqOff:
    """When the simulated Pico has interrupts off: during its NeoPixel writes
    (~30 us per LED, run with interrupts disabled on the rp2 port)."""

    def __init__(self) -> None:
        self.until = 0
        self.total_us = 0

    def __call__(self) -> int:
        return self.until

    def watch(self, np: Any) -> None:
        write = np.write

        def timed_write() -> None:
            # The window starts when the write starts: the fake's write
            # (runtime.irq_off) has moved the clock to its end by the time it
            # returns, so timing from after it marked a second window that
            # never was.
            start = runtime.clock().now_us
            write()
            d = np.write_time_us()
            self.total_us += d
            self.until = max(self.until, start + d)
        np.write = timed_write


def attach_chips(pinmap: dict, cfg: TableConfig | None = None, seed: int = 0,
                 irq_off: Any = None) -> dict[str, Mcp23017Model]:
    """One chip model per expander in the pin map, on its bus, INTA on its Pico pin."""
    chips = {}
    cfg = cfg or TableConfig()
    for k, dev in enumerate(pinmap["i2c"]["devices"]):
        gpio = pinmap["pins"][dev["int_pin"]]["gpio"]
        m = Mcp23017Model(int_a=machine.pin(gpio), name=dev["name"], irq_delay_p=cfg.irq_delay_p,
                          irq_delay_us=cfg.irq_delay_us, seed=seed * 7 + k, irq_off_until=irq_off)
        m.log_transfers = False
        machine.attach_i2c_device(dev.get("bus", 0), dev["addr"], m)
        chips[dev["name"]] = m
    return chips


@dataclass
class Credit:
    """What the firmware credited during one launch window."""
    player: int
    monsters: list[str] = field(default_factory=list)
    clues: list[str] = field(default_factory=list)
    circles: list[int] = field(default_factory=list)
    holes: list[int] = field(default_factory=list)
    wrong_player: int = 0


class CreditTracker:
    """Listens to the firmware's events and keeps the credits per launch."""

    def __init__(self, bus: Any, model: TableModel, monster_scores: list[int]) -> None:
        self.model = model
        self.monster_scores = monster_scores
        self.credits: list[Credit] = []
        self.rounds_checked = 0
        self.round_mismatches: list[tuple] = []
        bus.subscribe(self)

    def __call__(self, ev: tuple) -> None:
        k = ev[0]
        if k == "launched":
            self.credits.append(Credit(ev[1]))
            return
        if not self.credits:
            return
        c = self.credits[-1]
        if k == "monster_hit":
            c.monsters.append(ev[2])
            c.wrong_player += ev[1] != c.player
        elif k == "clue_taken":
            c.clues.append(ev[2])
            c.wrong_player += ev[1] != c.player
        elif k in ("summoned", "summon_refused"):
            c.circles.append(ev[1])
        elif k == "die_lost" and ev[2] == "hole":
            c.holes.append(ev[1])
        elif k == "round_scored":
            _, rnd, p, dice, mon, _total = ev
            truth = self.model.round_points(p, rnd, self.monster_scores)
            self.rounds_checked += 1
            if truth != (dice, mon):
                self.round_mismatches.append((rnd, p, (dice, mon), truth))


@dataclass
class HitReport:
    launches: int = 0
    windows: int = 0
    true_hits: int = 0
    credited: int = 0
    missed: int = 0
    phantom: int = 0
    wrong_player: int = 0
    true_monsters: int = 0
    true_clues: int = 0
    circle_true: int = 0
    circle_credited: int = 0
    circle_wrong: int = 0
    hole_true: int = 0
    hole_credited: int = 0
    hole_wrong: int = 0
    rounds_checked: int = 0
    round_mismatches: int = 0
    glitches: int = 0
    games: int = 0
    doubted: int = 0             # turns the firmware found doubtful (fault sensor_doubt) and asked about

    def add(self, o: "HitReport") -> None:
        for k in self.__dataclass_fields__:
            setattr(self, k, getattr(self, k) + getattr(o, k))

    @property
    def ok(self) -> bool:
        return (self.missed == 0 and self.phantom == 0 and self.wrong_player == 0
                and self.launches == self.windows and self.circle_wrong == 0 and self.hole_wrong == 0
                and self.circle_true == self.circle_credited and self.hole_true == self.hole_credited
                and self.round_mismatches == 0)


def compare(launches: list[Launch], credits: list[Credit]) -> HitReport:
    """Hits credited per launch against the truth of that launch.

    A hit credited in the window of another launch whose truth has it (and
    where it was missed) counts as credited to the wrong player (or the wrong
    turn), not as one miss plus one phantom."""
    r = HitReport(launches=len(launches), windows=len(credits))
    n = min(len(launches), len(credits))
    missing: list[Counter] = []
    extra: list[Counter] = []
    for i in range(len(launches)):
        t = launches[i]
        truth = Counter([("m", m) for m in t.monsters] + [("c", s) for s in t.clues])
        r.true_monsters += len(t.monsters)
        r.true_clues += len(t.clues)
        r.true_hits += sum(truth.values())
        r.circle_true += len(t.circles)
        r.hole_true += len(t.holes)
        got: Counter = Counter()
        if i < n:
            c = credits[i]
            got = Counter([("m", m) for m in c.monsters] + [("c", s) for s in c.clues])
            r.wrong_player += c.wrong_player
            if c.player != t.player:
                # The windows are out of step: whatever this one credited went
                # to someone else; none of it matches this launch.
                r.wrong_player += sum(got.values())
                r.credited += sum(got.values())
                missing.append(truth)
                extra.append(Counter())
                continue
            r.circle_credited += len(c.circles)
            r.hole_credited += len(c.holes)
            r.circle_wrong += sum((Counter(c.circles) - Counter(t.circles)).values())
            r.hole_wrong += sum((Counter(c.holes) - Counter(t.holes)).values())
        r.credited += sum(got.values())
        missing.append(truth - got)
        extra.append(got - truth)
    for c in credits[n:]:
        got = Counter([("m", m) for m in c.monsters] + [("c", s) for s in c.clues])
        r.credited += sum(got.values())
        extra.append(got)
    # A hit credited one window early or late went to the wrong turn.
    for j in range(len(extra)):
        for item in list(extra[j]):
            for i in (j - 1, j + 1):
                if 0 <= i < len(missing) and extra[j][item] and missing[i][item]:
                    k = min(extra[j][item], missing[i][item])
                    extra[j][item] -= k
                    missing[i][item] -= k
                    r.wrong_player += k
    r.missed = sum(sum(m.values()) for m in missing)
    r.phantom = sum(sum(e.values()) for e in extra)
    return r


class HauntedPeople:
    """The players and the referee: they react to the firmware's prompts."""

    def __init__(self, app: Any, model: TableModel, pinmap: dict, seed: int = 0, bounce: bool = False,
                 think_ms: tuple[int, int] = (300, 900), p_confirm: float = 0.25,
                 p_place_confirm: float = 0.1) -> None:
        self.app = app
        self.model = model
        self.rng = random.Random(seed ^ 0x9E0)
        self.bounce = bounce
        self.think_ms = think_ms
        self.p_confirm = p_confirm
        self.p_place_confirm = p_place_confirm
        self.patience_ms = 4000
        pins = pinmap["pins"]
        self.pins = {n: machine.pin(pins["btn_" + n]["gpio"]) for n in ("roll", "left", "right", "menu")
                     if "btn_" + n in pins}
        for p in self.pins.values():
            p.sim_drive(None)
        self.seq = 0
        self.presses = 0
        self.rec: Launch | None = None
        self.circle_done = 0
        self.hole_done = 0
        self.credited: set[tuple[str, str]] = set()
        self.entries: dict[int, list[tuple]] = {}
        self.entry: tuple | None = None
        self.entry_mismatch = 0
        # A turn was played on this table or a saved game put on it (a host
        # that connects late sees no first "game").
        self.played = False
        from hauntbox_sim.players.referee_view import TableView
        self.view = TableView(model)
        self.asked_where: str | None = None     # the hole or circle the firmware asks about
        app.bus.subscribe(self.on_event)

    # --- events ---------------------------------------------------------------
    def on_event(self, ev: tuple) -> None:
        k = ev[0]
        if k == "prompt":
            self.on_prompt(ev)
        elif k == "window" and ev[1] == "closed":
            self.model.after_turn()
            self.played = True
        elif k in ("summoned", "summon_refused"):
            self.circle_done += 1
        elif k == "die_lost" and ev[2] == "hole":
            self._reported_hole(ev[1])
        elif k == "monster_hit":
            self.credited.add(("m", ev[2]))
        elif k == "clue_taken":
            self.credited.add(("c", ev[2]))
        elif k in ("circle_owner", "hole_owner"):
            self.asked_where = ev[1]
        elif k == "enter_dice":
            self.entries[ev[1]] = self.view.entries(ev[1], self.model.round, ev[2])
            # What the table shows against the model's record (the checks'
            # view): they differ only if the firmware lost count of the dice.
            truth = self.model.entries_for(ev[1], self.model.round)
            if sorted(map(repr, self.entries[ev[1]])) != sorted(map(repr, truth)):
                self.entry_mismatch += 1
        elif k == "collect_dice":
            self.model.round_over()
        elif k == "game":
            # Play-again: the next game starts on the table the last one left.
            if self.played:
                self.model.new_game()
            self.played = True
        elif k == "resumed":
            self.played = True

    def _reported_hole(self, owner: int) -> None:
        rec = self.rec
        self.hole_done += 1
        if rec is None:
            return
        for d in rec.hole_dice:
            if d.owner == owner and not d.reported:
                d.reported = True
                return

    # --- prompts --------------------------------------------------------------
    def on_prompt(self, ev: tuple) -> None:
        _, kind, player, options, highlight = ev
        if highlight != 0:
            return          # our own LEFT/RIGHT presses moving the highlight
        self.seq += 1
        seq = self.seq
        clk = runtime.clock()
        now = clk.now_us
        think = self.rng.randint(*self.think_ms) * 1000
        if kind == "launch":
            t = max(now + think, self.model.chores_until + 200_000)
            clk.at(t, lambda: self._launch(player, seq))
            # If nothing happens (the launch beam went blind), say "launched".
            self.press_option(0, t + self.patience_ms * 1000, seq)
            return
        if kind == "launch_press":
            # No launch beam: press CONFIRM, then flick the die.
            t = max(now + think, self.model.chores_until + 200_000)
            t_next = self.press_option(0, t, seq)
            clk.at(t_next + self.rng.randint(100, 400) * 1000, lambda: self._launch(player, seq + 1))
            return
        if kind == "flight":
            if self.rec is not None and self.rng.random() < self.p_confirm:
                t = max(now, self.rec.settled_us) + self.rng.randint(300, 900) * 1000
                self.press_option(0, t, seq)
            return
        if kind == "place":
            # Once the pieces are down, people press CONFIRM if the lights stay
            # on (an expander is down), and now and then anyway.
            done = max(now, self.model.chores_until)
            if self.rng.random() < self.p_place_confirm:
                wait = self.rng.randint(500, 1500)
            else:
                wait = self.patience_ms
            self.press_option(0, done + wait * 1000, seq)
            return
        self.press_option(self.choose(kind, player, options), now + think, seq)

    def _launch(self, player: int, seq: int) -> None:
        if seq != self.seq:
            return
        self.rec = self.model.launch(player)
        self.circle_done = 0
        self.hole_done = 0
        self.credited = set()

    def choose(self, kind: str, player: int, options: list[tuple]) -> int:
        rec = self.rec
        if kind == "circle_owner":
            return self._index(options, ("owner", self.view.circle_owner(player)))
        if kind == "hole_owner":
            return self._index(options, ("owner", self.view.hole_owner(self.asked_where, player)))
        if kind == "face":
            queue = self.entries.get(player) or []
            self.entry = queue.pop(0) if queue else ("lost",)
            if self.entry == ("lost",):
                return self._index(options, ("lost",))
            return self._index(options, ("face", self.entry[0]))
        if kind == "realm":
            realm = self.entry[1] if self.entry and self.entry[1] else "none"
            for i, o in enumerate(options):
                if o[1] == realm:
                    return i
            return 0
        if kind == "manual" and rec is not None:
            return self._manual(options, rec)
        return 0

    def _manual(self, options: list[tuple], rec: Launch) -> int:
        # An expander is down: enter what really happened and was not credited.
        for m in rec.monsters:
            if ("m", m) not in self.credited and ("monster_hit", m) in options:
                return options.index(("monster_hit", m))
        for s in rec.clues:
            if ("c", s) not in self.credited and ("clue_taken", s) in options:
                return options.index(("clue_taken", s))
        if self.circle_done < len(rec.circles):
            o = ("circle", rec.circles[self.circle_done])
            if o in options:
                return options.index(o)
        if self.hole_done < len(rec.holes):
            o = ("hole", rec.holes[self.hole_done])
            if o in options:
                return options.index(o)
        return options.index(("done",))

    @staticmethod
    def _index(options: list[tuple], want: tuple) -> int:
        return options.index(want) if want in options else 0

    # --- buttons --------------------------------------------------------------
    def press_option(self, index: int, t_us: int, seq: int) -> int:
        for _ in range(index):
            t_us = self.press("right", t_us, seq)
        return self.press("roll", t_us, seq)

    def press(self, name: str, t_us: int, seq: int) -> int:
        """Schedule one press at t_us if the prompt is still the same then."""
        pin = self.pins[name]
        clk = runtime.clock()

        def down() -> None:
            if seq != self.seq:
                return
            self.presses += 1
            pin.sim_drive(0)
            clk.after_ms(PRESS_MS, lambda: pin.sim_drive(None))
        if self.bounce:
            def chatter() -> None:
                if seq != self.seq:
                    return
                for i in range(3):
                    clk.at(clk.now_us + i * 300, lambda: pin.sim_drive(0))
                    clk.at(clk.now_us + i * 300 + 150, lambda: pin.sim_drive(None))
            clk.at(t_us, chatter)
            t_us += 1000
        clk.at(t_us, down)
        return t_us + (PRESS_MS + GAP_MS) * 1000


@dataclass
class Outage:
    """An expander stops answering for a while (fault injection)."""
    chip: str = "exp_b"
    at_launch: int = 3            # goes down when this launch (1-based) starts
    launches: int = 2             # answers again after this many more launches


def apply_outages(ev: tuple, outages: list[Outage], chips: dict, launches: int) -> None:
    """At a `launched` event: take down or bring back the expanders whose outage
    starts or ends at this launch (`launches` credited so far)."""
    if ev[0] != "launched":
        return
    for o in outages:
        if launches == o.at_launch:
            chips[o.chip].responding = False
        elif launches == o.at_launch + o.launches:
            chips[o.chip].responding = True


def parse_outage(spec: str, pinmap: dict) -> Outage:
    """`--fault expander-down:CHIP@LAUNCH+N` (CHIP one of the pin map's expanders,
    LAUNCH >= 1, N >= 1); a one-line ValueError for anything else."""
    usage = "expander-down:CHIP@LAUNCH+N, e.g. expander-down:exp_b@3+2"
    name, _, arg = spec.partition(":")
    if name != "expander-down":
        raise ValueError(f"unknown fault {spec!r} for Haunted House ({usage})")
    chip, _, when = (arg or "exp_b").partition("@")
    at, _, dur = (when or "3").partition("+")
    chips = [d["name"] for d in pinmap["i2c"]["devices"]]
    if (chip or "exp_b") not in chips:
        raise ValueError(f"--fault {spec}: no expander {chip!r} (this build has "
                         f"{', '.join(chips)})")
    if not at.isdigit() or int(at) < 1 or not (dur or "2").isdigit() or int(dur or 2) < 1:
        raise ValueError(f"--fault {spec}: LAUNCH and N must be whole numbers from 1 ({usage})")
    return Outage(chip or "exp_b", int(at), int(dur or 2))


@dataclass
class HauntedSim:
    players: int = 4
    seed: int = 1
    noise: str = "none"
    policies: list[str] = field(default_factory=lambda: ["bold", "safe", "random", "bold"])
    state_dir: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    table_cfg: TableConfig | None = None
    outages: list[Outage] = field(default_factory=list)
    p_confirm: float = 0.25
    # A host console on the serial link (sim/models/host_link.py), as for RollerSim.
    host_link: Any = None
    host_period_ms: int = 100

    def __post_init__(self) -> None:
        self.clock = sim_install.install(VirtualClock())
        if self.state_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="hauntbox-state-")
            self.state_dir = self._tmp.name
        Path(self.state_dir).mkdir(parents=True, exist_ok=True)
        self.pinmap = load_pinmap()
        self.data = load_data()
        cfg = self.table_cfg or noise_config(self.noise)
        self.irq_off = IrqOff()
        self.chips = attach_chips(self.pinmap, cfg, self.seed, self.irq_off)
        self.table = TableModel(self.pinmap, self.data, self.chips, cfg, seed=self.seed,
                                policies=self.policies)
        import app as firmware_app  # the unmodified firmware module
        self.app = firmware_app.App(root=str(FIRMWARE) + "/", state_root=self.state_dir,
                                    settings=self.settings, seed=self.seed, game="haunted-house")
        build = self.app.controller.build
        for strip in (build.score_strip, build.spot_strip):
            self.irq_off.watch(strip.np)
        self.people = HauntedPeople(self.app, self.table, self.pinmap, seed=self.seed,
                                    bounce=self.noise in ("bounce", "all"), p_confirm=self.p_confirm)
        self.tracker = CreditTracker(self.app.bus, self.table, self.data["monster_scores"])
        if self.outages:
            self.app.bus.subscribe(self._outage_events)

    def _outage_events(self, ev: tuple) -> None:
        apply_outages(ev, self.outages, self.chips, len(self.tracker.credits))

    @property
    def controller(self) -> Any:
        return self.app.controller

    @property
    def colours(self) -> list[str]:
        return self.app.controller.colours

    def run(self, resume: bool = True) -> int | None:
        from hauntbox_sim.models.host_link import host_tasks
        extra = host_tasks(self.app, self.host_link, self.host_period_ms)
        return sim_install.run(self.app.main_async(self.players, 0, resume, extra_tasks=extra))

    def sim_seconds(self) -> float:
        return runtime.clock().now_us / 1e6

    def report(self) -> HitReport:
        r = compare(self.table.launches, self.tracker.credits)
        r.rounds_checked = self.tracker.rounds_checked
        r.round_mismatches = len(self.tracker.round_mismatches)
        r.glitches = self.table.glitches
        r.games = 1
        return r


def run_cli(args: Any) -> int:
    """`python -m hauntbox_sim --game haunted-house ...`: play one game and print it."""
    import sys
    import time

    from hauntbox_sim.views.haunted_log import HauntedLog
    from hauntbox_sim.views.haunted import render_scoreboard, render_table

    if not 1 <= args.players <= 4:
        print("hauntbox sim: --players must be 1..4 for Haunted House", file=sys.stderr)
        return 2
    try:
        outages = [parse_outage(spec, load_pinmap()) for spec in args.fault]
    except ValueError as e:
        print(f"hauntbox sim: {e}", file=sys.stderr)
        return 2
    policies = args.policy or ["bold", "safe", "random", "bold"]
    t0 = time.monotonic()
    s = HauntedSim(players=args.players, seed=args.seed, noise=args.noise, policies=policies,
                   state_dir=args.state_dir, outages=outages)
    layout = s.pinmap["pixels"]
    monsters = [m["id"] for m in s.data["monsters"]]
    np = s.controller.build.score_strip.np

    def board() -> str:
        return render_scoreboard(np, layout, s.colours[:args.players], monsters)

    if not args.quiet:
        log = HauntedLog(s.colours, clock_s=s.sim_seconds, scoreboard=board)
        s.app.bus.subscribe(log)
        if args.view:
            def draw(ev: tuple) -> None:
                if ev[0] == "window" and ev[1] == "closed":
                    print(render_table(s.table, s.controller.game, s.colours))
            s.app.bus.subscribe(draw)
    winner = s.run()
    wall = time.monotonic() - t0
    g = s.controller.game
    rep = s.report()
    who = " and ".join(s.colours[p] for p in g.winners)
    print(f"Winner: {who} with {max(g.final_scores())} points; {rep.launches} launches, "
          f"{rep.credited} hits credited ({rep.true_hits} true), {s.sim_seconds():.0f} s of play "
          f"simulated in {wall:.2f} s")
    ok = g.is_over() and (winner is not None or len(g.winners) > 1)
    return 0 if ok else 1
