"""Reliability against a hostile but legitimate host, and the notch stop under a
stalled loop (issue 17). `python -m hauntbox_sim.reliability.figures` runs both (see
sim/reliability/figures.py); docs/reliability.md records the figures.

* `notch_overshoot()`: the firmware's Tower turns the simulated tower one notch
  at a time while, during each turn, the asyncio loop is blocked for 500 ms
  (a USB write waiting for a host that stopped reading, as MicroPython's does)
  followed by a save (FlashModel with 25 ms per commit). The notch switch's own
  IRQ stops the servo (devices/tower.py); `irq_stop=False` measures the loop's
  stop alone, as before.
* `hostile_host()`: random sequences of valid requests (hello, state, legal,
  events, act, new, config get/set, calibrate, jog, selftest) sent in every
  phase of real games on the simulated Roller Ghoster board (bots play too),
  with restarts (a reset, the same flash) between sessions. Every reply is
  checked, and every request answered `ok` is checked to have been carried out
  (`_Checker`, one rule per command).
"""
from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from typing import Any

STATE_DIR = "/flash"


# ---- the notch stop ------------------------------------------------------------

@dataclass
class OvershootReport:
    rotations: int = 0
    stalls_over_arrival: int = 0     # turns whose notch arrived while the loop was blocked
    max_past_deg: float = 0.0        # furthest the tower stopped past where the switch closed
    off_notch: int = 0               # stops outside the switch window (+-2 degrees)
    extra_notches: int = 0           # turns that went on to a further notch
    irq_stops: int = 0
    max_block_ms: float = 0.0        # longest the loop was blocked (USB stall + save)


def notch_overshoot(rotations: int = 40, stall_ms: int = 500, flash_ms: int = 25, seed: int = 1,
                    irq_stop: bool = True) -> OvershootReport:
    from hauntbox_sim.fakes import install as sim_install
    from hauntbox_sim.core import runtime
    from hauntbox_sim.models.flash import FlashModel, attach, detach
    from hauntbox_sim.boards.roller import RollerSim

    s = RollerSim(players=2, seed=seed, state_dir=STATE_DIR)
    fs = FlashModel(stall_us={"close": flash_ms * 1000, "rename": flash_ms * 1000})
    attach(fs)
    c = s.app.controller
    tower = c.tower
    model = s.tower
    if not irq_stop:
        tower.notch.rec.hook = None
    step = 360.0 / model.cfg.notches
    half = model.cfg.notch_window_deg / 2
    rep = OvershootReport()
    rng = random.Random(seed)
    clk = runtime.clock()
    arrivals: list[int] = []

    first_close: list[float] = []       # angle where the switch first closed, this turn

    def watch_pwm(pwm: Any) -> None:
        if model.speed == 0 and first_close and pwm.duty_ns() in (tower.servo.stop_ns, 0):
            rep.max_past_deg = max(rep.max_past_deg, model._now_angle() - first_close[0])
    model.servo_pin.pwm.observers.append(watch_pwm)

    async def turns() -> None:
        c.new_game(2)
        for _ in range(rotations):
            start_notches = model.rotations
            first_close.clear()
            t_start = clk.now_us
            # Block the loop for stall_ms at a random moment of the ~375 ms turn,
            # then save (the flash model blocks it again per commit).
            delay = rng.uniform(0.0, 0.4)
            blocked: list[tuple[int, int]] = []

            def stall(blocked: list = blocked) -> None:
                t0 = clk.now_us
                clk.sleep_us(stall_ms * 1000)
                c.save()
                blocked.append((t0, clk.now_us))
                rep.max_block_ms = max(rep.max_block_ms, (clk.now_us - t0) / 1000)
            h = asyncio.get_running_loop().call_later(delay, stall)
            status, _ = await tower.rotate()
            h.cancel()
            rep.rotations += 1
            if model.rotations - start_notches > 1:
                rep.extra_notches += 1
            a = model._now_angle()
            if abs(a - round(a / step) * step) > half:
                rep.off_notch += 1
            if blocked and any(b0 <= t <= b1 for b0, b1 in blocked for t in arrivals if t >= t_start):
                rep.stalls_over_arrival += 1
            await asyncio.sleep(0.3)
        rep.irq_stops = tower.irq_stops

    switch = model._switch

    def on_switch(closed: bool) -> None:
        if closed:
            arrivals.append(clk.now_us)
            if not first_close and model.speed > 0:
                first_close.append(model._now_angle())
        switch(closed)
    model._switch = on_switch
    try:
        sim_install.run(turns())
    finally:
        detach()
    return rep


