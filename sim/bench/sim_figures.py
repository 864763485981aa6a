"""`make bench`, simulator side: figures that need the physical models and the
virtual clock, per game. Each function plays one whole busy game and returns

    {"latency": {"label", "what", "max_ms", "avg_ms", "n", "missed", "skipped"} | None,
     "link": serial-link figures | None,
     "chains": [{"name", "leds", "writes", "irq_off_us"}], "events": bus events,
     "sim_seconds", "wall_seconds"}

Latency is measured from the physical edge (the model's own record of when a
ball or a die reached the sensor) to the first frame on the LED chain that
shows it, in virtual time, with a host busy on the serial link
(sim/models/host_link.py). Computation takes no virtual time: the figure covers the
scheduling, the filter windows and the blocking writes, not the CPU speed.
"""
from __future__ import annotations

import time
from typing import Any, Callable

#: A reaction later than this is counted as not shown (and reported).
SHOWN_WITHIN_US = 2_000_000


class FrameRecorder:
    """Every write of the given NeoPixel chains during the run: (chain, time, bytes).
    Wraps each chain's own write (which the simulator may itself have wrapped,
    e.g. HauntedSim's interrupts-off model)."""

    def __init__(self, *nps: Any) -> None:
        self.nps = nps
        self.frames: list[tuple[Any, int, bytes]] = []

    def __enter__(self) -> "FrameRecorder":
        from hauntbox_sim.core import runtime
        frames = self.frames
        self._own = [np.__dict__.get("write") for np in self.nps]
        for np in self.nps:
            write = np.write

            def recording_write(np: Any = np, write: Callable = write) -> None:
                write()
                frames.append((np, runtime.clock().now_us, bytes(np.buf)))
            np.write = recording_write
        return self

    def __exit__(self, *exc: Any) -> None:
        for np, own in zip(self.nps, self._own):
            if own is None:
                del np.write        # back to the class's write
            else:
                np.write = own      # back to the simulator's own wrapper

    def of(self, np: Any) -> list[tuple[int, bytes]]:
        return [(t, b) for n, t, b in self.frames if n is np]


Shows = Callable[[bytes, bytes], bool]


def _latency(label: str, what: str, edges: list[tuple[int, Shows, Callable | None]],
             frames: list[tuple[int, bytes]]) -> dict:
    """edges: (t_us, shows(before, frame), on_show(before) or None); the latency of
    one is the time to the first frame at or after t_us for which shows(last frame
    before t_us, frame). An edge whose picture is already on show (on_show of the
    last frame before t_us) is skipped: there is nothing new to draw."""
    lat: list[float] = []
    missed = 0
    skipped = 0
    for t, shows, on_show in edges:
        before = b""
        for ft, buf in frames:
            if ft >= t:
                break
            before = buf
        if on_show is not None and on_show(before):
            skipped += 1
            continue
        for ft, buf in frames:
            if ft >= t and shows(before, buf):
                if ft - t <= SHOWN_WITHIN_US:
                    lat.append((ft - t) / 1000)
                else:
                    missed += 1
                break
        else:
            missed += 1
    return {"label": label, "what": what, "n": len(lat), "missed": missed, "skipped": skipped,
            "max_ms": max(lat) if lat else None, "avg_ms": sum(lat) / len(lat) if lat else None}


def _link(serial: Any) -> dict:
    return {"lines": serial.lines, "events": serial.events, "bytes": serial.bytes_sent,
            "blocked_ms": serial.blocked_us / 1000, "longest_ms": serial.longest_block_us / 1000,
            "rate": serial.bytes_per_ms}


def _chain(name: str, np: Any) -> dict:
    return {"name": name, "leds": np.n, "writes": np.writes, "irq_off_us": np.write_time_us()}


def _count_events(app: Any) -> list[int]:
    n = [0]

    def count(_ev: tuple) -> None:
        n[0] += 1
    app.bus.subscribe(count)
    return n


