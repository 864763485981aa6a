"""Sensor injection: the simulator-only `{"cmd":"sim",...}` request (docs/protocol.md).

A host (the console's `ball 2`, `hit bob`, `press roll`; a web page) asks the
simulated or emulated board to make something happen on the table: a ball
rolls down a staircase, a die knocks a standee, a player presses a button.
The request is answered by the board's link layer (`sim/boards/pty.py`,
`sim/pico/pty.py`) before the firmware sees the line, by driving the physical
models: the ball really crosses the beam model, so the firmware decodes it as
any other. The firmware never learns the command; a real board refuses it as
an unknown command, which the host turns into one clear line.

`SimRequests` sits on the bytes from the host: it passes everything through
at once except a line that begins with `{"cmd":"sim"` (held until its
newline, at most 1024 bytes), which `Injector` answers.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hauntbox_sim.fakes import machine

PREFIX = b'{"cmd":"sim"'
MAX_LINE = 1024
PRESS_MS = 80
BALL_ROLL_MS = 30          # from "a ball now" to its beam (it still rolls a bit)


class InjectError(ValueError):
    pass


def _ms(rng: tuple[float, float]) -> int:
    return int((rng[0] + rng[1]) / 2 * 1000)    # a typical width, in us


class Injector:
    """Drives the build's models for one `sim` request; returns the reply."""

    def __init__(self, clock: Any, pinmap: dict, tower: Any = None, table: Any = None) -> None:
        self.clock = clock
        self.tower = tower
        self.table = table
        pins = pinmap.get("pins", {})
        self.buttons = {n[4:]: pins[n]["gpio"] for n in pins if n.startswith("btn_")}
        self._busy_until: dict[str, int] = {}
        self.count = 0

    # ---- what this build can do ----------------------------------------------
    def verbs(self) -> dict[str, dict[str, list]]:
        v: dict[str, dict[str, list]] = {}
        if self.tower is not None:
            v["ball"] = {"stair": list(range(1, self.tower.cfg.staircases + 1))}
        if self.table is not None:
            v["hit"] = {"target": self.targets()}
        if self.buttons:
            v["press"] = {"button": sorted(self.buttons)}
        return v

    def targets(self) -> list[str]:
        t = self.table
        return (sorted(t.monster_spots) + list(t.clue_ids) + list(t.holes)
                + ["circle", "launch"])

    # ---- a request --------------------------------------------------------------
    def handle(self, req: dict) -> dict:
        rid = req.get("id")
        do = req.get("do")
        try:
            if do == "list":
                out: dict[str, Any] = {"verbs": self.verbs()}
            elif do in self.verbs():
                out = getattr(self, "_" + do)(req)
                self.count += 1
            else:
                have = ", ".join(["list"] + list(self.verbs()))
                raise InjectError(f"unknown do {json.dumps(do)[:40]}; this build has: {have}")
        except InjectError as e:
            return {"ok": False, "id": rid, "error": str(e)}
        return {"ok": True, "id": rid, "sim": do, **out}

    def _ball(self, req: dict) -> dict:
        tw = self.tower
        k = req.get("stair")
        n = tw.cfg.staircases
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= n:
            raise InjectError(f"stair must be 1..{n}")
        # As the model's own release does: the ground truth records it, and two
        # balls down one staircase keep the model's spacing.
        t = self.clock.now_us + BALL_ROLL_MS * 1000
        t = max(t, tw._beam_busy_until[k - 1] + int(tw.cfg.min_gap_ms * 1000))
        width = _ms(tw.cfg.pulse_ms)
        tw._beam_busy_until[k - 1] = t + width
        tw.released.append((k, t))
        tw._ball_pulse(k - 1, t, width)
        return {"stair": k, "at_ms": t // 1000}

    def _hit(self, req: dict) -> dict:
        tb = self.table
        target = req.get("target")
        names = self.targets()
        if target not in names:
            raise InjectError(f"target must be one of {', '.join(names)}")
        now = self.clock.now_us
        cfg = tb.cfg
        if target in tb.monster_spots:
            # Knocked, so the people move it up a level after the turn (the model's rule).
            line = tb.monster_spot(target)
            tb.monster_hit.add(target)
            tb._pulse(line, now, _ms(cfg.impact_ms))
        elif target in tb.clue_ids:
            line = target
            tb.clue_hit.add(target)
            tb._pulse(line, now, _ms(cfg.impact_ms))
        elif target in tb.holes:
            line = target
            tb._pulse(line, now, _ms(cfg.hole_ms))
        elif target == "circle":
            line = tb.circle_id      # a die rolling across it without stopping
            tb._pulse(line, now, _ms(cfg.pass_circle_ms))
        else:
            line = "launch"
            tb._pulse(line, now, _ms(cfg.launch_ms))
        return {"target": target, "line": line, "at_ms": now // 1000}

    def _press(self, req: dict) -> dict:
        b = req.get("button")
        if b not in self.buttons:
            raise InjectError(f"button must be one of {', '.join(sorted(self.buttons))}")
        pin = machine.pin(self.buttons[b])
        # Presses queue up behind each other, as a finger's do.
        t = max(self.clock.now_us, self._busy_until.get(b, 0))
        self.clock.at(t, lambda: pin.sim_drive(0))
        self.clock.at(t + PRESS_MS * 1000, lambda: pin.sim_drive(None))
        self._busy_until[b] = t + 2 * PRESS_MS * 1000
        return {"button": b, "at_ms": t // 1000}


class SimRequests:
    """Splits the `sim` request lines out of the host's byte stream.

    `feed(data)` returns the bytes for the firmware (everything else, at
    once: the REPL's control characters and mpremote's raw mode included) and
    calls `answer(line)` with each reply line for the host.
    """

    def __init__(self, injector: Injector, answer: Callable[[bytes], None]) -> None:
        self.injector = injector
        self.answer = answer
        self.held = bytearray()       # the start of a line that may be a sim request
        self.at_line_start = True

    def feed(self, data: bytes) -> bytes:
        out = bytearray()
        for b in data:
            if self.held:
                self.held.append(b)
                if b == 0x0A:
                    if len(self.held) > len(PREFIX) + 1:
                        self._request(bytes(self.held))
                    else:
                        out += self.held            # a line shorter than the prefix
                    self.held.clear()
                    self.at_line_start = True
                elif len(self.held) <= len(PREFIX):
                    if self.held != PREFIX[:len(self.held)]:
                        out += self.held            # not ours: pass it on unchanged
                        self.held.clear()
                        self.at_line_start = False
                elif len(self.held) == len(PREFIX) + 1 and b not in b",}":
                    out += self.held                # e.g. {"cmd":"simple"
                    self.held.clear()
                    self.at_line_start = False
                elif len(self.held) > MAX_LINE + 2:
                    out += self.held                # the firmware refuses it as too long
                    self.held.clear()
                    self.at_line_start = False
                continue
            if self.at_line_start and b == PREFIX[0]:
                self.held.append(b)
                continue
            out.append(b)
            self.at_line_start = b in (0x0A, 0x0D)
        return bytes(out)

    def _request(self, line: bytes) -> None:
        try:
            req = json.loads(line)
        except ValueError:
            req = None
        if not isinstance(req, dict):
            reply = {"ok": False, "id": None, "error": "not valid JSON"}
        else:
            reply = self.injector.handle(req)
        self.answer((json.dumps(reply, separators=(",", ":")) + "\n").encode())