# ---- the hostile host ------------------------------------------------------------

# Settings the host may set, with the values it picks from (each valid by the
# schema, games/settings_schema.py). Left out: "game" and "servo.type", which
# change what hardware the board drives (the simulated build is a continuous-
# servo Roller Ghoster tower).
_SETTINGS = {
    "players": [1, 2, 3, 4],
    "brightness": [0.0, 0.05, 0.15, 0.4, 1.0],
    "settle_ms": [200, 800, 1500, 3000],
    "reservoir": [True, False],
    "watchdog": [True, False],
    "resume": [True, False],
    "quiet_ms": [100, 1500, 10000],
    "servo.stop_ns": [1_490_000, 1_500_000, 1_510_000],
    "servo.forward_ns": [1_250_000, 1_300_000, 1_350_000],
    "servo.min_ns": [900_000, 1_000_000, 1_100_000],
    "servo.max_ns": [1_900_000, 2_000_000, 2_100_000],
    "beetlejuice.cards": ["firmware", "enter"],
}
COMMANDS = ("hello", "state", "legal", "events", "act", "new", "config", "calibrate", "selftest")
# How often each is sent: `new` rarely, so that games also reach their end
# (the game-over question, "play again") between the hosts' new games.
WEIGHTS = (10, 12, 10, 8, 24, 1, 15, 10, 8)


@dataclass
class HostileReport:
    sessions: int = 0
    requests: int = 0
    ok: int = 0
    refused: int = 0
    by_cmd: dict = field(default_factory=dict)          # cmd -> [sent, ok]
    refusals: dict = field(default_factory=dict)        # error text -> count
    phases: dict = field(default_factory=dict)          # prompt kind (or "busy") -> requests
    crashes: int = 0
    reset_loops: int = 0
    not_carried_out: int = 0
    bad_replies: int = 0
    unverified: int = 0             # checks cut short by the session's end
    games_over: int = 0
    turns: int = 0
    problems: list = field(default_factory=list)

    def ok_all(self) -> bool:
        return (self.crashes == 0 and self.reset_loops == 0 and self.not_carried_out == 0
                and self.bad_replies == 0)


class _Checker:
    """What "carried out" means, per request answered ok: a condition on the
    board's state or its events that must hold within a deadline (virtual time)."""

    def __init__(self, app: Any, rep: HostileReport, clk: Any) -> None:
        self.app = app
        self.rep = rep
        self.clk = clk
        self.events: list[tuple] = []
        self.pending: list[tuple] = []          # (deadline_us, what, predicate)
        self.new_acked_at = -1                  # index into events of the last acked `new`
        self.answers: list[tuple] = []          # (kind, player, choice) each ask() returned
        app.bus.subscribe(self.events.append)
        d = app.controller.decider
        ask = d.ask

        async def recording_ask(kind: str, player: int, options: list) -> Any:
            choice = await ask(kind, player, options)
            self.answers.append((kind, player, choice))
            return choice
        d.ask = recording_ask

    def expect(self, within_ms: int, what: str, pred: Any) -> None:
        if pred():
            return
        self.pending.append((self.clk.now_us + within_ms * 1000, what, pred))

    def poll(self, final: bool = False) -> None:
        keep = []
        for deadline, what, pred in self.pending:
            if pred():
                continue
            if self.clk.now_us >= deadline:
                self.rep.not_carried_out += 1
                d = getattr(self.app.controller, "decider", None)
                self.rep.problems.append("not carried out: %s [at %.3f s; now asking %r%s]" % (
                    what, self.clk.now_us / 1e6, d.current if d is not None else None,
                    ", a choice pending" if d is not None and d.pending() else ""))
            elif final:
                self.rep.unverified += 1
            else:
                keep.append((deadline, what, pred))
        self.pending = keep

    def event_after(self, start: int, test: Any) -> Any:
        def pred() -> bool:
            return any(test(e) for e in self.events[start:])
        return pred


