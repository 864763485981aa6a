"""Faults on the emulated Pico (the official MicroPython rp2 firmware in rp2040js):
power cuts on the port's own littlefs, Ctrl-C at random instants, a watchdog reset.

Power cuts. One game per build is played with the emulator stopping after every
flash erase and program (`stop_on_flash`): the game's saves, the fault log, and
`config set brightness` sent by the host between turns. The filesystem is kept
op by op (each op's range read back from the chip), which gives, for every op,

  - "op":     the flash right after it (= right before the next one);
  - "torn":   the flash before it with the op half done (a program: the first
              part of its bytes programmed; an erase: the first part of the
              sector erased), the power gone in the middle of it;
  - "random": the flash at random emulated instants (read from the chip there;
              with rp2040js's instant flash writes the same bytes as the "op"
              image before it, checked);

and each such image is booted on the same chip (one Node process per build:
`Pico.power_cycle`). The firmware must mount it, answer a host's `hello`, and
resume exactly the save that littlefs (littlefs-python, on the host) finds
committed in that image: after the `state` reply a Ctrl-C stops the game and
the REPL prints what the resumed controller would save now (its game, its dice
generator, everything it persists), compared with the committed save as a
dict; the settings must be the old or the new ones of a `config set` in flight,
else the acknowledged ones. The board runs a main.py that does what app.run()
does but keeps the App as a global (`CUT_MAIN`), so the REPL can read it.

Ctrl-C: a game of each build (the real main.py) gets Ctrl-C at random instants
(Roller Ghoster: half of them while the tower turns); every time the servo pin
must show no pulse begun a PWM period (20 ms) after the Ctrl-C, the REPL must
answer, and Ctrl-D must start main.py again (the board answers hello and the
players resume the game).

Watchdog: a task made to hang (CUT_MAIN with /hang) blocks the loop some seconds
into a game; the watchdog resets the board and the game resumes exactly the
save on the flash (the same Ctrl-C check as for a cut).

`python -m hauntbox_sim.pico.reliability` runs it alone; `python -m hauntbox_sim.reliability.figures` runs
it after the simulator's figures and writes build/reliability.json.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from hauntbox_sim.pico import fsimage
from hauntbox_sim.pico import image as pico_image
from hauntbox_sim.pico.emulator import FS_BLOCK, FS_OFFSET
from hauntbox_sim.pico.session import BOOT_MS, CompanionPico, HauntedPico, PicoSession, RollerPico

PLAYERS = 3
PWM_PERIOD_US = 20_000       # the servo's 50 Hz
BRIGHTNESS = (0.3, 0.45, 0.6, 0.75)     # the values the host's `config set` cycles through

# main.py for the power-cut and watchdog runs: what app.run() does, with the App
# kept as a global so that after a Ctrl-C the REPL can show what the game
# resumed with; and, the first boot after /hang was written, one task that
# hangs (a blocking sleep: the chip idles, so the emulator skips to the reset).
CUT_MAIN = b"""# main.py of make reliability's power-cut and watchdog runs (sim/pico/reliability.py)
import micropython
micropython.alloc_emergency_exception_buf(100)
import asyncio, os, time
import app

def stuck(ms):
    async def hang():
        await asyncio.sleep_ms(ms)
        time.sleep(60)
    return hang()

extra = []
try:
    extra.append(stuck(int(open('/hang').read())))
    os.remove('/hang')
except OSError:
    pass
