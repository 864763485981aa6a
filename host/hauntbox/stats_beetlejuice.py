"""`hauntbox stats beetlejuice`: bot-versus-bot statistics for Watch Out Beetlejuice.

Usage::

    hauntbox stats beetlejuice --games N [--seed S] [--players P] [--png PATH]
                               [--policies heuristic,random] [--expert]
    python -m hauntbox.stats_beetlejuice --games N ...

Game ``g`` uses seed ``S * 1_000_003 + g`` and seats the policies in rotation
(seat ``i`` plays ``policies[(i + g) % len(policies)]``), so every policy sits
in every seat equally often. Reported: win rate by policy and by seat (shared
wins split evenly), Beetlejuice's win rate, game length in turns, and an
optional PNG chart (matplotlib, Agg backend). Progress goes to stderr.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter

from hauntbox.bots_beetlejuice import POLICIES, load_config, play_game


def parse_args(argv: list[str]) -> argparse.Namespace:
    from hauntbox.cli_style import Parser, renamed

    prog = "hauntbox stats beetlejuice"
    ap = Parser(prog=prog, description="Bot statistics for Watch Out Beetlejuice.")
    ap.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    ap.add_argument("--seed", type=int, default=1, help="base seed (default 1)")
    ap.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    ap.add_argument("--png", default=None, help="write a chart to this PNG file")
    ap.add_argument("--policy", default="heuristic,random", metavar="P[,P...]",
                    help="the bots' policy; a comma list is seated in rotation "
                         f"(from {', '.join(POLICIES)}; default heuristic,random)")
    ap.add_argument("--expert", action="store_true", help="expert variant (8 Residents)")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    a = ap.parse_args(renamed(argv, {"--policies": "--policy"}, prog))
    if a.games < 1:
        ap.error("--games must be at least 1")
    if not 1 <= a.players <= 6:
        ap.error("--players must be 1..6")
    a.policy_list = [p.strip() for p in a.policy.split(",") if p.strip()]
    bad = [p for p in a.policy_list if p not in POLICIES]
    if bad or not a.policy_list:
        ap.error(f"unknown policy: {', '.join(bad) or '(none)'}")
    return a


def run(games: int, seed: int = 1, players: int = 2, policies: list[str] | None = None,
        expert: bool = False, progress: bool = False) -> dict:
    """Play ``games`` bot games and return the aggregated statistics as a dict."""
    policies = policies or ["heuristic", "random"]
    config = load_config()
    options = {"expert": expert}
    by_policy: dict[str, float] = {p: 0.0 for p in policies}
    seats_of_policy: Counter = Counter()
    by_seat = [0.0] * players
    bj_wins = 0
    lengths: list[int] = []
    t0 = time.time()
    step = max(1, games // 20)
    for g in range(games):
        seat_pol = [policies[(i + g) % len(policies)] for i in range(players)]
        for p in seat_pol:
            seats_of_policy[p] += 1
        r = play_game(config, seat_pol, seed * 1_000_003 + g, options)
        lengths.append(r["turns"])
        if r["result"] == "bj":
            bj_wins += 1
        else:
            share = 1.0 / len(r["winners"])
            for w in r["winners"]:
                by_seat[w] += share
                by_policy[seat_pol[w]] += share
        if progress and ((g + 1) % step == 0 or g + 1 == games):
            print(f"  {g + 1}/{games} games, {time.time() - t0:.1f}s", file=sys.stderr)
    pol_names = list(dict.fromkeys(policies))
    return {
        "games": games, "seed": seed, "players": players, "policies": policies,
        "expert": expert,
        "win_rate_by_policy": {p: by_policy[p] / games for p in pol_names},
        # a policy's wins per seat it occupied (fair when seat counts differ)
        "win_rate_per_seat_by_policy": {p: by_policy[p] / seats_of_policy[p]
                                        for p in pol_names},
        "win_rate_by_seat": [w / games for w in by_seat],
        "bj_win_rate": bj_wins / games,
        "length_mean": statistics.fmean(lengths),
        "length_median": statistics.median(lengths),
        "length_min": min(lengths),
        "length_max": max(lengths),
        "lengths": lengths,
        "seconds": time.time() - t0,
    }


def format_report(s: dict) -> str:
    """Plain-text report of a ``run`` result."""
    lines = [
        f"Watch Out Beetlejuice: {s['games']} games, {s['players']} players, "
        f"seed {s['seed']}, policies {','.join(s['policies'])} (rotated over seats)"
        + (", expert" if s["expert"] else ""),
        "win rate by policy (share of all games; per seat occupied):",
    ]
    for p, v in s["win_rate_by_policy"].items():
        lines.append(f"  {p:10s} {100 * v:6.1f}%   {100 * s['win_rate_per_seat_by_policy'][p]:6.1f}%")
    lines.append("win rate by seat:")
    for i, v in enumerate(s["win_rate_by_seat"]):
        lines.append(f"  seat {i + 1:<5d} {100 * v:6.1f}%")
    lines.append(f"Beetlejuice wins (everyone loses): {100 * s['bj_win_rate']:.1f}%")
    lines.append(f"game length in turns: mean {s['length_mean']:.1f}, median "
                 f"{s['length_median']:g}, min {s['length_min']}, max {s['length_max']}")
    lines.append(f"({s['seconds']:.1f}s)")
    return "\n".join(lines)


def visible(values: list[float], share: float = 0.015) -> list[float]:
    """Bar heights: each non-zero value at least `share` of the largest, so it shows."""
    floor = share * max(values + [1.0])
    return [max(v, floor) if v > 0 else 0.0 for v in values]


def write_png(s: dict, path: str) -> None:
    """Bar charts of win rates and a histogram of game lengths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    names = list(s["win_rate_by_policy"]) + ["Beetlejuice"]
    vals = [100 * v for v in s["win_rate_by_policy"].values()] + [100 * s["bj_win_rate"]]
    palette = ["tab:blue", "tab:orange", "tab:green", "tab:olive", "tab:cyan"]
    colors = [palette[i % len(palette)] for i in range(len(names) - 1)] + ["tab:red"]
    seats = [f"seat {i + 1}" for i in range(s["players"])]
    seat_vals = [100 * v for v in s["win_rate_by_seat"]]
    for ax, xs, ys, col, title in ((axes[0], names, vals, colors, "win rate by policy"),
                                   (axes[1], seats, seat_vals, "tab:purple", "win rate by seat")):
        bars = ax.bar(xs, visible(ys), color=col)
        # Values on the bars; a bar too small to see (Beetlejuice's 0.5 %) is
        # drawn at a minimum height and still labelled with its true value.
        ax.bar_label(bars, labels=[f"{y:.1f}%" for y in ys], padding=2, fontsize=8)
        ax.set_ylim(0, max(ys + [1.0]) * 1.15)
        ax.set_ylabel("% of games won")
        ax.set_title(f"Watch Out Beetlejuice: {title}", fontsize=10)
    lens = s["lengths"]
    axes[2].hist(lens, bins=range(min(lens), max(lens) + 2), color="tab:gray")
    axes[2].set_title(f"Watch Out Beetlejuice: game length (mean {s['length_mean']:.1f} "
                      "turns)", fontsize=10)
    axes[2].set_ylabel("games")
    axes[2].set_xlabel("turns")
    fig.suptitle(f"Watch Out Beetlejuice: {s['games']} games, {s['players']} players, "
                 f"{','.join(s['policies'])}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str]) -> int:
    """Entry point: ``hauntbox stats beetlejuice ...``; returns an exit code."""
    a = parse_args(argv)
    s = run(a.games, a.seed, a.players, a.policy_list, a.expert,
            progress=not a.quiet and a.games >= 100)
    print(format_report(s))
    if a.png:
        write_png(s, a.png)
        print(f"chart written to {a.png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
