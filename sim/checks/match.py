"""Match true events with detections by time (the accuracy checks).

Counting per staircase or per launch lets one miss and one phantom cancel;
here each true event (a ball at a beam, a hit on a piece) is paired with at
most one detection of the same thing (same staircase, same piece) that came
within its time window, earliest first. What is left over on either side is
a miss or a phantom; a pair whose detection was credited to another owner
(another player's turn, another rotation) is a wrong owner, neither a miss nor
a phantom.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable


@dataclass
class Truth:
    key: Hashable           # what: staircase number, ("m", monster), ("c", clue spot)
    t_us: int               # when it happened
    owner: Hashable         # whose: the rotation or the player's turn it belongs to
    window_us: int          # a detection up to this long after t_us can be this event


@dataclass
class Found:
    key: Hashable
    t_us: int
    owner: Hashable


@dataclass
class MatchResult:
    true: int = 0
    found: int = 0
    matched: int = 0
    missed: int = 0
    phantom: int = 0
    wrong_owner: int = 0
    latencies_us: list[int] = field(default_factory=list)
    missed_at: list[Truth] = field(default_factory=list)
    phantom_at: list[Found] = field(default_factory=list)

    def add(self, o: "MatchResult") -> None:
        for k in ("true", "found", "matched", "missed", "phantom", "wrong_owner"):
            setattr(self, k, getattr(self, k) + getattr(o, k))
        self.latencies_us += o.latencies_us
        self.missed_at += o.missed_at[:20]
        self.phantom_at += o.phantom_at[:20]

    @property
    def max_latency_ms(self) -> float:
        return max(self.latencies_us, default=0) / 1000


def match(truth: list[Truth], found: list[Found], early_us: int = 1000) -> MatchResult:
    """Pair each true event with the earliest unpaired detection of the same key
    in [t - early_us, t + window_us]; early_us allows for clocks read at slightly
    different points. Events are taken in time order."""
    r = MatchResult(true=len(truth), found=len(found))
    pending: dict[Hashable, list[Found]] = {}
    for f in sorted(found, key=lambda f: f.t_us):
        pending.setdefault(f.key, []).append(f)
    for tr in sorted(truth, key=lambda x: x.t_us):
        cands = pending.get(tr.key, [])
        pick = None
        for i, f in enumerate(cands):
            if f.t_us < tr.t_us - early_us:
                continue
            if f.t_us > tr.t_us + tr.window_us:
                break
            pick = i
            break
        if pick is None:
            r.missed += 1
            r.missed_at.append(tr)
            continue
        f = cands.pop(pick)
        r.matched += 1
        r.latencies_us.append(f.t_us - tr.t_us)
        if f.owner != tr.owner:
            r.wrong_owner += 1
    for lst in pending.values():
        r.phantom += len(lst)
        r.phantom_at += lst
    return r
