"""``hauntbox stats superskill``: score distributions from many bot games.

    hauntbox stats superskill --table starfleet-academy --games 2000 --seed 1 \\
        --policy lookahead --png superskill.png
    hauntbox stats superskill --table tribbles|lower-decks|borg-attack --games 1000
    hauntbox stats superskill --games 500 --policy greedy,lookahead   # head-to-head

``main(argv)`` takes the arguments after ``stats superskill``. Every game is
played to the end by the chosen policy (rolls from ``Rng(seed + i)``), checked
(finished, three rounds, scores consistent) and summarised: star distribution,
rolls per game, how balls were lost, bonuses taken, achievements reached.
Progress goes to stderr; the report to stdout.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter

from hauntbox import bots_superskill as bots


def parse_args(argv: list[str]) -> argparse.Namespace:
    from hauntbox.cli_style import Parser

    p = Parser(prog="hauntbox stats superskill",
               description="Star Trek: Super-Skill Pinball bot statistics")
    p.add_argument("--table", default="starfleet-academy",
                   help="starfleet-academy, tribbles, lower-decks, borg-attack or a data file")
    p.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    p.add_argument("--seed", type=int, default=1, help="first seed (game i uses seed + i)")
    p.add_argument("--png", default=None, help="write a histogram PNG here")
    p.add_argument("--policy", default="greedy",
                   help="greedy, lookahead or random; a comma list gives one per seat "
                        "(e.g. greedy,lookahead) for a head-to-head")
    p.add_argument("--players", type=int, default=None,
                   help="bot players per game (1-4; default: one per listed policy)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    a = p.parse_args(argv)
    if a.games < 1:
        p.error("--games must be at least 1")
    a.policies = [x.strip() for x in a.policy.split(",") if x.strip()]
    for x in a.policies:
        if x not in ("greedy", "lookahead", "random"):
            p.error(f"--policy {x}: choose greedy, lookahead or random")
    if a.players is None:
        a.players = len(a.policies)
    if not 1 <= a.players <= 4 or len(a.policies) > a.players:
        p.error("--players must be 1..4 and at least the number of policies")
    return a


def run(table: str, games: int, seed: int, policy: str | list[str], players: int = 1,
        progress: bool = False) -> dict:
    """Play the games; return the collected numbers (used by main and tests).

    ``policy`` is one name or a list; seat k plays ``policies[k % len(policies)]``.
    """
    cfg = bots.load_table(table)
    policies = [policy] if isinstance(policy, str) else list(policy)
    seats = [policies[k % len(policies)] for k in range(players)]
    seat_scores: list[list[int]] = [[] for _ in range(players)]
    seat_wins = [0.0] * players
    scores: list[int] = []
    winners: list[int] = []
    rolls: list[int] = []
    lost: Counter = Counter()
    bonuses: Counter = Counter()
    sets: Counter = Counter()
    ach: Counter = Counter()
    t0 = time.time()
    step = max(1, games // 20)

    def on_effects(g, action, eff):
        for e in eff:
            if e[0] == "ball_lost":
                lost[e[3]] += 1
            elif e[0] == "bonus":
                bonuses[f"{e[2]}.{e[3]}"] += 1
            elif e[0] == "set_complete":
                sets[e[2]] += 1

    for i in range(games):
        s = seed + i
        pols = [bots.make_policy(seats[k], s * 7 + k) for k in range(players)]
        g = bots.play_game(cfg, pols, s, on_effects=on_effects)
        check_finished(g)
        w = g.winners()
        for k in w:
            seat_wins[k] += 1.0 / len(w)
        for k, ps in enumerate(g.players):
            seat_scores[k].append(ps.stars)
            scores.append(ps.stars)
            for a in achievements_of(g.table.id, ps.x):
                ach[a] += 1
        winners.append(max(ps.stars for ps in g.players))
        rolls.append(g.roll_no)
        if progress and ((i + 1) % step == 0 or i + 1 == games):
            el = time.time() - t0
            print(f"\r{i + 1}/{games} games  {el:.1f}s", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    n_players = games * players
    return {
        "table": cfg["id"], "policy": ",".join(policies), "games": games, "players": players,
        "seats": seats, "seat_scores": seat_scores, "seat_wins": seat_wins,
        "seed": seed, "scores": scores, "winning": winners, "rolls": rolls,
        "lost": {k: v / n_players for k, v in sorted(lost.items())},
        "bonuses": {k: v / n_players for k, v in sorted(bonuses.items())},
        "sets": {k: v / n_players for k, v in sorted(sets.items())},
        "achievements": {k: v / n_players for k, v in sorted(ach.items())},
        "names": names_of(cfg),
        "seconds": time.time() - t0,
    }


def names_of(cfg: dict) -> dict:
    """The table's own names for the codes in the report (the codes stay in the data)."""
    bonuses = {f"{m['id']}.{o['id']}": f"{m['name']}: {o['name']}"
               for m in cfg.get("menus", []) for o in m.get("options", [])}
    return {"table": cfg.get("name", cfg.get("id")), "bonuses": bonuses,
            "sets": {s["id"]: s["name"] for s in cfg.get("sets", [])},
            "achievements": {a["id"]: a["name"] for a in cfg.get("achievements", [])},
            "lost": {"drain": "drained", "outlane": "down an outlane", "tilt": "tilted"}}