a = app.App()
from games.link import serve_stdio
app.play(a, asyncio.run, [serve_stdio(a)] + extra)
"""

# Typed at the REPL after the Ctrl-C: what the resumed controller would save,
# the settings in force, the files (a save set aside is <name>.json.bad). The
# marker is built at run time so the REPL's echo of this line never matches.
DUMP = ("import json, os; c = a.controller; o = []; "
        "c.store.save = lambda n, d, s=True: o.append(d); c.save(); "
        "print(chr(64) * 2 + json.dumps({'save': o[0] if o else None, "
        "'settings': a.settings.all(), 'problems': a.settings.problems, "
        "'files': os.listdir('/')}))")


def _sessions() -> dict[str, tuple[Callable[..., PicoSession], dict, str]]:
    return {
        "roller-ghoster": (RollerPico, {"noise": "none"}, "roller-ghoster"),
        "haunted-house": (HauntedPico, {"noise": "none"}, "haunted-house"),
        "beetlejuice": (CompanionPico, {"game": "beetlejuice"}, "beetlejuice"),
        "superskill": (CompanionPico, {"game": "superskill"}, "superskill"),
    }


GAMES = tuple(_sessions())


def open_session(game: str, seed: int, flash: bytes | None, **kw: Any) -> PicoSession:
    make, args, _ = _sessions()[game]
    return make(players=PLAYERS, seed=seed, flash=flash, **args, **kw)


def cut_image(game: str, hang_ms: int | None = None) -> bytes:
    extra = {"/main.py": CUT_MAIN}
    if hang_ms is not None:
        extra["/hang"] = b"%d" % hang_ms
    return pico_image.image({"game": game, "players": PLAYERS}, extra=extra)


def committed(img: bytes, name: str) -> tuple[bool, dict | None]:
    """(mounts, the save `name` as littlefs-python finds it in the image, unsealed)."""
    from games.store import unseal          # the firmware's own (firmware/ is on sys.path)
    try:
        fs = fsimage._fs(bytes(img))
    except Exception:  # noqa: BLE001 - any failure to mount
        return False, None
    try:
        with fs.open("/" + name + ".json", "rb") as f:
            raw = f.read()
    except Exception:  # noqa: BLE001 - no such file
        return True, None
    try:
        return True, unseal(json.loads(raw))
    except ValueError:
        return True, {"unreadable": raw.decode("latin-1")}


# ---- power cuts --------------------------------------------------------------

@dataclass
class Op:
    index: int
    t_us: int
    kind: str                   # erase | program
    offset: int                 # in the filesystem region
    data: bytes                 # the range's contents after the op
    allowed: tuple              # brightness values a boot may show at this op


@dataclass
class Cut:
    game: str
    kind: str                   # op | torn | random
    op: int                     # the op it follows (op, random) or tears (torn)
    image: bytes
    allowed: tuple
    expect: dict | None         # the save littlefs-python finds committed
    mounts: bool


@dataclass
class CutReport:
    cuts: int = 0
    by_kind: dict = field(default_factory=dict)
    by_game: dict = field(default_factory=dict)
    flash_ops: int = 0
    turns: int = 0
    config_sets: int = 0        # acknowledged
    config_errors: dict = field(default_factory=dict)   # "game: error" -> sets answered so
    unmountable: int = 0        # the port could not mount it (it formats: main.py gone)
    no_hello: int = 0           # mounted, but the game never answered a host
    resumed_exact: int = 0      # resumed exactly the committed save (game, dice generator)
    fresh_ok: int = 0           # nothing saved yet: a new game, as it should
    lost_turns: int = 0         # a committed save not resumed (older, fresh, or set aside)
    wrong: int = 0              # resumed something other than the committed save
    state_bad: int = 0          # of the lost: set aside as damaged (fault state_bad)
    settings_bad: int = 0       # settings neither the old nor the new ones, or refused
    host_unmountable: int = 0   # images littlefs-python could not mount
    boot_s: float = 0.0         # wall time of the boots and checks
    problems: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (self.unmountable == 0 and self.no_hello == 0 and self.lost_turns == 0
                and self.wrong == 0 and self.settings_bad == 0)


def record(game: str, turns: int, seed: int, rng: random.Random, random_cuts: int,
           config_every: int = 1) -> tuple[PicoSession, bytes, list[Op], list[tuple], int, int]:
    """Play `turns` turns of `game` stopping at every flash op; returns the
    session (kept for the boots), the filesystem before the first op, the ops,
    the random-instant images (index of the last op before, image), the turns
    and the number of config sets acknowledged."""
    s = open_session(game, seed, cut_image(game), stop_on_flash=True)
    pico = s.board.pico
    base = pico.filesystem()
    ops: list[Op] = []
    randoms: list[tuple] = []             # (last op before, image, allowed brightness)
    # The brightness the host knows is in force ("current"), and one being set
    # ("inflight": both are allowed until the board says which). A set answered
    # with an error is followed by a `config get`: the host does not know
    # whether the value was kept until then.
    cfg: dict = {"current": None, "inflight": None, "sets": 0, "turns": 0, "set_id": None,
                 "get_id": None, "errors": {}}

    def allowed() -> tuple:
        vals = [cfg["current"]]
        if cfg["inflight"] is not None:
            vals.append(cfg["inflight"])
        return tuple(vals)

    def on_flash(e: Any) -> None:
        if e.kind != "flash":
            return
        kind, addr, count = e.args[:3]      # (then the stall time, ns)
        if addr < FS_OFFSET:
            s.result.events.append(("problem", "flash op outside the filesystem", addr))
            return
        ops.append(Op(len(ops), e.t_ns // 1000, kind, addr - FS_OFFSET,
                      pico.read_flash(addr, count), allowed()))
    s.board.on_event.append(on_flash)

    def on_reply(m: dict) -> None:
        if m.get("id") == cfg["set_id"]:
            cfg["set_id"] = None
            if m.get("ok"):
                cfg["current"] = cfg["inflight"]
                cfg["inflight"] = None
                cfg["sets"] += 1
            else:
                err = str(m.get("error"))[:60]
                cfg["errors"][err] = cfg["errors"].get(err, 0) + 1
                cfg["get_id"] = s.host.send("config", op="get", key="brightness")
        elif m.get("id") == cfg["get_id"]:
            cfg["get_id"] = None
            cfg["current"] = m.get("value")
            cfg["inflight"] = None
    s.host.on_reply.append(on_reply)

    def on_event(ev: tuple) -> None:
        # Between turns the host changes a setting (a save of config.json).
        if ev[0] == "turn":
            cfg["turns"] += 1
            if (cfg["turns"] % config_every == 0 and cfg["inflight"] is None
                    and cfg["current"] is not None):
                new = BRIGHTNESS[(BRIGHTNESS.index(cfg["current"]) + 1) % len(BRIGHTNESS)
                                 if cfg["current"] in BRIGHTNESS else 0]
                cfg["inflight"] = new
                cfg["set_id"] = s.host.send("config", op="set", key="brightness", value=new)
    s.host.subscribe(on_event)

    s.connect()
    cfg["current"] = s.host.request("config", op="get", key="brightness")["value"]
    for op in ops:
        op.allowed = (cfg["current"],)          # the boot's own writes (fault log)
    # Random instants: the chip is stopped at each and its filesystem read there.
    t0 = s.board.now_us
    horizon = int(turns * 2.5e6)
    for t in sorted(rng.randrange(t0, t0 + horizon) for _ in range(random_cuts)):
        s.board.clock.at(t, lambda: randoms.append((len(ops) - 1, pico.filesystem(), allowed())))
    s.play(max_s=turns * 30, until=lambda: s.result.turns >= turns and cfg["inflight"] is None)
    cfg["turns"] = -10**6                       # no more sets
    s.board.run(500)                            # the last save completes
    s.bots_off()
    s.config_errors = cfg["errors"]
    s.board.on_event.remove(on_flash)
    return s, base, ops, randoms, s.result.turns, cfg["sets"]


def cuts_of(game: str, name: str, base: bytes, ops: list[Op], randoms: list[tuple],
            rng: random.Random, torn: bool, problems: list) -> list[Cut]:
    """Every cut image of a recording, with what a boot must find in it."""
    out: list[Cut] = []
    img = bytearray(base)
    versions: list[str] = []            # the saves in the order they were committed
    newest = -1
    by_op: dict[int, bytes] = {}
    want_random = {r[0] for r in randoms}
    before_expect = committed(img, name)[1]

    def key(e: dict | None) -> str:
        return json.dumps(e, sort_keys=True)

    for op in ops:
        lo, n = op.offset, len(op.data)
        before = bytes(img)
        img[lo:lo + n] = op.data
        mounts, expect = committed(img, name)
        if torn:
            # The power goes in the middle of the op: part of its range done.
            k = rng.randrange(1, n)
            t = bytearray(before)
            t[lo:lo + k] = b"\xff" * k if op.kind == "erase" else op.data[:k]
            t_mounts, t_expect = committed(t, name)
            if key(t_expect) not in (key(before_expect), key(expect)):
                problems.append(f"{game}: torn op {op.index}: littlefs-python finds a save "
                                "that is neither the one before nor the one after it")
            out.append(Cut(game, "torn", op.index, bytes(t), op.allowed, t_expect, t_mounts))
        # littlefs never goes back to an older save once a newer one is committed.
        if expect is not None:
            if key(expect) not in versions:
                versions.append(key(expect))
            v = versions.index(key(expect))
            if v < newest:
                problems.append(f"{game}: op {op.index}: an older save is back (littlefs-python)")
            newest = max(newest, v)
        before_expect = expect
        out.append(Cut(game, "op", op.index, bytes(img), op.allowed, expect, mounts))
        if op.index in want_random:
            by_op[op.index] = bytes(img)
    for i, got, allowed in randoms:
        if i >= 0 and got != by_op[i]:
            problems.append(f"{game}: the flash at a random instant differs from the op-by-op copy")
        mounts, expect = committed(got, name)
        out.append(Cut(game, "random", i, got, allowed, expect, mounts))
    return out


def repl_dump(s: PicoSession, timeout_ms: float = 3000) -> dict | None:
    """Ctrl-C the game, then read what the resumed controller would save."""
    host = s.host
    mark = len(host.text)
    s.board.pico.write(b"\x03")
    s.board.run(timeout_ms, until=lambda: any(t.startswith(">>> ") or t == ">>> "
                                              for t in host.text[mark:]) or
                 host.buf.endswith(b">>> "))
    mark = len(host.text)
    s.board.pico.write(DUMP.encode() + b"\r\n")
    found: list[dict] = []

    def seen() -> bool:
        for t in host.text[mark:]:
            if t.startswith("@@"):
                found.append(json.loads(t[2:]))
                return True
        return False
    s.board.run(timeout_ms, until=seen)
    return found[0] if found else None


def check_cut(s: PicoSession, cut: Cut, name: str, rep: CutReport) -> None:
    s.power_cycle(cut.image)
    rep.cuts += 1
    rep.by_kind[cut.kind] = rep.by_kind.get(cut.kind, 0) + 1
    rep.by_game[cut.game] = rep.by_game.get(cut.game, 0) + 1
    if not cut.mounts:
        rep.host_unmountable += 1
    where = f"{cut.game} {cut.kind} cut at op {cut.op}"
    try:
        s.host.request("hello", timeout_ms=BOOT_MS)
    except TimeoutError:
        files = None
        try:
            files = fsimage.read_files(s.board.pico.filesystem())
        except Exception:  # noqa: BLE001 - does not mount on the host either
            pass
        if files is None or "/main.py" not in files:
            rep.unmountable += 1
            rep.problems.append(f"{where}: the port could not mount the filesystem "
                                "(formatted it: main.py gone)")
        else:
            rep.no_hello += 1
            rep.problems.append(f"{where}: no hello within {BOOT_MS} ms: "
                                f"{' | '.join(s.host.text[-3:])[:160]}")
        return
    state = s.host.request("state")
    resumed = (state.get("prompt") or {}).get("kind") == "resume"
    dump = repl_dump(s)
    if dump is None:
        rep.no_hello += 1
        rep.problems.append(f"{where}: no answer at the REPL after Ctrl-C")
        return
    bad = (name + ".json.bad") in dump["files"]
    if cut.expect is None:
        if resumed:
            rep.wrong += 1
            rep.problems.append(f"{where}: resumed though nothing was saved")
        else:
            rep.fresh_ok += 1
    elif resumed and dump["save"] == cut.expect:
        rep.resumed_exact += 1
    elif resumed:
        rep.wrong += 1
        rep.problems.append(f"{where}: resumed {json.dumps(dump['save'])[:120]}, "
                            f"saved {json.dumps(cut.expect)[:120]}")
    else:
        rep.lost_turns += 1
        if bad:
            rep.state_bad += 1
        rep.problems.append(f"{where}: the committed save was not resumed"
                            + (" (set aside as damaged)" if bad else ""))
    b = dump["settings"].get("brightness")
    if b not in cut.allowed or dump["problems"]:
        rep.settings_bad += 1
        rep.problems.append(f"{where}: brightness {b} (allowed {cut.allowed}), "
                            f"problems {dump['problems']}")


def power_cuts(games: tuple[str, ...] = GAMES, turns: int = 6, seed: int = 1,
               random_cuts: int = 5, torn: bool = True, limit: int | None = None,
               self_check: bool = False, progress: bool = False) -> CutReport:
    """Record each game's flash ops and boot every cut image (at most `limit` per
    game, a random sample, when given). self_check=True adds two cuts per game
    that must fail (the smoke test shows the checks can fail)."""
    rep = CutReport()
    rng = random.Random(seed)
    for g, game in enumerate(games):
        name = _sessions()[game][2]
        s, base, ops, randoms, n_turns, sets = record(game, turns, seed + g, rng, random_cuts)
        try:
            rep.flash_ops += len(ops)
            rep.turns += n_turns
            rep.config_sets += sets
            for err, n in getattr(s, "config_errors", {}).items():
                rep.config_errors[f"{game}: {err}"] = n
            cuts = cuts_of(game, name, base, ops, randoms, rng, torn, rep.problems)
            last = next((c for c in reversed(cuts) if c.expect is not None), None)
            if limit is not None:
                # A random sample of the op and torn cuts; the random instants all.
                ops_cuts = [c for c in cuts if c.kind != "random"]
                if len(ops_cuts) > limit:
                    keep = sorted(rng.sample(range(len(ops_cuts)), limit))
                    cuts = [ops_cuts[i] for i in keep] + [c for c in cuts if c.kind == "random"]
            if self_check and last is not None:
                # Two cuts the checks must fail: an image whose superblocks are
                # wiped (the port cannot mount it) and a committed save whose
                # dice generator is changed in the expectation (a wrong resume).
                broken = bytearray(last.image)
                broken[0:2 * FS_BLOCK] = bytes(rng.getrandbits(8) for _ in range(2 * FS_BLOCK))
                cuts.append(Cut(game, "self-check", -1, bytes(broken), last.allowed,
                                last.expect, False))
                other = json.loads(json.dumps(last.expect))
                other["rng"]["state"] ^= 1
                cuts.append(Cut(game, "self-check", last.op, last.image, last.allowed, other,
                                True))
            t0 = time.monotonic()
            for i, cut in enumerate(cuts):
                check_cut(s, cut, name, rep)
                if progress and (i + 1) % 50 == 0:
                    print(f"  pico cuts: {game} {i + 1}/{len(cuts)} "
                          f"({time.monotonic() - t0:.0f} s)", file=sys.stderr)
            rep.boot_s += time.monotonic() - t0
        finally:
            s.close()
        if progress:
            print(f"  pico cuts: {game}: {len(ops)} flash ops in {n_turns} turns, "
                  f"{rep.by_game.get(game, 0)} cuts booted", file=sys.stderr)
    return rep


# ---- Ctrl-C ----------------------------------------------------------------------

@dataclass
class CtrlCReport:
    count: int = 0
    by_game: dict = field(default_factory=dict)
    servo_on: int = 0           # Ctrl-Cs that came while the servo pin carried pulses
    servo_left_on: int = 0      # a pulse began more than a PWM period after the Ctrl-C
    no_interrupt: int = 0       # no KeyboardInterrupt printed
    repl_failed: int = 0        # no ">>> " after it
    soft_reset_failed: int = 0  # Ctrl-D: no hello from main.py
    turns: int = 0
    problems: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.servo_left_on or self.no_interrupt or self.repl_failed
                    or self.soft_reset_failed)


def _printed(host: Any, mark: int, line: str) -> Callable[[], bool]:
    return lambda: line in host.text[mark:]


def ctrl_c(per_game: dict[str, int], seed: int = 1, progress: bool = False) -> CtrlCReport:
    rep = CtrlCReport()
    rng = random.Random(seed ^ 0x3C)
    for g, (game, n) in enumerate(per_game.items()):
        if n <= 0:
            continue
        img = pico_image.image({"game": game, "players": PLAYERS})       # the real main.py
        with open_session(game, seed + g, img) as s:
            board, host = s.board, s.host
            s.connect()
            for i in range(n):
                where = f"{game} Ctrl-C {i + 1}"
                if board.servo is not None and rng.random() < 0.5:
                    s.play(max_s=30, until=board.servo_on)
                    board.run(rng.uniform(0, 400))
                else:
                    board.run(rng.uniform(200, 4000))
                t = board.now_us
                rep.count += 1
                rep.by_game[game] = rep.by_game.get(game, 0) + 1
                rep.servo_on += board.servo_on()
                mark = len(host.text)
                board.pico.write(b"\x03")
                board.run(2000, until=_printed(host, mark, "KeyboardInterrupt: "))
                if "KeyboardInterrupt: " not in host.text[mark:]:
                    rep.no_interrupt += 1
                    rep.problems.append(f"{where}: no KeyboardInterrupt: {host.text[-3:]}")
                # The pin's quiet is reported 1.5 periods after its last pulse began.
                board.run(2 * PWM_PERIOD_US / 1000)
                if board.servo is not None and (board.servo.duty_ns() != 0 or (
                        board.servo_quiet_us is not None and
                        board.servo_quiet_us >= t + PWM_PERIOD_US)):
                    rep.servo_left_on += 1
                    rep.problems.append(f"{where}: servo pulse {board.servo_quiet_us - t} us "
                                        "after the Ctrl-C" if board.servo.duty_ns() == 0 else
                                        f"{where}: servo still driven")
                mark = len(host.text)
                board.pico.write(b"\r\n")
                board.run(1000, until=_printed(host, mark, ">>> "))
                if ">>> " not in host.text[mark:]:
                    rep.repl_failed += 1
                    rep.problems.append(f"{where}: the REPL did not answer: {host.text[-3:]}")
                board.pico.write(b"\x04")
                try:
                    s.connect()         # hello, and the players answer the resume prompt
                except TimeoutError:
                    rep.soft_reset_failed += 1
                    rep.problems.append(f"{where}: no hello after Ctrl-D: {host.text[-3:]}")
                    s.power_cycle(board.pico.filesystem())
                    s.connect()
            rep.turns += s.result.turns
        if progress:
            print(f"  pico Ctrl-C: {game}: {n} done", file=sys.stderr)
    return rep


# ---- the watchdog -------------------------------------------------------------

@dataclass
class WatchdogReport:
    count: int = 0
    resets: int = 0             # watchdog resets seen
    resumed: int = 0            # resumed exactly the save on the flash
    problems: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.resumed == self.count


def watchdog(games: tuple[str, ...] = GAMES, per_game: int = 1, seed: int = 1,
             progress: bool = False) -> WatchdogReport:
    rep = WatchdogReport()
    rng = random.Random(seed ^ 0x5D)
    for g, game in enumerate(games):
        name = _sessions()[game][2]
        for i in range(per_game):
            where = f"{game} hang {i + 1}"
            rep.count += 1
            hang_ms = rng.randrange(5000, 12000)
            with open_session(game, seed + 17 * g + i, cut_image(game, hang_ms)) as s:
                s.connect()
                s.play(max_s=90, until=lambda: len(s.board.resets) > 1)
                if s.board.resets[-1][1] != "watchdog":
                    rep.problems.append(f"{where}: no watchdog reset ({s.board.resets})")
                    continue
                rep.resets += 1
                s.bots_off()
                _, saved = committed(s.board.pico.filesystem(), name)
                if saved is None:
                    rep.problems.append(f"{where}: nothing saved before the hang")
                    continue
                try:
                    s.host.request("hello", timeout_ms=BOOT_MS)
                except TimeoutError:
                    rep.problems.append(f"{where}: no hello after the watchdog reset")
                    continue
                state = s.host.request("state")
                dump = repl_dump(s)
                if (state.get("prompt") or {}).get("kind") == "resume" and dump is not None \
                        and dump["save"] == saved:
                    rep.resumed += 1
                else:
                    rep.problems.append(f"{where}: not resumed exactly (prompt "
                                        f"{state.get('prompt')}, dump {str(dump)[:120]})")
        if progress:
            print(f"  pico watchdog: {game} done", file=sys.stderr)
    return rep


# ---- figures ------------------------------------------------------------------

def run_all(cut_turns: int = 6, cut_random: int = 5, cut_limit: int | None = None,
            ctrl_c_total: int = 200, watchdog_per_game: int = 1, seed: int = 1,
            games: tuple[str, ...] = GAMES, self_check: bool = False,
            progress: bool = True) -> dict:
    """Every pico run; prints the figures and returns the JSON summary."""
    from hauntbox_sim.pico.emulator import firmware_identity, check_image
    t0 = time.monotonic()
    cuts = power_cuts(games, cut_turns, seed, cut_random, True, cut_limit, self_check, progress)
    t1 = time.monotonic()
    # Ctrl-C: shared over the builds, Roller Ghoster (the only servo) gets the most.
    weights = {g: (2 if g == "roller-ghoster" else 1) for g in games}
    total_w = sum(weights.values())
    per = {g: ctrl_c_total * w // total_w for g, w in weights.items()}
    per[games[0]] += ctrl_c_total - sum(per.values())
    cc = ctrl_c(per, seed, progress)
    t2 = time.monotonic()
    wd = watchdog(games, watchdog_per_game, seed, progress)
    t3 = time.monotonic()
    version, chip = firmware_identity(check_image(None))
    print(f"Emulated Pico (MicroPython {version}, {chip}, rp2040js): power cuts on the port's littlefs")
    print(f"  {cuts.cuts} cuts booted ({', '.join(f'{k} {n}' for k, n in sorted(cuts.by_kind.items()))}; "
          f"{', '.join(f'{k} {n}' for k, n in cuts.by_game.items())}) from {cuts.flash_ops} flash "
          f"erases/programs in {cuts.turns} turns and {cuts.config_sets} acknowledged config sets")
    for err, n in cuts.config_errors.items():
        print(f"  config set brightness answered with an error ({n}x): {err}")
    print(f"  resumed exactly (game and dice generator): {cuts.resumed_exact}; fresh game, "
          f"nothing saved yet: {cuts.fresh_ok}")
    print(f"  unmountable: {cuts.unmountable}; no hello: {cuts.no_hello}; lost turns: "
          f"{cuts.lost_turns} (set aside: {cuts.state_bad}); wrong resumes: {cuts.wrong}; "
          f"settings neither old nor new: {cuts.settings_bad}")
    print(f"  boots: {cuts.boot_s:.0f} s wall ({cuts.boot_s / max(cuts.cuts, 1):.2f} s a cut); "
          f"recording and boots {t1 - t0:.0f} s")
    for p in cuts.problems[:6]:
        print("   ", p)
    print(f"Emulated Pico: Ctrl-C at {cc.count} random instants "
          f"({', '.join(f'{k} {n}' for k, n in cc.by_game.items())}; {cc.servo_on} with the servo "
          f"turning), {cc.turns} turns")
    print(f"  servo pulse a PWM period after the Ctrl-C: {cc.servo_left_on}; no KeyboardInterrupt: "
          f"{cc.no_interrupt}; REPL silent: {cc.repl_failed}; Ctrl-D without hello: "
          f"{cc.soft_reset_failed} ({t2 - t1:.0f} s)")
    for p in cc.problems[:6]:
        print("   ", p)
    print(f"Emulated Pico: watchdog, a task made to hang: {wd.count} hangs, {wd.resets} watchdog "
          f"resets, {wd.resumed} resumed exactly ({t3 - t2:.0f} s)")
    for p in wd.problems[:6]:
        print("   ", p)
    print(f"Emulated Pico runs took {t3 - t0:.0f} s")
    return {
        "pico_runtime": f"MicroPython {version} ({chip}) in rp2040js",
        "pico_cuts": cuts.cuts,
        "pico_cuts_by_kind": cuts.by_kind,
        "pico_cuts_by_game": cuts.by_game,
        "pico_flash_ops": cuts.flash_ops,
        "pico_cut_turns": cuts.turns,
        "pico_config_sets": cuts.config_sets,
        "pico_config_set_errors": cuts.config_errors,
        "pico_unmountable": cuts.unmountable,
        "pico_no_hello": cuts.no_hello,
        "pico_lost_turns": cuts.lost_turns,
        "pico_state_bad": cuts.state_bad,
        "pico_wrong_resumes": cuts.wrong,
        "pico_resumed_exact": cuts.resumed_exact,
        "pico_fresh_ok": cuts.fresh_ok,
        "pico_settings_bad": cuts.settings_bad,
        "pico_host_unmountable": cuts.host_unmountable,
        "pico_cut_wall_s": round(t1 - t0, 1),
        "pico_ctrl_c": cc.count,
        "pico_ctrl_c_by_game": cc.by_game,
        "pico_ctrl_c_servo_on": cc.servo_on,
        "pico_ctrl_c_servo_left_on": cc.servo_left_on,
        "pico_ctrl_c_no_interrupt": cc.no_interrupt,
        "pico_ctrl_c_repl_failed": cc.repl_failed,
        "pico_ctrl_c_soft_reset_failed": cc.soft_reset_failed,
        "pico_ctrl_c_wall_s": round(t2 - t1, 1),
        "pico_watchdog": wd.count,
        "pico_watchdog_resets": wd.resets,
        "pico_watchdog_resumed": wd.resumed,
        "pico_watchdog_wall_s": round(t3 - t2, 1),
        "pico_wall_s": round(t3 - t0, 1),
        "pico_ok": cuts.ok and cc.ok and wd.ok,
        "pico_problems": cuts.problems[:20] + cc.problems[:20] + wd.problems[:20],
    }


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pico-turns", type=int, default=2,
                   help="turns recorded per game for the power cuts (every op of them is cut)")
    p.add_argument("--pico-random-cuts", type=int, default=3, help="random-instant cuts per game")
    p.add_argument("--pico-cut-limit", type=int, default=30,
                   help="boot at most this many op/torn cuts per game (a random sample; the "
                        "random-instant ones all)")
    p.add_argument("--pico-ctrl-c", type=int, default=20, help="Ctrl-Cs over the builds")
    p.add_argument("--pico-watchdog", type=int, default=1, help="watchdog resets per game")
    p.add_argument("--pico-game", action="append", choices=GAMES,
                   help="only this game (repeatable; default: all four)")
    p.add_argument("--pico-self-check", action="store_true",
                   help="add two cuts per game that must fail (a wiped superblock, a changed "
                        "dice generator): the run then FAILs, showing the checks can")


def from_args(args: argparse.Namespace, seed: int) -> dict:
    return run_all(args.pico_turns, args.pico_random_cuts, args.pico_cut_limit,
                   args.pico_ctrl_c, args.pico_watchdog, seed,
                   tuple(args.pico_game) if args.pico_game else GAMES, args.pico_self_check)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hauntbox_sim.pico.reliability", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", default=None, help="write the summary here")
    args = p.parse_args(argv)
    summary = from_args(args, args.seed)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    print("RESULT: " + ("PASS" if summary["pico_ok"] else "FAIL"))
    return 0 if summary["pico_ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())