def _request(rng: random.Random, app: Any, rid: int, values: dict) -> dict:
    c = app.controller
    cmd = rng.choices(COMMANDS, WEIGHTS)[0]
    msg: dict = {"cmd": cmd, "id": rid}
    if cmd == "events":
        if rng.random() < 0.7:
            msg["on"] = rng.random() < 0.8
    elif cmd == "act":
        cur = c.decider.current
        n = len(cur[2]) if cur is not None else 1
        if rng.random() < 0.5:
            msg["index"] = rng.randrange(n)
        else:
            msg["action"] = [list(x) if isinstance(x, tuple) else x
                             for x in (cur[2][rng.randrange(n)] if cur is not None else ("roll",))]
        if cur is not None and rng.random() < 0.3:
            msg["player"] = cur[1]
    elif cmd == "new":
        msg["game"] = "roller-ghoster"
        players = rng.randint(2, 4)
        msg["players"] = players
        msg["start"] = rng.randrange(players)
    elif cmd == "config":
        if rng.random() < 0.4:
            msg["op"] = "get"
            if rng.random() < 0.5:
                msg["key"] = rng.choice(sorted(values))
        else:
            key = rng.choice(sorted(values))
            msg.update(op="set", key=key, value=rng.choice(values[key]))
    elif cmd == "calibrate":
        r = rng.random()
        if r < 0.3:
            msg["stop_ns"] = rng.choice(_SETTINGS["servo.stop_ns"])
        elif r < 0.5:
            msg["forward_ns"] = rng.choice(_SETTINGS["servo.forward_ns"])
        elif r < 0.8:
            msg["jog"] = rng.choice(["forward", "reverse", "stop"])
            msg["ms"] = rng.choice([20, 100, 300])
    elif cmd == "selftest":
        msg["servo"] = rng.random() < 0.5
        msg["leds"] = rng.random() < 0.5
    return msg


def _check(ck: _Checker, proto: Any, msg: dict, reply: dict) -> None:
    """Checks the reply to msg, and that an acknowledged request is carried out."""
    app = ck.app
    rep = ck.rep
    cmd = msg["cmd"]
    if reply.get("id") != msg["id"] or not isinstance(reply.get("ok"), bool):
        rep.bad_replies += 1
        rep.problems.append("bad reply to %s: %s" % (json.dumps(msg), json.dumps(reply)[:120]))
        return
    if not reply["ok"]:
        if not isinstance(reply.get("error"), str) or reply["error"].startswith("internal error"):
            rep.bad_replies += 1
            rep.problems.append("%s -> %s" % (json.dumps(msg), reply.get("error")))
        return
    start = len(ck.events)
    what = json.dumps(msg)
    c = app.controller
    if cmd == "events" and "on" in msg:
        ck.expect(0, what, lambda: proto.events_on == msg["on"])
    elif cmd == "state":
        ok = reply.get("game") == app.game_name and reply.get("seq", 0) <= proto.seq
        ck.expect(0, what, lambda: ok)
    elif cmd == "act":
        # The prompt's ask() returned exactly the acknowledged choice (not a
        # button press), unless a `new` acknowledged after it stopped the game.
        cur = c.decider.current
        chosen = tuple(tuple(x) if isinstance(x, list) else x for x in reply["action"])
        newer = ck.new_acked_at
        n0 = len(ck.answers)

        def taken() -> bool:
            if ck.new_acked_at != newer:
                return True
            for kind, player, choice in ck.answers[n0:]:
                if (kind, player) == (cur[0], cur[1]):
                    return choice == chosen
            return False
        ck.expect(10_000, what + " (the prompt %r answered with it)" % (cur,), taken)
    elif cmd == "new":
        ck.new_acked_at = start
        p, s = msg["players"], msg["start"]
        ck.expect(5000, what + " (a game event)",
                  ck.event_after(start, lambda e: e[:4] == ("game", "roller-ghoster", p, s)))
    elif cmd == "config" and msg.get("op") == "set":
        key, value = msg["key"], msg["value"]

        def saved() -> bool:
            if app.settings.get(key) != value:
                return False
            try:
                on_flash = app.store.load("config", sealed=False) or {}
            except ValueError:
                return False
            return on_flash.get(key) == value
        ck.expect(0, what + " (set and saved)", saved)
    elif cmd == "calibrate":
        servo = c.tower.servo
        for k in ("stop_ns", "forward_ns"):
            if k in msg:
                v = msg[k]
                ck.expect(0, what + " (" + k + " applied and saved)",
                          lambda k=k, v=v: getattr(servo, k) == v
                          and app.settings.get("servo." + k) == v)
        if "jog" in msg:
            ck.expect(msg["ms"] + 3000, what + " (a jogged event)",
                      ck.event_after(start, lambda e: e[0] == "jogged"))
    elif cmd == "selftest":
        rid = msg["id"]
        ck.expect(6000, what + " (a selftest event)",
                  ck.event_after(start, lambda e: e[0] == "selftest" and e[1].get("id") == rid))