def roller(seed: int) -> dict:
    """Roller Ghoster: rotations, beams with glitches, chatter and bounce; from a
    ball's leading edge on its staircase's beam to the trench LED showing it."""
    from hauntbox_sim.models.host_link import SimUsbSerial
    from hauntbox_sim.models.tower import TowerConfig
    from hauntbox_sim.boards.roller import RollerSim

    cfg = TowerConfig(release_p=0.6, bounce=True, chatter=True, glitches_per_s=10.0)
    serial = SimUsbSerial()
    s = RollerSim(players=4, seed=seed, tower_cfg=cfg, noise="all", host_link=serial)
    np = s.app.controller.build.strip.np
    events = _count_events(s.app)
    t0 = time.monotonic()
    with FrameRecorder(np) as rec:
        s.run()
    wall = time.monotonic() - t0
    px = s.pinmap["pixels"]
    bpp = np.bpp

    def lit(buf: bytes, led: int) -> bool:
        c = buf[led * bpp: led * bpp + 3]
        return len(c) == 3 and min(c) > 0 and c[0] == c[1] == c[2]      # white: a ball

    edges = []
    for k, t in s.tower.released:
        led = px["trenches_from"] + k - 1
        # A ball on a staircase whose LED already shows one is not a new picture.
        edges.append((t, lambda _before, buf, led=led: lit(buf, led),
                      lambda before, led=led: lit(before, led)))
    lat = _latency("ball edge -> LED frame", "balls", edges, rec.of(np))
    return {"latency": lat, "link": _link(serial), "chains": [_chain("strip", np)],
            "events": events[0], "sim_seconds": s.sim_seconds(), "wall_seconds": wall}


def haunted(seed: int) -> dict:
    """Haunted House on its table: dice bouncing over standees, clues, holes and
    the circle; from a standee hit (or a clue taken) to the spot LED chain
    showing it (the monster's spot turns white: put it back; the clue spot dims)."""
    from hauntbox_sim.boards.haunted import HauntedSim
    from hauntbox_sim.models.host_link import SimUsbSerial

    serial = SimUsbSerial()
    s = HauntedSim(players=4, seed=seed, noise="all", host_link=serial)
    model = s.table
    hits: list[tuple[str, str, int]] = []

    def noting(hit: Callable, kind: str, made: str) -> Callable:
        # The model's own hit (a standee knocked, a clue taken): what and when.
        def wrapped(rec: Any, t: int, now: set) -> bool:
            n = len(getattr(rec, made))
            ok = hit(rec, t, now)
            if len(getattr(rec, made)) > n:
                hits.append((kind, getattr(rec, made)[-1], t))
            return ok
        return wrapped
    model._hit_monster = noting(model._hit_monster, "monster", "monsters")  # type: ignore[method-assign]
    model._hit_clue = noting(model._hit_clue, "clue", "clues")  # type: ignore[method-assign]
    build = s.controller.build
    events = _count_events(s.app)
    t0 = time.monotonic()
    with FrameRecorder(build.spot_strip.np) as rec:
        s.run()
    wall = time.monotonic() - t0
    leds = s.pinmap["pixels"]["spots"]["leds"]
    bpp = build.spot_strip.np.bpp
    spots_of = {}
    for sp in s.data["monster_spots"]:
        m = sp["id"].rsplit("_", 1)[0]
        spots_of.setdefault(m, []).append(leds[sp["id"]])

    def changed(idx: list[int]) -> Callable[[bytes, bytes], bool]:
        def shows(before: bytes, buf: bytes) -> bool:
            return any(before[i * bpp:(i + 1) * bpp] != buf[i * bpp:(i + 1) * bpp] for i in idx)
        return shows

    edges = [(t, changed(spots_of[name] if kind == "monster" else [leds[name]]), None)
             for kind, name, t in hits]
    lat = _latency("standee/clue hit -> spot LED", "hits", edges,
                   rec.of(build.spot_strip.np))
    return {"latency": lat, "link": _link(serial),
            "chains": [_chain("score panel", build.score_strip.np),
                       _chain("spot chain", build.spot_strip.np)],
            "events": events[0], "sim_seconds": s.sim_seconds(), "wall_seconds": wall}


def companion(game: str, seed: int) -> dict:
    """A dice companion (no sensors: no latency figure): LED writes and speed."""
    from hauntbox_sim.boards.companion import CompanionSim

    s = CompanionSim(game=game, players=4, seed=seed)
    events = _count_events(s.app)
    t0 = time.monotonic()
    s.run()
    wall = time.monotonic() - t0
    return {"latency": None, "link": None, "chains": [_chain("matrix", s.np)],
            "events": events[0], "sim_seconds": s.sim_seconds(), "wall_seconds": wall}


#: bench key -> function(seed) for the simulator figures of that game.
SIM_FIGURES: dict[str, Callable[[int], dict]] = {
    "roller-ghoster": roller,
    "haunted-house-board": haunted,
    "beetlejuice": lambda seed: companion("beetlejuice", seed),
    "superskill": lambda seed: companion("superskill", seed),
}
