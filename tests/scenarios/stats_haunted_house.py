# Long random-playout check and statistics for the Haunted House rules.
#   PYTHONPATH=firmware:.:host:tests python -m scenarios.stats_haunted_house [games] [first_seed]
# Plays seeded random games through legal actions only, checks that each ends
# after the configured rounds with final = rounds + clues and a winner set that
# follows the tie rules, and prints a summary. MicroPython-compatible.

import json
import sys

from scenarios.verbs_haunted_house import random_game


def check(cfg, games, first_seed=1):
    stats = {"games": 0, "steps": 0, "max_steps": 0, "shared": 0, "tiebreak": 0,
             "refused": 0, "summoned": 0, "points": 0, "clue_points": 0, "players": 0}
    for seed in range(first_seed, first_seed + games):
        players = 1 + seed % 4
        g, t = random_game(cfg, seed, players)
        steps = 0
        for line in t:
            if line[:2] == "> ":
                steps += 1
            elif line[:14] == "summon_refused":
                stats["refused"] += 1
            elif line[:9] == "summoned ":
                stats["summoned"] += 1
        finals = g.final_scores()
        if not g.is_over() or len(g.rounds) != cfg["rounds"]:
            raise AssertionError("seed %d: game did not end properly" % seed)
        for p in range(g.n):
            if finals[p] != sum(g.round_totals(p)) + g.clue_total(p):
                raise AssertionError("seed %d: final score mismatch" % seed)
        best = max(finals)
        top = [p for p in range(g.n) if finals[p] == best]
        if not g.winners or [w for w in g.winners if w not in top]:
            raise AssertionError("seed %d: bad winners %r" % (seed, g.winners))
        if len(top) > 1:
            stats["tiebreak"] += 1
        if len(g.winners) > 1:
            stats["shared"] += 1
        stats["games"] += 1
        stats["steps"] += steps
        stats["players"] += g.n
        if steps > stats["max_steps"]:
            stats["max_steps"] = steps
        stats["points"] += sum(finals)
        stats["clue_points"] += sum([g.clue_total(p) for p in range(g.n)])
    return stats


def main(argv):
    games = int(argv[1]) if len(argv) > 1 else 2000
    first = int(argv[2]) if len(argv) > 2 else 1
    f = open("firmware/data/haunted-house.json")
    cfg = json.loads(f.read())
    f.close()
    s = check(cfg, games, first)
    n = s["games"]
    print("games %d  (seeds %d..%d), all ended correctly" % (n, first, first + n - 1))
    print("actions per game: mean %.1f, max %d" % (s["steps"] / n, s["max_steps"]))
    print("final points per player: mean %.1f (clues %.1f)" % (
        s["points"] / s["players"], s["clue_points"] / s["players"]))
    print("games with a tie on total: %d, shared wins: %d" % (s["tiebreak"], s["shared"]))
    print("summoned dice %d, refused summons %d" % (s["summoned"], s["refused"]))


if __name__ == "__main__":
    main(sys.argv)