def _named(st: dict, kind: str, fmt: str) -> str:
    names = st.get("names", {}).get(kind, {})
    return ", ".join(f"{names.get(k, k)} {fmt.format(v)}" for k, v in st[kind].items())


def check_finished(g) -> None:
    """A finished game must be consistent: every player done after the last round."""
    if not g.is_over():
        raise AssertionError("game not over")
    for ps in g.players:
        if not ps.done or ps.round != g.table.rounds or ps.stars < 0 or ps.fin < 1:
            raise AssertionError(f"bad final player state {ps.to_dict()}")
    best = max(ps.stars for ps in g.players)
    if not g.winners() or any(g.players[p].stars != best for p in g.winners()):
        raise AssertionError("winner is not the top score")


def achievements_of(table_id: str, x: dict) -> list[str]:
    """Achievement ids reached, from the table hooks' per-player counters."""
    from rules.superskill import borg_attack, lower_decks, tribbles
    mods = {"tribbles": tribbles, "lower-decks": lower_decks, "borg-attack": borg_attack}
    if table_id in mods:
        return mods[table_id].achievements(x)
    if table_id == "starfleet-academy":
        out = []
        if x.get("km", 0) >= 1:
            out.append("km")
        if x.get("km_mb", 0) >= 1:
            out.append("km_multiball")
        if x.get("best", 0) >= 12:
            out.append("bumper_streak")
        if x.get("km", 0) >= 2:
            out.append("km_twice")
        return out
    return []


def percentile(xs: list[int], q: float) -> float:
    s = sorted(xs)
    if not s:
        return 0.0
    k = (len(s) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def format_report(st: dict) -> str:
    sc = st["scores"]
    lines = [
        f"Star Trek: Super-Skill Pinball - {st.get('names', {}).get('table', st['table'])} - "
        f"policy {st['policy']}, "
        f"{st['games']} games x {st['players']} player(s), seeds {st['seed']}.."
        f"{st['seed'] + st['games'] - 1}",
        f"stars: mean {statistics.mean(sc):.1f}  median {statistics.median(sc):.1f}  "
        f"sd {statistics.pstdev(sc):.1f}  min {min(sc)}  max {max(sc)}",
        f"percentiles: p10 {percentile(sc, .1):.0f}  p25 {percentile(sc, .25):.0f}  "
        f"p75 {percentile(sc, .75):.0f}  p90 {percentile(sc, .9):.0f}",
        f"rolls per game: mean {statistics.mean(st['rolls']):.1f}  max {max(st['rolls'])}",
    ]
    if st["players"] > 1:
        lines.append(f"winning score: mean {statistics.mean(st['winning']):.1f}")
        for k, pol in enumerate(st["seats"]):
            lines.append(f"  seat {k + 1} ({pol}): mean {statistics.mean(st['seat_scores'][k]):.1f}"
                         f"  wins {st['seat_wins'][k] / st['games']:.1%} (ties shared)")
    lines.append("balls lost per player-game: " + _named(st, "lost", "{:.2f}"))
    lines.append("sets completed per player-game: " + _named(st, "sets", "{:.2f}"))
    lines.append("bonuses per player-game: " + _named(st, "bonuses", "{:.2f}"))
    if st["achievements"]:
        lines.append("achievement rate: " + _named(st, "achievements", "{:.1%}"))
    lines.append(histogram_text(sc))
    lines.append(f"time: {st['seconds']:.1f}s")
    return "\n".join(lines)


def histogram_text(sc: list[int], width: int = 40, bin_size: int = 10) -> str:
    c = Counter(s // bin_size for s in sc)
    top = max(c.values())
    out = ["score histogram:"]
    for b in range(min(c), max(c) + 1):
        n = c.get(b, 0)
        bar = "#" * max(1 if n else 0, round(width * n / top))
        out.append(f"  {b * bin_size:4d}-{b * bin_size + bin_size - 1:<4d} {n:6d} {bar}")
    return "\n".join(out)


def write_png(st: dict, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sc = st["scores"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    bins = range(0, max(sc) + 6, 5)
    counts, _, bars = ax.hist(sc, bins=bins, color="#3060c0", edgecolor="white")
    # The count on every bar that has games, so a bar of one game is seen and read.
    ax.bar_label(bars, labels=[f"{int(c)}" if c else "" for c in counts], fontsize=7,
                 padding=1)
    ax.axvline(statistics.mean(sc), color="#c03030", linestyle="--",
               label=f"mean {statistics.mean(sc):.1f}")
    ax.set_xlabel("stars at game end")
    ax.set_ylabel("games")
    table = st.get("names", {}).get("table", st["table"])
    ax.set_title(f"Star Trek: Super-Skill Pinball: {table} ({st['policy']}, {st['games']} games)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str]) -> int:
    """Entry point for ``hauntbox stats superskill ...``; returns an exit code."""
    a = parse_args(argv)
    try:
        st = run(a.table, a.games, a.seed, a.policies, a.players, progress=not a.quiet)
    except ValueError as e:
        print(f"hauntbox stats superskill: {e}", file=sys.stderr)
        return 2
    print(format_report(st))
    if a.png:
        write_png(st, a.png)
        print(f"histogram written to {a.png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
