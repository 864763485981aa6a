"""Physical model of the instrumented Boxtop Pinball: Haunted House table.

It drives the sensor lines on the simulated MCP23017 chips the way the real
table would:

- a launch crosses the launch-pad beam, then the die bounces around for a
  while: it may knock a monster standee (the spot's presence contact opens for
  a few milliseconds, with contact bounce, and the standee may end up lying
  down: the contact then stays open), displace a clue (its contact opens and
  stays open, or flickers open if the tile jumps back), knock a die already on
  the machine (which may then fall through a hole, drop off the edge, move into
  or out of a realm or the Summoning Circle, or hit a monster itself), or roll
  across the circle without stopping;
- the die ends in a hole (the chute's beam is blocked for 8-25 ms), off the
  machine, in the circle (its beam stays blocked), in a haunted realm, or
  anywhere else;
- people: after each turn they move the monsters that were hit to the next
  level and take the clues; at round end they collect the dice, put the
  monsters home and refill the clue spots;
- noise: contact bounce on every mechanical transition, chatter on beam edges
  and short glitches on every line.

The model keeps the ground truth: for every launch, which monsters and clues
were really hit, which dice entered the circle and fell through holes (with
their owners), and each die's final face and realm. The simulated referee
answers the firmware's questions from it (whose die, faces, realms).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from hauntbox_sim.core import runtime


@dataclass
class TableConfig:
    # flight of one launched die
    launch_to_table_ms: tuple[float, float] = (150.0, 400.0)
    bounces: tuple[int, int] = (1, 5)
    bounce_gap_ms: tuple[float, float] = (120.0, 900.0)   # must stay below quiet_ms
    settle_ms: tuple[float, float] = (100.0, 300.0)       # last contact -> the die lies still
    p_monster: float = 0.20          # per bounce: hits a monster standing in place
    p_clue: float = 0.14             # per bounce: hits a clue
    p_knock: float = 0.25            # per bounce: knocks a die already on the machine
    p_pass_circle: float = 0.05      # per bounce: rolls across the circle without stopping
    # where the launched die comes to rest
    p_hole: float = 0.08
    p_off: float = 0.05
    p_circle: float = 0.10
    p_realm: float = 0.30
    realm_weights: dict[str, float] = field(default_factory=lambda: {"ravens": 0.25, "chest": 0.35, "gnomes": 0.40})
    p_face_kept: float = 0.3         # the face the player set up survives the flight
    # a knocked die
    knock_delay_ms: tuple[float, float] = (30.0, 100.0)   # < bounce_gap_ms[0]
    k_hole: float = 0.08
    k_off: float = 0.04
    k_circle: float = 0.10
    k_realm: float = 0.25
    k_leave_realm: float = 0.30
    k_leave_circle: float = 0.7
    k_new_face: float = 0.5
    k_hits_monster: float = 0.15
    # what a hit does to the piece
    p_displace_monster: float = 0.5
    p_displace_clue: float = 0.8
    # signal shapes
    # A knock rocks the piece: its contact stays open while the magnet (or
    # the reflecting base) is past the release point, 25-150 ms
    # (hardware/sensing-envelope.md); a displaced piece keeps it open.
    impact_ms: tuple[float, float] = (25.0, 150.0)
    hole_ms: tuple[float, float] = (8.0, 25.0)
    launch_ms: tuple[float, float] = (6.0, 15.0)
    pass_circle_ms: tuple[float, float] = (20.0, 100.0)
    # people
    chore_ms: tuple[float, float] = (300.0, 1200.0)
    # noise
    bounce: bool = False             # mechanical contacts bounce on every transition
    chatter: bool = False            # beam edges chatter
    glitches_per_s: float = 0.0      # short false pulses, per line
    glitch_us: tuple[int, int] = (50, 1000)
    # other interrupt handlers sometimes make the INT edge (and so the chip
    # read) come late, after short pulses are already over. (The firmware's
    # own NeoPixel writes, which run with interrupts off, are always modelled.)
    irq_delay_p: float = 0.0
    irq_delay_us: tuple[int, int] = (20, 300)


def noise_config(noise: str) -> TableConfig:
    cfg = TableConfig()
    if noise in ("bounce", "all"):
        cfg.bounce = True
        cfg.chatter = True
    if noise in ("glitch", "all"):
        cfg.glitches_per_s = 0.1
    if noise == "all":
        cfg.irq_delay_p = 0.2
    return cfg


POLICY_AIM = {
    # launch style: multipliers on the chance of a realm / a hole / the circle
    "random": (1.0, 1.0, 1.0),
    "safe": (0.7, 0.5, 1.0),
    "bold": (1.5, 1.5, 1.2),
}


@dataclass
class Die:
    owner: int
    face: int
    where: str = "flight"          # plain | realm | circle | hole | off
    realm: str | None = None
    round: int = 1
    reported: bool = False         # a hole loss the firmware has credited
    hole: str | None = None        # the hole it fell through (its tray, where people see it)
    fell_us: int = 0               # when it dropped into that tray

    @property
    def on_machine(self) -> bool:
        return self.where in ("plain", "realm", "circle")


@dataclass
class Launch:
    player: int
    round: int
    t_us: int
    monsters: list[str] = field(default_factory=list)
    clues: list[str] = field(default_factory=list)
    circles: list[int] = field(default_factory=list)     # owners, in time order
    holes: list[int] = field(default_factory=list)
    hole_dice: list[Die] = field(default_factory=list)
    settled_us: int = 0
    # (("m", monster) or ("c", clue spot), time the piece was hit (us)): for
    # the checks that match each true hit with one credit by time.
    hit_times: list[tuple[tuple[str, str], int]] = field(default_factory=list)


class Signal:
    """One sensor line: a base state, transient pulses and inversions (bounce, glitches)."""

    __slots__ = ("chip", "bit", "active_level", "base", "pulses", "inv", "_raw")

    def __init__(self, chip: Any, bit: int, active_level: int) -> None:
        self.chip = chip
        self.bit = bit
        self.active_level = active_level
        self.base = False
        self.pulses = 0
        self.inv = 0
        self._raw: int | None = None

    def active(self) -> bool:
        a = self.base or self.pulses > 0
        return (not a) if self.inv else a

    def update(self) -> None:
        raw = self.active_level if self.active() else 1 - self.active_level
        if raw != self._raw:
            self._raw = raw
            # Contacts and beam receivers pull low or let go (the pull-up wins).
            self.chip.set_input(self.bit, 0 if raw == 0 else None)


class TableModel:
    def __init__(self, pinmap: dict, data: dict, chips: dict[str, Any], cfg: TableConfig | None = None,
                 seed: int = 0, policies: list[str] | None = None) -> None:
        self.cfg = cfg or TableConfig()
        self.rng = random.Random(seed ^ 0x7AB1E)
        self.clock = runtime.clock()
        self.data = data
        self.policies = policies or ["random"]
        kinds = pinmap["table"]["kinds"]
        kind_of = pinmap["table"]["lines"]
        self.lines: dict[str, Signal] = {}
        self.kind: dict[str, str] = {}
        for dev in pinmap["i2c"]["devices"]:
            chip = chips[dev["name"]]
            for name, pin in dev["inputs"].items():
                bit = (0 if pin[0] == "A" else 8) + int(pin[1])
                k = kind_of[name]
                self.lines[name] = Signal(chip, bit, kinds[k]["active"])
                self.kind[name] = k
        self.levels = [lv["id"] for lv in data["levels"]]
        self.monster_spots = {m["id"]: m["spots"] for m in data["monsters"]}
        self.home = {m["id"]: m["home"] for m in data["monsters"]}
        self.monster_level = dict(self.home)
        self.monster_hit: set[str] = set()          # hit, waiting to be moved
        self.clue_ids = [c["id"] for c in data["clue_spots"]]
        self.clue_present = {c: True for c in self.clue_ids}
        self.clue_hit: set[str] = set()
        self.holes = [h["id"] for h in data["holes"]]
        self.realms = {r["id"]: r["multiplier"] for r in data["realms"]}
        self.circle_id = data["summoning_circle"]["id"]
        self.circle_die: Die | None = None
        self.dice: list[Die] = []
        self.launches: list[Launch] = []
        self.round = 1
        self.chores_until = 0
        self._moved_now: list[Die] = []
        self.glitches = 0
        self.stats = {"impacts": 0, "displaced": 0, "pass_circle": 0, "knocks": 0}
        for name in self.lines:
            self.lines[name].base = self._base_active(name)
            self.lines[name].update()
        if self.cfg.glitches_per_s > 0:
            for name in self.lines:
                self._schedule_glitch(name)

    # --- static state --------------------------------------------------------
    def monster_spot(self, m: str) -> str:
        return self.monster_spots[m][self.monster_level[m]]

    def _base_active(self, name: str) -> bool:
        k = self.kind[name]
        if k == "spot":
            if name in self.clue_present:
                return not self.clue_present[name]
            return all(self.monster_spot(m) != name for m in self.monster_spots)
        if k == "circle":
            return self.circle_die is not None
        return False

    # --- signal primitives ---------------------------------------------------
    def _at(self, t: int, fn) -> None:
        self.clock.at(t, fn)

    def _bounce(self, name: str, t: int, n: tuple[int, int] = (2, 4)) -> None:
        """Contact bounce / beam chatter: a few short returns to the old level."""
        sig = self.lines[name]
        s = t
        for _ in range(self.rng.randint(*n)):
            s += self.rng.randint(80, 500)
            w = self.rng.randint(40, 300)
            self._at(s, lambda: self._inv(sig, 1))
            self._at(s + w, lambda: self._inv(sig, -1))
            s += w

    def _inv(self, sig: Signal, d: int) -> None:
        sig.inv += d
        sig.update()

    def _set_base(self, name: str, active: bool, t: int, bounce: bool | None = None) -> None:
        sig = self.lines[name]

        def go() -> None:
            sig.base = active
            sig.update()
        self._at(t, go)
        if self.cfg.bounce if bounce is None else bounce:
            self._bounce(name, t)

    def _pulse(self, name: str, t: int, width_us: int, then_active: bool = False) -> None:
        """The line is active from t for width_us; then_active keeps it active afterwards."""
        sig = self.lines[name]
        beam = self.kind[name] != "spot"
        noisy = self.cfg.chatter if beam else self.cfg.bounce

        def start() -> None:
            sig.pulses += 1
            sig.update()

        def end() -> None:
            if then_active:
                sig.base = True
            sig.pulses -= 1
            sig.update()
        self._at(t, start)
        self._at(t + width_us, end)
        if noisy:
            self._bounce(name, t, (1, 3))
            if not then_active:
                self._bounce(name, t + width_us, (1, 3))

    def _schedule_glitch(self, name: str) -> None:
        gap_s = self.rng.expovariate(self.cfg.glitches_per_s)
        t = self.clock.now_us + int(gap_s * 1e6)
        sig = self.lines[name]

        def glitch() -> None:
            self.glitches += 1
            self._inv(sig, 1)
            self._at(self.clock.now_us + self.rng.randint(*self.cfg.glitch_us), lambda: self._inv(sig, -1))
            self._schedule_glitch(name)
        self._at(t, glitch)

    def _ms(self, rng_ms: tuple[float, float]) -> int:
        return int(self.rng.uniform(*rng_ms) * 1000)

    # --- a launch ------------------------------------------------------------
    def launch(self, player: int, face: int = 6) -> Launch:
        """The player flicks one die now; schedules every signal of its flight."""
        c = self.cfg
        now = self.clock.now_us
        rec = Launch(player, self.round, now)
        self.launches.append(rec)
        pol = self.policies[player % len(self.policies)]
        aim_realm, aim_hole, aim_circle = POLICY_AIM.get(pol, (1.0, 1.0, 1.0))
        self._pulse("launch", now, self._ms(c.launch_ms))
        die = Die(player, face, round=self.round)
        self.dice.append(die)
        hit_now: set[str] = set()
        taken_now: set[str] = set()
        self._moved_now: list[Die] = [die]     # dice set moving by this launch
        t = now + self._ms(c.launch_to_table_ms)
        # Bounces off walls are silent; the time between two things a sensor
        # notices stays below bounce_gap_ms[1] (the table is never quiet for
        # quiet_ms while the die still moves).
        for _ in range(self.rng.randint(*c.bounces)):
            r = self.rng.random()
            sensed = False
            if r < c.p_monster:
                sensed = self._hit_monster(rec, t, hit_now)
            elif r < c.p_monster + c.p_clue:
                sensed = self._hit_clue(rec, t, taken_now)
            elif r < c.p_monster + c.p_clue + c.p_knock:
                sensed = self._knock(rec, t, hit_now)
            elif r < c.p_monster + c.p_clue + c.p_knock + c.p_pass_circle:
                if self.circle_die is None:
                    self.stats["pass_circle"] += 1
                    self._pulse(self.circle_id, t, self._ms(c.pass_circle_ms))
                    sensed = True
            if sensed:
                t += self._ms(c.bounce_gap_ms)
        # where the launched die comes to rest
        die.face = face if self.rng.random() < c.p_face_kept else self.rng.randint(1, 6)
        r = self.rng.random()
        p_hole = c.p_hole * aim_hole
        p_off = c.p_off
        p_circle = c.p_circle * aim_circle
        p_realm = c.p_realm * aim_realm
        if r < p_hole:
            self._into_hole(rec, die, t)
        elif r < p_hole + p_off:
            die.where = "off"
        elif r < p_hole + p_off + p_circle and self.circle_die is None:
            self._into_circle(rec, die, t)
        elif r < p_hole + p_off + p_circle + p_realm:
            die.where = "realm"
            die.realm = self._pick_realm()
        else:
            die.where = "plain"
        rec.settled_us = t + self._ms(c.settle_ms)
        return rec

    def _pick_realm(self) -> str:
        w = self.cfg.realm_weights
        names = [r for r in self.realms if r in w] or list(self.realms)
        return self.rng.choices(names, weights=[w.get(r, 1.0) for r in names])[0]

    def _hit_monster(self, rec: Launch, t: int, hit_now: set[str]) -> bool:
        standing = [m for m in self.monster_spots if m not in hit_now and m not in self.monster_hit]
        if not standing:
            return False
        m = self.rng.choice(standing)
        hit_now.add(m)
        self.monster_hit.add(m)
        rec.monsters.append(m)
        rec.hit_times.append((("m", m), t))
        self.stats["impacts"] += 1
        displaced = self.rng.random() < self.cfg.p_displace_monster
        if displaced:
            self.stats["displaced"] += 1
        self._pulse(self.monster_spot(m), t, self._ms(self.cfg.impact_ms), then_active=displaced)
        return True

    def _hit_clue(self, rec: Launch, t: int, taken_now: set[str]) -> bool:
        there = [s for s in self.clue_ids if self.clue_present[s] and s not in self.clue_hit]
        if not there:
            return False
        s = self.rng.choice(there)
        taken_now.add(s)
        self.clue_hit.add(s)
        rec.clues.append(s)
        rec.hit_times.append((("c", s), t))
        displaced = self.rng.random() < self.cfg.p_displace_clue
        self._pulse(s, t, self._ms(self.cfg.impact_ms), then_active=displaced)
        return True

    def _into_hole(self, rec: Launch, die: Die, t: int) -> None:
        die.where = "hole"
        die.realm = None
        rec.holes.append(die.owner)
        rec.hole_dice.append(die)
        die.hole = self.rng.choice(self.holes)
        die.fell_us = t
        self._pulse(die.hole, t, self._ms(self.cfg.hole_ms))

    def _into_circle(self, rec: Launch, die: Die, t: int) -> None:
        die.where = "circle"
        die.realm = None
        self.circle_die = die
        rec.circles.append(die.owner)
        self._set_base(self.circle_id, True, t, bounce=self.cfg.chatter)

    def _knock(self, rec: Launch, t: int, hit_now: set[str]) -> bool:
        c = self.cfg
        # Only a die lying still can be knocked: not one already moving in this
        # flight (so a die knocked into the circle stays there for this flight).
        resting = [d for d in self.dice if d.on_machine and all(d is not x for x in self._moved_now)]
        if not resting:
            return False
        d = self.rng.choice(resting)
        self._moved_now.append(d)
        self.stats["knocks"] += 1
        t2 = t + self._ms(c.knock_delay_ms)
        if self.rng.random() < c.k_new_face:
            d.face = self.rng.randint(1, 6)
        was_in_circle = d.where == "circle"
        sensed = False
        if was_in_circle:
            if self.rng.random() >= c.k_leave_circle:
                return False                         # it only turned over, still inside
            self.circle_die = None
            self._set_base(self.circle_id, False, t, bounce=c.chatter)
            d.where = "plain"
            sensed = True
        r = self.rng.random()
        if r < c.k_hole:
            self._into_hole(rec, d, t2)
            sensed = True
        elif r < c.k_hole + c.k_off:
            d.where = "off"
            d.realm = None
        elif r < c.k_hole + c.k_off + c.k_circle and self.circle_die is None and not was_in_circle:
            self._into_circle(rec, d, t2)
            sensed = True
        elif r < c.k_hole + c.k_off + c.k_circle + c.k_realm:
            d.where = "realm"
            d.realm = self._pick_realm()
        elif d.where == "realm" and r < c.k_hole + c.k_off + c.k_circle + c.k_realm + c.k_leave_realm:
            d.where = "plain"
            d.realm = None
        if d.on_machine and self.rng.random() < c.k_hits_monster:
            # The knocked die runs into a monster itself: still the active player's hit.
            sensed = self._hit_monster(rec, t2, hit_now) or sensed
        # A knock is only noticed if it set a sensor off.
        return sensed

    # --- people ----------------------------------------------------------------
    def after_turn(self) -> int:
        """Players move the monsters that were hit and take the clues. Returns when done."""
        c = self.cfg
        t = max(self.clock.now_us, self.chores_until) + self._ms(c.chore_ms)
        for m in sorted(self.monster_hit):
            frm = self.monster_spot(m)
            i = self.levels.index(self.monster_level[m])
            self.monster_level[m] = self.levels[(i + 1) % len(self.levels)]
            self._set_base(frm, True, t)
            t += self._ms(c.chore_ms)
            self._set_base(self.monster_spot(m), False, t)
        self.monster_hit.clear()
        for s in sorted(self.clue_hit):
            self.clue_present[s] = False
            self._set_base(s, True, t)
            t += self._ms((100.0, 400.0))
        self.clue_hit.clear()
        self.chores_until = t
        return t

    def round_over(self) -> int:
        """Dice collected, monsters home, clue spots refilled. Returns when done."""
        c = self.cfg
        t = max(self.clock.now_us, self.chores_until) + self._ms(c.chore_ms)
        if self.circle_die is not None:
            self.circle_die = None
            self._set_base(self.circle_id, False, t, bounce=c.chatter)
        for d in self.dice:
            if d.on_machine:
                d.where = "collected"
        for m in self.monster_spots:
            if self.monster_level[m] != self.home[m]:
                frm = self.monster_spot(m)
                self.monster_level[m] = self.home[m]
                t += self._ms(c.chore_ms)
                self._set_base(frm, True, t)
                t += self._ms(c.chore_ms)
                self._set_base(self.monster_spot(m), False, t)
        for s in self.clue_ids:
            if not self.clue_present[s]:
                self.clue_present[s] = True
                t += self._ms((200.0, 600.0))
                self._set_base(s, False, t)
        self.round += 1
        self.chores_until = t
        return t

    def new_game(self) -> int:
        """Set the table up again for the next game (play-again): a game's last
        round ends with no collect_dice, so the pieces are where that game left
        them and the board lights their home spots. Returns when done."""
        t = self.round_over()
        self.round = 1
        return t

    def sync_to(self, game: dict) -> None:
        """Put the pieces where a saved game has them (the table after a reset)."""
        for m, lv in game["monsters"].items():
            self.monster_level[m] = lv
        for s, v in game["spots"].items():
            self.clue_present[s] = v is not None
        now = self.clock.now_us
        for name in self.lines:
            self._set_base(name, self._base_active(name), now, bounce=False)

    # --- the truth the referee reads ---------------------------------------------
    def dice_of(self, player: int, rnd: int) -> list[Die]:
        return [d for d in self.dice if d.owner == player and d.round == rnd]

    def entries_for(self, player: int, rnd: int) -> list[tuple]:
        """Round-end entries for the dice the firmware still counts: ("lost",) or (face, realm|None)."""
        out: list[tuple] = []
        for d in self.dice_of(player, rnd):
            if d.reported:
                continue
            if d.where in ("hole", "off"):
                out.append(("lost",))
            else:
                out.append((d.face, d.realm if d.where == "realm" else None))
        return out

    def round_points(self, player: int, rnd: int, monster_scores: list[int]) -> tuple[int, int]:
        """(dice points, monster points) the rules give this player for a round, from the truth."""
        dice = 0
        for d in self.dice_of(player, rnd):
            if d.where in ("hole", "off"):
                continue
            dice += d.face * (self.realms[d.realm] if d.where == "realm" and d.realm else 1)
        hit = {m for rec in self.launches if rec.player == player and rec.round == rnd for m in rec.monsters}
        return dice, monster_scores[len(hit)]