def _loop_found(rep: HostileReport, state_dir: str) -> None:
    # Three boots in a row crashed before a turn: a reset loop. What the
    # flash held is kept in the report; then it is wiped (what a person
    # would do with safe boot and mpremote) so the run goes on.
    import os
    rep.reset_loops += 1
    files = {}
    for name in sorted(os.listdir(state_dir)):
        with open(os.path.join(state_dir, name)) as f:
            files[name] = f.read()[:200]
        os.remove(os.path.join(state_dir, name))
    rep.problems.append("reset loop: 3 boots in a row crashed before a turn; flash held %s"
                        % json.dumps(files)[:400])


def hostile_host(requests: int = 10_000, per_session: int = 400, seed: int = 1,
                 gap_ms: tuple = (0, 250), progress: bool = False,
                 settings: dict | None = None) -> HostileReport:
    """Random sequences of valid requests in every phase of real games on the
    simulated Roller Ghoster board, the bots playing too; a reset (same flash)
    after every `per_session` requests. `settings`: the values `config set`
    picks from (default: _SETTINGS, every setting but game and servo.type)."""
    import sys
    import tempfile

    from hauntbox_sim.core import runtime
    from hauntbox_sim.boards.roller import RollerSim

    values = _SETTINGS if settings is None else settings
    rep = HostileReport()
    rng = random.Random(seed)
    tmp = tempfile.TemporaryDirectory(prefix="hauntbox-hostile-")
    crash_streak = 0
    ids = [0]
    try:
        while rep.requests < requests:
            rep.sessions += 1
            turns = 0
            try:
                s = RollerSim(players=rng.randint(2, 4), seed=rng.randrange(1 << 16),
                              state_dir=tmp.name)
                turns = _session(s.app, rep, rng, min(per_session, requests - rep.requests),
                                 values, gap_ms, ids)
                crash_streak = 0 if turns else crash_streak
            except runtime.BoardReset as e:
                rep.crashes += 1
                crash_streak += 1
                rep.problems.append("session %d: board reset (%s)" % (rep.sessions, e.cause))
            except Exception as e:  # noqa: BLE001 - a crash (at boot or in play) is what this counts
                rep.crashes += 1
                crash_streak += 1
                rep.problems.append("session %d: crash %r" % (rep.sessions, e))
            rep.turns += turns
            if crash_streak >= 3:
                _loop_found(rep, tmp.name)
                crash_streak = 0
            if progress:
                print("  hostile host: %d/%d requests, %d sessions" % (rep.requests, requests,
                                                                     rep.sessions), file=sys.stderr)
    finally:
        tmp.cleanup()
    return rep


