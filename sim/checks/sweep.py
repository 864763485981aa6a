"""`hauntbox check beams --sweep` and `hauntbox check hits --sweep`: the margins.

Each noise parameter of the physical models is swept across and beyond the
envelope of hardware/sensing-envelope.md, one at a time, the others at their
envelope defaults, with the load on (sim/checks/load.py). For every value the
same time-matched check runs (sim/checks/match.py) and one table row is
printed: parameter, value, true events, missed, phantom, wrong player (turn),
doubted (the firmware reported the pattern and asked the players), and turns
still wrong after the answers. A PNG per check (detection rate against each
parameter, the decoder's threshold and the envelope marked) and a Markdown
copy of the table go to docs/.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


@dataclass
class Param:
    name: str
    unit: str
    values: list[float]
    apply: Callable[[Any, Any, float], None]   # (model config, load, value)
    threshold: float | None                    # the decoder's limit on this axis
    threshold_label: str
    envelope: tuple[float, float]              # the physical range inside which 0/0/0 is required
    log: bool = False


@dataclass
class Row:
    param: str
    value: float
    true: int
    missed: int
    phantom: int
    wrong: int
    doubted: int
    turns_wrong: int
    inside: bool

    @property
    def rate(self) -> float:
        return (self.true - self.missed) / self.true if self.true else 1.0


def _beam_params() -> list[Param]:
    def pulse(c, load, v):
        c.pulse_ms = (v, v * 1.1)

    def glitch_len(c, load, v):
        c.glitch_us = (int(v * 800), int(v * 1000))

    def glitch_rate(c, load, v):
        c.glitches_per_s = v

    def ball_gap(c, load, v):
        c.min_gap_ms = v
        c.follow_p = 1.0

    def irq_off(c, load, v):
        load.extra_irq_off_us = max(0, int(v * 1000) - 1530)

    return [
        Param("ball pulse at the receiver", "ms", [2, 3, 3.5, 4, 4.5, 5, 5.5, 7, 10, 20, 135],
              pulse, 4.0, "min_pulse_us", (7.0, 135.0), log=True),
        Param("glitch length (10/s per beam)", "ms", [0.1, 0.25, 0.5, 1, 1.5, 2, 2.5, 3, 4, 5],
              glitch_len, 4.0, "min_pulse_us", (0.0, 0.5)),
        Param("glitch rate (0.05-0.5 ms each)", "/s per beam", [1, 5, 10, 20, 40, 80, 160],
              glitch_rate, 24.0, "doubt_glitches per turn", (0.0, 10.0), log=True),
        Param("clear beam between two balls", "ms", [0.5, 1, 1.5, 2, 3, 5, 10, 20, 40, 80],
              ball_gap, 2.0, "gap_us", (40.0, 1000.0), log=True),
        Param("interrupts off per LED frame", "ms", [1.53, 2, 3, 4, 5, 6, 8],
              irq_off, 3.0, "7 ms pulse - min_pulse", (0.0, 1.53)),
    ]


def _hit_params() -> list[Param]:
    def opening(c, load, v):
        c.impact_ms = (v, v * 1.2)

    def glitch_len(c, load, v):
        c.glitch_us = (int(v * 800), int(v * 1000))
        c.glitches_per_s = 1.0

    def glitch_rate(c, load, v):
        c.glitches_per_s = v

    def bounce_gap(c, load, v):
        c.bounce_gap_ms = (120.0, v)

    def int_delay(c, load, v):
        c.irq_delay_p = 0.5
        c.irq_delay_us = (int(v * 500), int(v * 1000))

    return [
        Param("piece's contact open on a knock", "ms", [1, 2, 3, 4, 5, 6, 8, 12, 25, 40, 150],
              opening, 5.0, "spot min_us", (25.0, 150.0), log=True),
        Param("glitch length (1/s per line)", "ms", [0.25, 0.5, 1, 2, 3, 4, 5, 6, 8],
              glitch_len, 5.0, "spot min_us", (0.0, 1.0)),
        Param("glitch rate (0.05-1 ms each)", "/s per line", [0.1, 0.3, 1, 3, 10, 30],
              glitch_rate, None, "", (0.0, 1.0), log=True),
        Param("longest gap between sensed bounces", "ms", [500, 900, 1000, 1300, 1500, 2000, 3000],
              bounce_gap, 1500.0, "quiet_ms", (0.0, 1000.0)),
        Param("expander INT read late (half the reads)", "ms", [0.1, 0.3, 1, 2, 3, 5, 8],
              int_delay, None, "", (0.0, 0.3), log=True),
    ]


def _inside(p: Param, v: float) -> bool:
    return p.envelope[0] <= v <= p.envelope[1]


def sweep_beams(rotations: int, seed: int, params: list[str] | None = None,
                progress: bool = True) -> list[Row]:
    from hauntbox_sim.checks.accuracy import beam_accuracy
    from hauntbox_sim.checks.load import Load
    from hauntbox_sim.boards.roller import noise_config
    rows = []
    for p in _beam_params():
        if params and not any(x in p.name for x in params):
            continue
        for v in p.values:
            cfg = noise_config("all")
            load = Load()
            p.apply(cfg, load, v)
            r = beam_accuracy(rotations, seed, "all", load=load, tower_cfg=cfg)
            rows.append(Row(p.name, v, r.released, r.missed, r.phantom, r.wrong_turn, r.doubted,
                            r.stairs_wrong, _inside(p, v)))
            if progress:
                print(f"  {p.name} = {v}: {r.missed} missed, {r.phantom} phantom", file=sys.stderr)
    return rows


def sweep_hits(launches: int, seed: int, params: list[str] | None = None,
               progress: bool = True) -> list[Row]:
    from hauntbox_sim.checks.accuracy import hit_accuracy
    from hauntbox_sim.checks.load import Load
    from hauntbox_sim.models.table import noise_config
    rows = []
    for p in _hit_params():
        if params and not any(x in p.name for x in params):
            continue
        for v in p.values:
            cfg = noise_config("all")
            load = Load()
            p.apply(cfg, load, v)
            rep, _s, _w = hit_accuracy(launches, seed, "all", players=4, load=load, table_cfg=cfg)
            rows.append(Row(p.name, v, rep.true_hits, rep.missed, rep.phantom, rep.wrong_player,
                            rep.doubted, rep.round_mismatches, _inside(p, v)))
            if progress:
                print(f"  {p.name} = {v}: {rep.missed} missed, {rep.phantom} phantom, "
                      f"{rep.wrong_player} wrong player", file=sys.stderr)
    return rows


def table_lines(rows: list[Row], what: str, wrong: str, after: str) -> list[str]:
    out = [f"| parameter | value | {what} | missed | phantom | {wrong} | doubted, asked | {after} | in envelope |",
           "|---|---:|---:|---:|---:|---:|---:|---:|:---:|"]
    for r in rows:
        out.append(f"| {r.param} | {r.value:g} | {r.true} | {r.missed} | {r.phantom} | {r.wrong} | "
                   f"{r.doubted} | {r.turns_wrong} | {'yes' if r.inside else 'no'} |")
    return out


def plot(rows: list[Row], params: list[Param], path: Path, title: str) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ps = [p for p in params if any(r.param == p.name for r in rows)]
    n = len(ps)
    cols = 2 if n > 1 else 1
    nrows = math.ceil(n / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(6.0 * cols, 3.2 * nrows), squeeze=False)
    for ax, p in zip(axes.flat, ps):
        rs = [r for r in rows if r.param == p.name]
        xs = [r.value for r in rs]
        ax.plot(xs, [100 * r.rate for r in rs], "o-", label="detected %")
        tot = [max(1, r.true) for r in rs]
        ax.plot(xs, [100 * r.phantom / t for r, t in zip(rs, tot)], "s--", label="phantom % of true")
        ax.plot(xs, [100 * r.wrong / t for r, t in zip(rs, tot)], "^:", label="wrong player/turn %")
        lo, hi = p.envelope
        lo = max(lo, min(xs)) if p.log else lo
        hi = min(hi, max(xs))
        ax.axvspan(lo, hi, color="green", alpha=0.12, label="envelope")
        if p.threshold is not None:
            ax.axvline(p.threshold, color="red", lw=1.2, label=f"threshold ({p.threshold_label})")
        if p.log:
            ax.set_xscale("log")
        ax.set_ylim(-5, 105)
        ax.set_xlabel(f"{p.name} ({p.unit})")
        ax.set_ylabel("%")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def run(what: str, count: int, seed: int, out_dir: Path | None = None,
        params: list[str] | None = None) -> int:
    out_dir = out_dir or DOCS
    try:
        import matplotlib  # noqa: F401 - the chart is part of the result: checked before the long run
    except ImportError:
        print("hauntbox check: the sweep draws its chart with matplotlib, which is not installed: "
              "`make sweeps`, or `.venv/bin/pip install 'hauntbox[charts]'`", file=sys.stderr)
        return 2
    names = [p.name for p in (_beam_params() if what == "beams" else _hit_params())]
    if params and not any(x in n for x in params for n in names):
        print(f"hauntbox check: --param {' '.join(params)} names none of the {what} sweep's "
              f"parameters ({'; '.join(names)})", file=sys.stderr)
        return 2
    if what == "beams":
        rows = sweep_beams(count, seed, params)
        plist = _beam_params()
        lines = table_lines(rows, "balls", "wrong turn", "turns wrong after the answers")
        head = f"Beam margins: {count} rotations per value, seed {seed}, load on"
        png = plot(rows, plist, out_dir / "sweep-beams.png", head)
    else:
        rows = sweep_hits(count, seed, params)
        plist = _hit_params()
        lines = table_lines(rows, "hits", "wrong player", "round scores wrong")
        head = f"Hit margins: {count} launches per value, seed {seed}, load on"
        png = plot(rows, plist, out_dir / "sweep-hits.png", head)
    print(head)
    for line in lines:
        print(line)
    md = out_dir / f"sweep-{what}.md"
    md.write_text(f"# {head}\n\nWritten by `hauntbox check {what} --sweep`; the envelope and the "
                  "thresholds: hardware/sensing-envelope.md.\n\n" + "\n".join(lines) + "\n")
    print(f"wrote {png} and {md}")
    bad = [r for r in rows if r.inside and (r.missed or r.phantom or r.wrong or r.turns_wrong)]
    print("RESULT: " + ("PASS" if not bad else "FAIL") + f" ({len(bad)} values inside the envelope "
          "with a miss, phantom or wrong player)")
    return 0 if not bad else 1
