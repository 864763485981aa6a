"""A flood of requests in one write to the emulated Pico, mid-game.

`python -m hauntbox_sim.pico.flood [N]` writes N `state` requests (default 1,000) in one
write while a Roller Ghoster game plays, and counts the replies: every request
line must get exactly one, in order, with the game going on. On the board,
back-pressure does it: while replies wait the firmware stops reading, the
bytes stay in the USB buffers, and the host's write waits (sim/pico/pico.mjs
hands them over only as the board reads).
"""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass


@dataclass
class Flood:
    requests: int
    replies: int
    in_order: bool
    duplicates: int
    turns_during: int
    emulated_s: float
    wall_s: float

    @property
    def ok(self) -> bool:
        return self.replies == self.requests and self.in_order and self.duplicates == 0


def flood(n: int = 1000, cmd: str = "state", seed: int = 1) -> Flood:
    from hauntbox_sim.pico.session import RollerPico
    with RollerPico(players=2, seed=seed, noise="none") as s:
        s.connect()
        s.play(max_s=60, until=lambda: s.result.turns >= 1)
        order: list[int] = []
        s.host.on_reply.append(lambda m: order.append(m["id"]) if isinstance(m.get("id"), int)
                               and m["id"] >= 100_000 else None)
        ids = list(range(100_000, 100_000 + n))
        blob = b"".join(json.dumps({"cmd": cmd, "id": i}).encode() + b"\n" for i in ids)
        turns0, t0, e0 = s.result.turns, time.monotonic(), s.board.now_us
        s.board.pico.write(blob)
        s.board.run(600_000, until=lambda: len(order) >= n)
        s.board.run(500)                 # anything more would be a second reply
        return Flood(n, len(set(order)), order[:n] == ids, len(order) - len(set(order)),
                     s.result.turns - turns0, (s.board.now_us - e0) / 1e6,
                     time.monotonic() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hauntbox_sim.pico.flood", description=__doc__)
    ap.add_argument("n", nargs="?", type=int, default=1000)
    a = ap.parse_args(argv)
    f = flood(a.n)
    print(f"Flood on the emulated Pico: {f.requests} state requests in one write, mid-game: "
          f"{f.replies} replies ({'in order' if f.in_order else 'OUT OF ORDER'}, "
          f"{f.duplicates} duplicates); {f.turns_during} turns played meanwhile; "
          f"{f.emulated_s:.1f} s emulated, {f.wall_s:.0f} s wall")
    return 0 if f.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
