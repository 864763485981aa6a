"""`make bench` on the emulated Pico: heap, allocation, latency, interrupts-off
and image figures of each build, measured on the official MicroPython rp2
firmware in rp2040js during real play (see docs/performance.md).

Two runs per build, each a fresh board booted from its littlefs image:

- the heap run: `sim/pico/bench_main.py` as main.py (the real app under
  `app.play`, plus a probe task that samples the heap); a host connected
  (hello, events on, a `state` after every turn, as the players look at the
  table); play-again between games; after the games the probe writes
  /bench.json, read back from the flash;
- the latency run: the plain main.py of the build (no probe), a host streaming
  events and asking for `state`, saves after every turn; beam edges injected at
  exact emulated instants (Roller Ghoster) or the table model's own hits
  (Haunted House), each matched to the first frame on the LED chain that
  shows it.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any, Callable

from hauntbox_fw.paths import FIRMWARE_DIR
from hauntbox_sim.pico import fsimage
from hauntbox_sim.pico import image as pico_image
from hauntbox_sim.pico.emulator import FS_BLOCK, FS_BLOCKS, Event

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "build" / "bench.json"
PROBE = Path(__file__).with_name("bench_probe.py")
CENSUS_PROBE = Path(__file__).with_name("census_probe.py")
# main.py of the heap run: the probe module's cost measured as it is imported.
PROBE_MAIN = b"""import micropython
micropython.alloc_emergency_exception_buf(100)
del micropython
import gc
gc.collect()
m = gc.mem_alloc()
import bench_probe
gc.collect()
bench_probe.PROBE_HEAP = gc.mem_alloc() - m
del m, gc
bench_probe.run()
"""
KIB = 1024
US = 1000

BUDGET = {"heap_rest_kib": 64, "heap_peak_kib": 80, "largest_free_kib": 128, "alloc_turn_mean_b": 2048}

# build key -> (game, board file, players)
BUILDS = {
    "roller-ghoster": ("roller-ghoster", "roller-ghoster", 4),
    "haunted-house": ("haunted-house", "haunted-house", 4),
    "beetlejuice": ("beetlejuice", "companion", 3),
    "superskill": ("superskill", "companion", 3),
}


def bench_probe(games: int, period_ms: int, slots: int, turns: int = 0, census: bool = False,
                wraps: tuple[str, ...] = (), timing: bool = False) -> bytes:
    """The probe module with its parameters filled in."""
    src = PROBE.read_text()
    src = src.replace("WRAPS = () ", f"WRAPS = {tuple(wraps)!r} ", 1)
    src = src.replace("TIMING = 0 ", f"TIMING = {int(timing)} ", 1)
    src = src.replace("CENSUS = 0 ", f"CENSUS = {int(census)} ", 1)
    src = src.replace("TURNS = 0 ", f"TURNS = {turns} ", 1)
    src = src.replace("GAMES = 0 ", f"GAMES = {games} ", 1)
    src = src.replace("PERIOD_MS = 0 ", f"PERIOD_MS = {period_ms} ", 1)
    src = src.replace("NT = 0 ", f"NT = {slots} ", 1)
    return src.encode()


def session(build: str, seed: int, flash: bytes, noise: str = "none") -> Any:
    from hauntbox_sim.pico.session import CompanionPico, HauntedPico, RollerPico
    game, _board, players = BUILDS[build]
    if build == "roller-ghoster":
        return RollerPico(players=players, seed=seed, noise=noise, flash=flash)
    if build == "haunted-house":
        return HauntedPico(players=players, seed=seed, noise=noise, flash=flash)
    return CompanionPico(game=game, players=players, seed=seed, flash=flash)


def settings(build: str) -> dict:
    game, _board, players = BUILDS[build]
    return {"game": game, "players": players}


def play_again(s: Any) -> None:
    """Every build plays game after game: after "over", the play-again prompt is
    answered with ROLL (the Roller and Haunted House players do that
    themselves; the companion's players leave it, so it is pressed here)."""
    def on(ev: tuple) -> None:
        if ev[0] == "game":
            s.result.over = False
        if ev[0] == "prompt" and ev[1] == "play_again" and ev[4] == 0 and hasattr(s, "buttons"):
            s.buttons.press("roll", s.board.clock.now_us + 400_000)
    s.host.subscribe(on)


class Games:
    def __init__(self, s: Any) -> None:
        self.over = 0
        self.text: list[str] = []
        s.host.subscribe(self.on)
        s.host.on_text = self.text.append

    def on(self, ev: tuple) -> None:
        if ev[0] == "over":
            self.over += 1


def percentile(xs: list[float], q: float) -> float:
    """The q-quantile (0..1) of xs, nearest rank."""
    s = sorted(xs)
    if not s:
        return float("nan")
    k = max(0, min(len(s) - 1, int(round(q * len(s) + 0.5)) - 1))
    return s[k]


def heap_run(build: str, games: int, seed: int, period_ms: int = 50, turns: int = 0,
             max_s: float = 7200.0, log: Callable[[str], None] = print, census: bool = False,
             wraps: tuple[str, ...] = (), timing: bool = False) -> dict:
    """Play `games` games (or `turns` turns) with the probe on; its figures.
    census=True: at the end the board also prints the heap census
    (sim/pico/census_probe.py) and r["census"] holds its text and the SRAM."""
    # Turn slots (3 B each, on the board): Roller Ghoster, the longest game,
    # averaged 45 turns a game over 20 (892 turns); events past the last slot
    # are counted (turns_unrecorded), not stored.
    slots = turns + 2 if turns else 60 * games + 50
    extra = {"/main.py": PROBE_MAIN,
             "/bench_probe.py": bench_probe(games, period_ms, slots, turns, census, wraps, timing)}
    if census:
        extra["/census_probe.py"] = CENSUS_PROBE.read_bytes()
    img = pico_image.image(settings(build), extra=extra)
    t0 = time.monotonic()
    with session(build, seed, img) as s:
        g = Games(s)
        if census:
            seen: list[str] = []
            census_out: dict = {}

            def grab(text: str) -> None:
                # Every line from the census's first to its CENSUS_END.
                if not census_out and (seen or text.startswith("CENSUS_")):
                    seen.append(text)
                else:
                    g.text.append(text)
                if text.startswith("CENSUS_END"):
                    census_out.update(text=list(seen), sram=s.board.pico.read_sram())
            s.host.on_text = grab
        play_again(s)
        s.connect()
        s.board.run(max_s * 1000, until=lambda: g.over >= games or len(s.board.resets) > 1
                    or (turns and s.result.turns > turns))
        s.board.run(3000)
        fs = s.board.pico.filesystem()
        emulated = s.board.now_us / 1e6
        resets = list(s.board.resets)
        text = list(g.text)
    files = fsimage.read_files(fs)
    if "/bench.json" not in files:
        raise RuntimeError(f"{build}: the probe wrote no /bench.json ({g.over} games over, "
                           f"resets {resets}); the board printed: {text[-20:]}")
    r = json.loads(files["/bench.json"])
    if census:
        r["census"] = census_out
    r.update(wall_s=time.monotonic() - t0, emulated_s=emulated, resets=resets,
             memory_errors=sum("MemoryError" in t for t in text), text=text[-20:])
    log(f"  {build}: heap run, {r['games_over']} games, {r['samples']} samples, "
        f"{r['wall_s']:.0f} s wall for {emulated:.0f} s emulated")
    return r


def turn_allocs(r: dict) -> list[int]:
    """Bytes allocated per turn: the allocation counter between one turn event
    and the next (a game's last turn ends at its "over")."""
    t, k = r["turns"], r["kinds"]
    return [t[i + 1] - t[i] for i in range(len(t) - 1) if k[i] == 1]


def figures_of(r: dict) -> dict:
    allocs = turn_allocs(r)
    return {
        "heap_rest_kib": round(r["heap_rest"] / KIB, 1),
        "heap_low_kib": round(r["heap_low"] / KIB, 1),
        "heap_rest_at_s": r["heap_rest_at_ms"] / 1000,
        "heap_peak_kib": round(max(r["heap_peak"], r["heap_rest"]) / KIB, 1),
        "largest_free_kib": round(r["largest_free"] / KIB, 1),
        "alloc_turn_mean_b": round(sum(allocs) / len(allocs)) if allocs else None,
        "alloc_turn_p95_b": percentile(allocs, 0.95) if allocs else None,
        "alloc_turn_max_b": max(allocs) if allocs else None,
        "turns": len(allocs),
        "turns_unrecorded": r.get("turns_unrecorded", 0),
        "games": r["games_over"],
        "memory_errors": r["memory_errors"],
        "resets": len(r["resets"]) - 1,
        "heap_samples": r["samples"],
        "request_samples": r["req_samples"],
        "auto_collections": r["auto_collections"],
        "probe_heap_b": r["probe_heap"],
        "probe_alloc_b": r["probe_alloc"],
        "heap_total_kib": round(r["heap_total"] / KIB, 1),
    }


def image_figures(build: str) -> dict:
    """The build's files in bytes, and the littlefs blocks they take on the
    board's filesystem (the image as the port mounts it: littlefs-python with
    the rp2 geometry, blocks in use after formatting and writing the files)."""
    import littlefs
    files = fsimage.build_files(pico_image.firmware_build(), settings(build))
    files.pop("/config.json", None)
    img = fsimage.make_image(files)
    fs = littlefs.LittleFS(mount=False, **fsimage.GEOMETRY)
    fs.context.buffer = bytearray(img)
    fs.mount()
    used = fs.used_block_count
    return {"image_bytes": sum(len(v) for v in files.values()), "image_blocks": used,
            "fs_blocks": FS_BLOCKS, "fs_block_bytes": FS_BLOCK}


# The latency run's main.py: the real app as main.py runs it. For Roller
# Ghoster one thing differs: a ball's trench highlight is cleared again once
# its frame is drawn (on a board it stays until the rotation ends), so that
# every injected ball draws a new frame, not only the first per staircase.
LATENCY_MAIN = b"""import asyncio
import app
a = app.App()
c = a.controller
bank = getattr(getattr(c, "build", None), "beams", None)
if bank is not None and hasattr(c, "display"):
    shown = bank.on_ball

    def on_ball(k, n):
        # Every ball must change the picture, or it has no frame to time: once
        # this ball's frame is out, its trench LED is put back off in the frame
        # buffer with no write (the wire keeps it lit), so the next ball's frame
        # shows a change. The firmware lights a ball's LED with one LED encoded
        # (RollerDisplay.flash_ball); this keeps that path the one measured.
        shown(k, n)
        d = c.display
        d.balls = 0
        np = d.strip.np
        write = np.write
        np.write = lambda: None
        d.render(c.game)
        np.write = write
    bank.on_ball = on_ball
from games.link import serve_stdio
app.play(a, asyncio.run, [serve_stdio(a)])
"""


SETTLE_MARGIN_US = 100_000     # a ball's pulse (<= 12 ms) + filter + decision, with room


class Frames:
    """Every WS2812 frame the chip wrote: (pin, first rising edge ns, latch ns, bytes)."""

    def __init__(self, board: Any) -> None:
        self.frames: list[tuple[int, int, int, bytes]] = []
        self.flash: list[Event] = []
        board.on_event.append(self.on)

    def on(self, e: Event) -> None:
        if e.kind == "leds":
            pin, hexdata, first = e.args
            self.frames.append((pin, int(first), e.t_ns, bytes.fromhex(hexdata)))
        elif e.kind == "flash":
            self.flash.append(e)

    def flash_ms(self) -> list[float]:
        # Each erase or program: the chip stalled, interrupts off, for the
        # flash chip's busy time (sim/pico/pico.mjs: W25Q16JV typical).
        return [e.args[3] / 1e6 for e in self.flash if len(e.args) > 3]

    def erases(self) -> int:
        # littlefs erases a block only when it needs a fresh one (a metadata
        # pair compacts, a file outgrows its block): a short run may only program.
        return sum(1 for e in self.flash if e.args and e.args[0] == "erase")

    def write_ms(self) -> list[float]:
        # A write's interrupts-off time as seen on the pin: first rise to last
        # fall (the latch event comes 50 us after the last fall).
        return [(t - 50_000 - first) / 1e6 for _pin, first, t, _b in self.frames]


def match(edges: list[tuple[int, int, Callable[[bytes, bytes], bool]]], frames: list,
          within_ns: int = 2_000_000_000) -> tuple[list[tuple[float, float]], int]:
    """(first-bit latency ms, shown latency ms) per edge, and the edges not shown.
    edges: (t_ns, pin, shows(previous frame on that pin, frame))."""
    out = []
    missed = 0
    for t, pin, shows in edges:
        before = b""
        hit = None
        for fpin, first, latch, buf in frames:
            if fpin != pin:
                continue
            if first < t:
                before = buf
                continue
            if first - t > within_ns:
                break
            if shows(before, buf):
                hit = (first, latch)
                break
            before = buf
        if hit is None:
            missed += 1
        else:
            out.append(((hit[0] - t) / 1e6, (hit[1] - t) / 1e6))
    return out, missed


def roller_latency(seed: int, events: int, max_s: float = 3600.0,
                   log: Callable[[str], None] = print) -> dict:
    """Balls injected on the tower's beams at exact emulated instants while the
    board counts a turn's balls (between "rotating" and "rotated": when balls
    come down in play), every 20-60 ms, each on a staircase the tower model's
    own balls leave alone then; each matched to the first strip frame with
    that staircase's trench LED white. A ball that no "ball" event counted is
    lost (`edges_lost`): none may be. The firmware writes no flash while it
    counts (`RollerController.sensors_live`), so the only interrupts-off
    windows a ball can meet are LED writes; a ball whose pulse overlaps a
    flash stall is counted apart (`balls_in_flash_write`)."""
    build = "roller-ghoster"
    img = pico_image.image(settings(build), extra={"/main.py": LATENCY_MAIN})
    rng = random.Random(seed ^ 0xBE)
    t0 = time.monotonic()
    with session(build, seed, img) as s:
        rec = Frames(s.board)
        g = Games(s)
        play_again(s)
        live = [False]
        injected: list[tuple[int, int, int]] = []       # (staircase index, t_us, width_us)
        counted: list[tuple[int, int]] = []             # "ball" events: (staircase index, t_us)
        clk = s.board.clock
        tower = s.tower
        model: list[tuple[int, int, int]] = []          # the model's own balls
        model_pulse = tower._ball_pulse

        def own_pulse(k: int, t: int, width: int) -> None:
            model.append((k, t, width))
            model_pulse(k, t, width)
        tower._ball_pulse = own_pulse
        # The board counts a turn's balls until settle_ms after the notch, then
        # publishes "rotated" and saves; the host hears "rotated" only once the
        # save is done (the link task runs after it). A ball injected in that
        # gap is no ball of the turn and waits for the save (up to ~200 ms on
        # 2026-12-02): injection stops SETTLE_MARGIN_US before the window ends.
        notch_at = [0]
        release = tower._release_balls

        def at_notch() -> None:
            notch_at[0] = clk.now_us
            release()
        tower._release_balls = at_notch
        settle_us = int(json.loads((FIRMWARE_DIR / "data" / "roller-ghoster.json").read_text())
                        .get("settle_ms", 1500)) * 1000

        def on(ev: tuple) -> None:
            if ev[0] == "rotating":
                live[0] = True
                notch_at[0] = 0
            elif ev[0] == "rotated":
                live[0] = False
            elif ev[0] == "ball":
                counted.append((int(ev[1]) - 1, clk.now_us))
        s.host.subscribe(on)

        def free(k: int, t: int) -> bool:
            # No model ball on that staircase within 150 ms either side.
            return all(mk != k or abs(mt - t) > 150_000 for mk, mt, _w in model[-40:])

        def counting(t: int) -> bool:
            return live[0] and (not notch_at[0] or t < notch_at[0] + settle_us - SETTLE_MARGIN_US)

        def inject() -> None:
            if counting(clk.now_us + 1000):
                t = clk.now_us + 1000
                last = injected[-1][0] if injected else -1
                ks = [j for j in range(4) if j != last and free(j, t)]
                if ks:
                    k = rng.choice(ks)
                    w = rng.randint(6000, 12000)
                    model_pulse(k, t, w)
                    injected.append((k, t, w))
            clk.after_ms(rng.randint(20, 60) if live[0] else 5, inject)
        s.connect()
        clk.after_ms(500, inject)
        s.board.run(max_s * 1000, until=lambda: len(injected) >= events)
        s.board.run(1000)
        px = s.pinmap["pixels"]
        pin = s.board.pixel_gpios[0]
        emulated = s.board.now_us / 1e6
        flash_ops = len(rec.flash)
        flash_at = [(e.t_ns, e.args[3] if len(e.args) > 3 else 0) for e in rec.flash]
        games = g.over
        frames = rec.frames
        writes = rec.write_ms()
        stalls = rec.flash_ms()
    bpp = 3

    def lit(led: int) -> Callable[[bytes, bytes], bool]:
        def shows(_before: bytes, buf: bytes) -> bool:
            c = buf[led * bpp: led * bpp + 3]
            return len(c) == 3 and min(c) > 0 and c[0] == c[1] == c[2]
        return shows
    kept = injected[:events]
    lost = sum(1 for k, t, _w in kept
               if not any(ck == k and 0 <= ct - t <= 1_000_000 for ck, ct in counted))
    in_flash = sum(1 for _k, t, w in kept
                   if any(ft <= (t + w) * US and ft + d >= t * US for ft, d in flash_at))
    edges = [(t * US, pin, lit(px["trenches_from"] + k)) for k, t, _w in kept]
    lat, missed = match(edges, frames)
    cfg = pico_image.pinmap(BUILDS[build][1])
    floor = (cfg["beams"]["min_pulse_us"] + px["count"] * 30 + 50) / 1000
    log(f"  {build}: latency run, {len(edges)} balls, {games} games, {flash_ops} flash ops, "
        f"{time.monotonic() - t0:.0f} s wall for {emulated:.0f} s emulated")
    out = latency_figures(lat, missed, floor, writes, stalls, rec.erases(),
                          f"ball (beam edge, injected while the board counts a turn's balls) -> "
                          f"strip frame with its trench LED; floor = {cfg['beams']['min_pulse_us']} us "
                          f"filter + {px['count']} LEDs x 30 us + 50 us latch")
    out.update(edges_lost=lost, balls_in_flash_write=in_flash)
    return out


def haunted_latency(seed: int, events: int, max_s: float = 7200.0,
                    log: Callable[[str], None] = print) -> dict:
    """The table model's own hits (a standee knocked, a clue taken: the
    contact opens at that emulated instant, and the expander pulls its INT
    line), each matched to the first spot-chain frame that changes one of that
    monster's spot LEDs (or that clue's LED), games played one after another."""
    build = "haunted-house"
    img = pico_image.image(settings(build), extra={"/main.py": LATENCY_MAIN})
    t0 = time.monotonic()
    with session(build, seed, img) as s:
        rec = Frames(s.board)
        g = Games(s)
        play_again(s)
        model = s.table
        hits: list[tuple[str, str, int]] = []

        def noting(hit: Callable, kind: str, made: str) -> Callable:
            def wrapped(r: Any, t: int, now: set) -> bool:
                n = len(getattr(r, made))
                ok = hit(r, t, now)
                if len(getattr(r, made)) > n:
                    hits.append((kind, getattr(r, made)[-1], t))
                return ok
            return wrapped
        model._hit_monster = noting(model._hit_monster, "monster", "monsters")
        model._hit_clue = noting(model._hit_clue, "clue", "clues")
        s.connect()
        s.board.run(max_s * 1000, until=lambda: len(hits) >= events)
        s.board.run(2000)
        emulated = s.board.now_us / 1e6
        frames = rec.frames
        writes = rec.write_ms()
        stalls = rec.flash_ms()
        flash_ops = len(rec.flash)
        games = g.over
        data = s.data
    px = pico_image.pinmap(BUILDS[build][1])
    spots = px["pixels"]["spots"]
    leds = spots["leds"]
    pin = px["pins"][spots["pin"]]["gpio"]
    spots_of: dict[str, list[int]] = {}
    for sp in data["monster_spots"]:
        spots_of.setdefault(sp["id"].rsplit("_", 1)[0], []).append(leds[sp["id"]])

    def changed(idx: list[int]) -> Callable[[bytes, bytes], bool]:
        def shows(before: bytes, buf: bytes) -> bool:
            return any(before[i * 3:(i + 1) * 3] != buf[i * 3:(i + 1) * 3] for i in idx)
        return shows
    edges = [(t * US, pin, changed(spots_of[name] if kind == "monster" else [leds[name]]))
             for kind, name, t in hits[:events]]
    lat, missed = match(edges, frames)
    spot = px["table"]["kinds"]["spot"]
    floor = (spot["min_us"] + spots["count"] * 30 + 50) / 1000
    log(f"  {build}: latency run, {len(edges)} hits, {games} games, {flash_ops} flash ops, "
        f"{time.monotonic() - t0:.0f} s wall for {emulated:.0f} s emulated")
    return latency_figures(lat, missed, floor, writes, stalls, rec.erases(),
                           f"standee/clue hit (contact edge -> expander INT) -> spot-chain frame "
                           f"changing its LED; floor = {spot['min_us']} us spot filter + "
                           f"{spots['count']} LEDs x 30 us + 50 us latch")


def latency_figures(lat: list[tuple[float, float]], missed: int, floor: float,
                    writes: list[float], stalls: list[float], erases: int, what: str) -> dict:
    shown = [b for _a, b in lat]
    first = [a for a, _b in lat]
    return {
        "latency_p50_ms": round(percentile(shown, 0.5), 2),
        "latency_p99_ms": round(percentile(shown, 0.99), 2),
        "latency_max_ms": round(max(shown), 2) if shown else None,
        "latency_floor_ms": round(floor, 2),
        "latency_first_bit_p50_ms": round(percentile(first, 0.5), 2),
        "latency_first_bit_p99_ms": round(percentile(first, 0.99), 2),
        "latency_first_bit_max_ms": round(max(first), 2) if first else None,
        "latency_events": len(lat),
        "latency_missed": missed,
        "latency_what": what,
        **irq_off(writes, stalls, erases),
    }


def irq_off(writes: list[float], stalls: list[float], erases: int) -> dict:
    """The longest interrupts-off window: a WS2812 write or a flash erase/program."""
    return {"irq_off_max_ms": round(max(writes + stalls), 3) if writes or stalls else None,
            "irq_off_led_max_ms": round(max(writes), 3) if writes else None,
            "irq_off_flash_max_ms": round(max(stalls), 3) if stalls else None,
            "led_writes": len(writes), "flash_ops": len(stalls), "flash_erases": erases}


def runtime() -> str:
    """The MicroPython version and the emulated chip the figures come from."""
    from hauntbox_sim.pico.emulator import UF2, firmware_identity
    version, board = firmware_identity(UF2)
    pkg = json.loads((ROOT / "node_modules" / "rp2040js" / "package.json").read_text())
    return f"MicroPython {version} ({board}), RP2040 emulated by rp2040js {pkg['version']}"


def measure(build: str, games: int, events: int, seed: int, turns: int = 0,
            log: Callable[[str], None] = print, period_ms: int = 50) -> dict:
    """Every figure of one build (the keys of build/bench.json)."""
    f = figures_of(heap_run(build, games, seed, period_ms=period_ms, turns=turns, log=log))
    f["heap_period_ms"] = period_ms
    if build == "roller-ghoster":
        f.update(roller_latency(seed, events, log=log))
    elif build == "haunted-house":
        f.update(haunted_latency(seed, events, log=log))
    else:
        # No sensors on the dice companion: nothing to time from an edge. The
        # interrupts-off figure is its matrix writes, seen in the heap run's
        # board... measured in a short run of its own here.
        f.update(companion_writes(build, seed, log=log))
    f.update(image_figures(build))
    f["runtime"] = runtime()
    return f


def companion_writes(build: str, seed: int, turns: int = 6,
                     log: Callable[[str], None] = print) -> dict:
    """A dice companion has no beam or contact: latency n/a. Its LED matrix
    writes (interrupts off) are measured over a few turns of plain play."""
    img = pico_image.image(settings(build))
    t0 = time.monotonic()
    with session(build, seed, img) as s:
        rec = Frames(s.board)
        s.connect()
        s.board.run(600_000, until=lambda: s.result.turns >= turns)
        writes = rec.write_ms()
        emulated = s.board.now_us / 1e6
    log(f"  {build}: LED writes over {turns} turns, {time.monotonic() - t0:.0f} s wall "
        f"for {emulated:.0f} s emulated")
    return {"latency_p50_ms": None, "latency_p99_ms": None, "latency_max_ms": None,
            "latency_floor_ms": None, "latency_events": 0, "latency_missed": 0,
            "latency_what": "n/a: the dice companion has no beam or contact sensor (buttons only)",
            **irq_off(writes, rec.flash_ms(), rec.erases())}


def check(f: dict) -> list[str]:
    """The budgets a build misses (goals included), as text."""
    over = []
    if f["heap_rest_kib"] > BUDGET["heap_rest_kib"]:
        over.append(f"heap_rest {f['heap_rest_kib']} KiB > 64")
    if f["heap_peak_kib"] > BUDGET["heap_peak_kib"]:
        over.append(f"heap_peak {f['heap_peak_kib']} KiB > 80")
    if f["largest_free_kib"] < BUDGET["largest_free_kib"]:
        over.append(f"largest_free {f['largest_free_kib']} KiB < 128")
    if f["memory_errors"] or f["resets"]:
        over.append(f"{f['memory_errors']} MemoryError(s), {f['resets']} reset(s)")
    if f["alloc_turn_mean_b"] is not None and f["alloc_turn_mean_b"] >= BUDGET["alloc_turn_mean_b"]:
        over.append(f"alloc mean {f['alloc_turn_mean_b']} B >= 2 KB (goal)")
    if f["latency_p99_ms"] is not None and f["latency_p99_ms"] > 1.5 * f["latency_floor_ms"]:
        over.append(f"latency p99 {f['latency_p99_ms']} ms > 1.5 x floor {f['latency_floor_ms']} ms (goal)")
    if f["latency_missed"]:
        over.append(f"{f['latency_missed']} edge(s) never shown")
    return over


def report(build: str, f: dict) -> None:
    def line(label: str, value: Any, note: str = "") -> None:
        print(f"  {label:<44} {value!s:>12}  {note}")
    print(f"{build}  ({f['runtime']})")
    line("live heap between requests, max", f"{f['heap_rest_kib']} KiB", "budget 64 KiB")
    line("live heap while a request is answered, max", f"{f['heap_peak_kib']} KiB", "budget 80 KiB")
    line(f"largest free block after {f['games']} game(s)", f"{f['largest_free_kib']} KiB",
         f"budget >= 128 KiB; heap {f['heap_total_kib']} KiB")
    line("MemoryErrors / resets", f"{f['memory_errors']} / {f['resets']}")
    line("bytes allocated per turn, mean / p95 / max",
         f"{f['alloc_turn_mean_b']} / {f['alloc_turn_p95_b']} / {f['alloc_turn_max_b']}",
         f"goal mean < 2 KB ({f['turns']} turns, host requests left out)")
    if f["latency_p99_ms"] is not None:
        line("edge -> frame shown, p50 / p99 / max",
             f"{f['latency_p50_ms']} / {f['latency_p99_ms']} / {f['latency_max_ms']} ms",
             f"floor {f['latency_floor_ms']} ms, goal p99 <= 1.5 x floor "
             f"({f['latency_events']} events, {f['latency_missed']} not shown)")
        line("edge -> first data bit, p50 / p99 / max",
             f"{f['latency_first_bit_p50_ms']} / {f['latency_first_bit_p99_ms']} / "
             f"{f['latency_first_bit_max_ms']} ms")
    else:
        line("latency", "n/a", f["latency_what"])
    line("interrupts off, longest", f"{f['irq_off_max_ms']} ms",
         f"(WS2812 write {f['irq_off_led_max_ms']} ms over {f['led_writes']} writes; "
         f"flash {f['irq_off_flash_max_ms']} ms over {f['flash_erases']} erases and "
         f"{f['flash_ops'] - f['flash_erases']} programs)")
    line("image", f"{f['image_bytes']} B", f"{f['image_blocks']} of {f['fs_blocks']} littlefs blocks")
    over = check(f)
    print("  " + ("within budgets and goals" if not over else "OVER: " + "; ".join(over)))
    print()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hauntbox_sim.pico.bench", description=__doc__)
    p.add_argument("--only", action="append", choices=list(BUILDS),
                   help="measure only this build (repeatable); default: all four")
    p.add_argument("--games", type=int, default=3, help="games of the heap run (the issue's "
                   "largest-free figure is after 20: --games 20, hours)")
    p.add_argument("--turns", type=int, default=0, help="stop the heap run after this many turns")
    p.add_argument("--period-ms", type=int, default=50,
                   help="the heap probe's sampling period in emulated ms (each sample is a "
                   "collection; 2000 makes a 20-game largest-free run several times faster, "
                   "and its heap figures coarser)")
    p.add_argument("--events", type=int, default=500, help="edges timed per sensor build")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args(argv)
    out: dict = {"builds": {}}
    t0 = time.monotonic()
    for b in args.only or list(BUILDS):
        f = measure(b, args.games, args.events, args.seed, turns=args.turns,
                    period_ms=args.period_ms)
        out["builds"][b] = f
        report(b, f)
    out["wall_s"] = round(time.monotonic() - t0)
    out["args"] = {"games": args.games, "turns": args.turns, "events": args.events,
                   "seed": args.seed, "period_ms": args.period_ms}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1))
    print(f"wrote {args.out} ({out['wall_s']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