def _session(app: Any, rep: HostileReport, rng: random.Random, n: int, values: dict,
             gap_ms: tuple, ids: list) -> int:
    """One boot: the game runs (bots play) while the host sends n requests; then
    the board is stopped (a reset). Returns the turns played; raises what the
    firmware raised."""
    from protocol import Protocol

    from hauntbox_sim.fakes import install as sim_install
    from hauntbox_sim.core import runtime

    c = app.controller
    c.tower.settle_ms = min(c.tower.settle_ms, 400)
    c.die_show_ms = 50
    ck = _Checker(app, rep, runtime.clock())
    turns = [0]

    def count(ev: tuple) -> None:
        if ev[0] == "turn":
            turns[0] += 1
        elif ev[0] == "over":
            rep.games_over += 1
    app.bus.subscribe(count)

    def phase() -> str:
        d = app.controller.decider
        if d.current is not None:
            return d.current[0]
        t = getattr(app.controller, "tower", None)
        return "turning" if t is not None and t.live() else "between"

    def one(proto: Any) -> None:
        ids[0] += 1
        msg = _request(rng, app, ids[0], values)
        ph = phase()
        rep.phases[ph] = rep.phases.get(ph, 0) + 1
        out = proto.feed(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
        rep.requests += 1
        sent = rep.by_cmd.setdefault(msg["cmd"], [0, 0])
        sent[0] += 1
        if len(out) != 1:
            rep.bad_replies += 1
            rep.problems.append("%d replies to %s" % (len(out), json.dumps(msg)))
            return
        reply = json.loads(out[0])
        if reply.get("ok") is True:
            rep.ok += 1
            sent[1] += 1
        else:
            rep.refused += 1
            err = str(reply.get("error"))
            rep.refusals[err] = rep.refusals.get(err, 0) + 1
        _check(ck, proto, msg, reply)
        while proto.take_event() is not None:      # the host reads its events
            pass

    async def host() -> None:
        proto = Protocol(app)
        try:
            for _ in range(n):
                await asyncio.sleep(rng.uniform(*gap_ms) / 1000)
                ck.poll()
                one(proto)
            for _ in range(100):            # let the last checks finish before the reset
                if not ck.pending:
                    break
                await asyncio.sleep(0.1)
                ck.poll()
        finally:
            proto.close()

    async def session() -> None:
        main = asyncio.create_task(app.main_async(None, 0, None, exit_when_over=False))
        h = asyncio.create_task(host())
        done, _ = await asyncio.wait([main, h], return_when=asyncio.FIRST_COMPLETED)
        if main in done:
            h.cancel()
            exc = main.exception()
            raise exc if exc is not None else RuntimeError("the game loop returned")
        main.cancel()
        try:
            await main
        except asyncio.CancelledError:
            pass

    try:
        sim_install.run(session())
    finally:
        ck.poll(final=True)
    return turns[0]


def print_figures(requests: int = 10_000, seed: int = 1, summary: dict | None = None) -> bool:
    """The two runs as `python -m hauntbox_sim.reliability.figures` prints them; True if both pass.
    Their figures go into `summary` if given (build/reliability.json)."""
    import sys
    o = notch_overshoot(seed=seed)
    before = notch_overshoot(seed=seed, irq_stop=False)
    print("Notch stop, loop blocked %d ms (500 ms USB stall + a save) at a random moment of each turn:"
          % o.max_block_ms)
    print("  %d turns (%d with the notch arriving while blocked): %d stopped by the switch's IRQ, "
          "%.2f degrees past the closing at most, %d past the notch; the loop's stop alone: %d of %d "
          "went on to a further notch (%.0f degrees past)"
          % (o.rotations, o.stalls_over_arrival, o.irq_stops, o.max_past_deg, o.extra_notches,
             before.extra_notches, before.rotations, before.max_past_deg))
    h = hostile_host(requests, seed=seed, progress=False)
    print("Hostile host: %d valid requests in %d sessions (a reset between), %d games over, %d turns"
          % (h.requests, h.sessions, h.games_over, h.turns))
    print("  " + ", ".join("%s %d/%d ok" % (c, h.by_cmd[c][1], h.by_cmd[c][0]) for c in sorted(h.by_cmd)))
    print("  phases: " + ", ".join("%s %d" % (k, h.phases[k]) for k in sorted(h.phases)))
    print("  crashes: %d; reset loops: %d; acknowledged and not carried out: %d; bad replies: %d"
          % (h.crashes, h.reset_loops, h.not_carried_out, h.bad_replies))
    seen = set()
    for prob in h.problems:
        key = prob[:60]
        if key not in seen and len(seen) < 6:
            seen.add(key)
            print("   ", prob[:240], file=sys.stdout)
    if summary is not None:
        summary["notch_stop"] = {"turns": o.rotations, "notch_while_blocked": o.stalls_over_arrival,
                                 "irq_stops": o.irq_stops, "max_past_deg": o.max_past_deg,
                                 "extra_notches": o.extra_notches, "off_notch": o.off_notch,
                                 "loop_stop_alone_extra_notches": before.extra_notches}
        summary["hostile_host"] = {"requests": h.requests, "sessions": h.sessions,
                                   "games_over": h.games_over, "turns": h.turns,
                                   "crashes": h.crashes, "reset_loops": h.reset_loops,
                                   "not_carried_out": h.not_carried_out,
                                   "bad_replies": h.bad_replies}
    return o.extra_notches == 0 and o.off_notch == 0 and h.ok_all()
