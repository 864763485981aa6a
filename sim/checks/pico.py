"""`hauntbox check beams --pico --rotations 30`: the beam check on the emulated Pico.

The official MicroPython rp2 firmware runs the game in rp2040js (sim/pico/),
the tower model drives the beam and notch pins, the simulated players press
the buttons, and a host console streams the events over USB: every load is
the real one (the chip's own frames through machine.bitstream with
interrupts off, its saves on the port's littlefs, the USB link). Each ball
the model released is matched by time with one `ball` event of its staircase
(sim/checks/match.py), received by the host; a ball counted outside the
rotation that released it is counted in the wrong turn.
"""
from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass
class PicoBeamReport:
    rotations: int
    released: int
    detected: int
    missed: int
    phantom: int
    wrong_turn: int
    doubted: int
    max_latency_ms: float
    emulated_s: float
    wall_s: float
    between: int = 0

    @property
    def ok(self) -> bool:
        return self.missed == 0 and self.phantom == 0 and self.wrong_turn == 0

    def lines(self) -> list[str]:
        return [
            f"rotations on the emulated Pico: {self.rotations}",
            f"balls released by the model: {self.released}",
            f"balls the host heard counted: {self.detected}",
            f"missed: {self.missed}",
            f"phantom: {self.phantom}",
            f"counted in the wrong turn: {self.wrong_turn}",
            f"staircases the firmware doubted and asked about: {self.doubted}",
            f"ball events between turns (no turn counts them; a glitch stretched by a save): "
            f"{self.between}",
            f"longest time from a ball's leading edge to its event at the host: "
            f"{self.max_latency_ms:.1f} ms",
            f"{self.emulated_s:.0f} s emulated in {self.wall_s:.0f} s",
        ]


def pico_beams(rotations: int = 30, seed: int = 1, noise: str = "all",
               players: int = 2) -> PicoBeamReport:
    from hauntbox_sim.checks.match import Found, Truth, match
    from hauntbox_sim.pico.session import RollerPico

    t0 = time.monotonic()
    with RollerPico(players=players, seed=seed, noise=noise) as s:
        found: list[Found] = []
        bounds: list[list[int]] = []        # [rotating, rotated] board times
        state = {"on": False, "doubts": 0}

        def on_event(ev: tuple) -> None:
            t = s.board.now_us
            if ev[0] == "rotating":
                bounds.append([t, 1 << 62])
                state["on"] = True
            elif ev[0] == "rotated":
                bounds[-1][1] = t
                state["on"] = False
            elif ev[0] == "ball":
                owner = len(bounds) - 1 if state["on"] else None
                for _ in range(int(ev[2]) if len(ev) > 2 else 1):
                    found.append(Found(int(ev[1]), t, owner))
            elif ev[0] == "fault" and ev[1] == "beam_doubt":
                state["doubts"] += 1
        s.host.subscribe(on_event)
        s.connect()

        def done() -> bool:
            return len(bounds) > rotations and not state["on"]
        s.play(max_s=rotations * 120.0, until=done)
        tower = s.tower
        gap_us = 2000
        truth = []
        for (k, t), w in zip(tower.released, tower.widths):
            owner = next((i for i, (a, b) in enumerate(bounds) if a <= t <= b), None)
            if owner is not None and owner >= rotations:
                continue                  # the extra rotation that ended the run
            truth.append(Truth(k, t, owner, w + gap_us + 200_000))
        # A count outside every turn is in no turn's result: reported apart.
        between = [f for f in found if f.owner is None]
        found = [f for f in found if f.owner is not None and f.owner < rotations]
        m = match(truth, found)
        return PicoBeamReport(min(rotations, len(bounds)), m.true, m.found, m.missed, m.phantom,
                              m.wrong_owner, state["doubts"], m.max_latency_ms,
                              s.board.now_us / 1e6, time.monotonic() - t0, len(between))
