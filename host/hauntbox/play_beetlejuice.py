"""Play Watch Out Beetlejuice in a terminal, against bots or hot-seat.

Usage::

    hauntbox play beetlejuice [--players N] [--humans H] [--policy heuristic|random]
                              [--seed S] [--expert] [--compare] [--names A,B,...]
    python -m hauntbox.play_beetlejuice ...

Humans take the first H seats (``--humans N`` for pure hot-seat, ``--humans 0``
to watch bots). Dice and draws come from a seeded ``Rng``, so a seed replays a
game. Input is plain lines on stdin, so the game can be scripted:

* while rolling: dice numbers to KEEP (``1 3 4``, the rest are rerolled;
  Beetlejuice symbols always stay), ``r`` to reroll every die you may,
  ``s`` or an empty line to stop, ``h`` for the Handbook;
* in menus: the option number (an empty line takes the first option);
* anywhere: ``q`` quits (exit 0, the game is left unfinished).
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Callable

from hauntbox.bots_beetlejuice import load_config, make_bot
from rules.beetlejuice import BJ, BEETLEJUICE, BeetlejuiceGame, auto_chance, reroll_for_keep
from rules.errors import CHANCE, RuleError
from rules.rng import Rng

SHORT = {"roach": "Roach", "ghost": "Ghost", "corpse": "Corpse", "barbara": "Barbara",
         "adam": "Adam", "bj": "BEETLEJUICE"}


class Quit(Exception):
    """The player typed q."""


class InputEnded(Exception):
    """stdin ran dry before the game ended."""


def sym(s: str) -> str:
    return SHORT.get(s, s)


def need_text(game: BeetlejuiceGame, card: str) -> str:
    c = game.cfg.card[card]
    if c["handbook"]:
        return "all six symbols (one die each)"
    alts = []
    for alt in c["need"]:
        alts.append(" + ".join(f"{k}x {game.cfg.names.get(s, s)}" for s, k in alt.items()))
    return " or ".join(alts)


def card_text(game: BeetlejuiceGame, card: str) -> str:
    """One-line description of any card."""
    c = game.cfg.card[card]
    if "skulls" in c:
        e = c["effect"]
        if e == "fewer_rolls":
            what = "one roll fewer"
        elif e == "remove_dice":
            what = f"remove {c.get('n', 1)} {'die' if c.get('n', 1) == 1 else 'dice'}"
        elif e == "replace":
            what = "replace the Residents"
        elif e == "forbid":
            what = "can't use " + ", ".join(sym(s) for s in c["symbols"])
        else:
            what = "4 Beetlejuice symbols needed to banish"
        # No card ids in what people read (they stay in the rules' state).
        return f"[{'*' * c['skulls']} {c['skulls']}-skull] {what}"
    if c["handbook"]:
        return f"Handbook for the Recently Deceased: {need_text(game, card)}"
    return f"{c['points']} pts: {need_text(game, card)}"


def render(game: BeetlejuiceGame, kept: set[int] | None = None) -> str:
    """The table as text: Beetlejuice, Residents, scores, cards, dice."""
    out = []
    name = game.names[game.cur]
    out.append(f"===== Turn {game.turn}: {name} =====")
    if game.bj_up:
        bj = "IN PLAY"
        if game.three:
            bj += " | everyone: " + card_text(game, game.three)
    else:
        bj = "in his grave"
    out.append(f"Beetlejuice {bj} | has scared {len(game.bj_pile)}/{game.target()} "
               f"({game.bj_points()} pts)")
    out.append("Residents:")
    for i, c in enumerate(game.slots):
        out.append(f"  [{i + 1}] " + (card_text(game, c) if c else "(empty)"))
    scores = []
    for p in range(game.n):
        s = f"{game.names[p]} {game.points(p)} pts ({len(game.won[p])}/{game.target()})"
        if game.books[p]:
            s += f" +{len(game.books[p])} Handbook"
        if game.held[p]:
            s += " holds " + "; ".join(card_text(game, c) for c in game.held[p])
        scores.append(s)
    out.append("Scores: " + " | ".join(scores))
    cards = game.affecting()
    if cards:
        out.append("Beetlejuice cards on you:")
        for c in cards:
            tag = " (ignored)" if c == game.ignored else ""
            out.append("  " + card_text(game, c) + tag)
    if game.dice and "" not in game.dice:
        cells = []
        for i, f in enumerate(game.dice):
            mark = "*" if kept and i in kept else " "
            cells.append(f"{i + 1}:{sym(f)}{mark}")
        out.append(f"Dice (roll {game.rolls}/{game.rolls_max()}, "
                   f"{game.dice.count(BJ)}/{game.threshold()} Beetlejuice; * = kept): "
                   + "  ".join(cells))
        forb = game.forbidden()
        if forb:
            out.append("  forbidden for Residents: " + ", ".join(sym(s) for s in forb))
        scare = [s for s in game.feasible_sets() if s]
        if scare:
            best = max(scare, key=lambda s: sum(game.cfg.points(game.slots[i]) for i in s))
            out.append("  you could collect now: "
                       + ", ".join(f"the Resident in slot {i + 1}" for i in best))
    return "\n".join(out)


def effect_text(game: BeetlejuiceGame, e: tuple) -> str | None:
    """Readable line for an engine effect (None for ones not worth printing)."""
    n = game.names
    k = e[0]
    if k == "dealt":
        return f"  Revealed in slot {e[1] + 1}: {card_text(game, e[2])}"
    if k == "bj_card":
        return f"  {n[e[1]]} draws a Beetlejuice card: {card_text(game, e[2])}"
    if k == "bj_discard":
        return f"  discarded: {card_text(game, e[1])}"
    if k == "bj_reshuffle":
        return "  Beetlejuice deck reshuffled from the discards"
    if k == "replace_residents":
        return f"  All Residents replaced ({len(e[1])} go under the House pile)"
    if k == "rolled":
        return "  Rolled: " + "  ".join(f"{i + 1}:{sym(f)}" for i, f in zip(e[1], e[2]))
    if k == "handbook":
        arg = "" if e[3] is None else f" {e[3] + 1 if isinstance(e[3], int) else e[3]}"
        return f"  {n[e[1]]} uses a Handbook: {e[2]}{arg}"
    if k == "took":
        return f"  {n[e[1]]} takes {card_text(game, e[2])}"
    if k == "collected":
        return f"  {n[e[1]]} collects " + "; ".join(card_text(game, c) for c in e[2])
    if k == "bj_trigger":
        return f"  {e[2]} Beetlejuice symbols! {n[e[1]]}'s turn ends with nothing collected."
    if k == "summoned":
        return "  BEETLEJUICE IS SUMMONED! From now on every turn starts with a Beetlejuice card."
    if k == "bj_scares":
        return f"  Beetlejuice scares {card_text(game, e[1])}"
    if k == "banished":
        return "  Beetlejuice is banished to his grave; his cards are discarded."
    if k == "passed":
        return f"  {n[e[1]]} hands {card_text(game, e[2])} to {n[e[3]]}"
    if k == "versus_bj":
        verdict = "outscored" if e[2] > e[3] else "did not outscore"
        return f"  {n[e[1]]} ({e[2]} pts) {verdict} Beetlejuice ({e[3]} pts)"
    if k == "game_over":
        if e[1] == "bj":
            return "GAME OVER: Beetlejuice has scared enough Residents. Everyone loses!"
        return "GAME OVER: " + " and ".join(n[w] for w in e[2]) + " win" + (
            "s" if len(e[2]) == 1 else "") + f" ({game.points(e[2][0])} pts)"
    return None


def action_text(game: BeetlejuiceGame, a: tuple) -> str:
    if a[0] == "reroll":
        return "rerolls dice " + " ".join(str(i + 1) for i in a[1])
    if a[0] == "collect":
        return "collects " + ("; ".join(card_text(game, game.slots[i]) for i in a[1]) or "nothing")
    if a[0] == "pass":
        return f"hands {card_text(game, a[1])} to {game.names[a[2]]}"
    if a[0] == "handbook":
        return "uses a Handbook: " + " ".join(str(x) for x in a[1:])
    return {"stop": "stops", "begin": "starts rolling"}.get(a[0], a[0])


class Terminal:
    """Prompts a human through one decision; `ask` and `say` are injectable."""

    def __init__(self, ask: Callable[[str], str], say: Callable[[str], None]):
        self.ask = ask
        self.say = say

    def line(self, prompt: str) -> str:
        try:
            ans = self.ask(prompt).strip()
        except EOFError:
            raise InputEnded() from None
        if ans.lower() in ("q", "quit", "exit"):
            raise Quit()
        return ans

    def menu(self, title: str, options: list[tuple[str, tuple]]) -> tuple:
        self.say(title)
        for i, (label, _) in enumerate(options):
            self.say(f"  {i + 1}) {label}")
        self.say("  (Enter = option 1, q = quit)")
        while True:
            ans = self.line("choice> ")
            if not ans:
                return options[0][1]
            if ans.isdigit() and 1 <= int(ans) <= len(options):
                return options[int(ans) - 1][1]
            self.say(f"Please enter 1..{len(options)}, or q to quit.")

    def handbook_menu(self, game: BeetlejuiceGame, extra: list) -> tuple:
        opts = extra[:]
        for a in game.legal_actions():
            if a[0] != "handbook":
                continue
            if a[1] == "take":
                label = "collect " + card_text(game, game.slots[a[2]])
            elif a[1] == "ignore":
                label = "ignore " + card_text(game, a[2])
            else:
                label = {"rolls4": "roll up to 4 times this turn",
                         "summon": "summon Beetlejuice", "banish": "banish Beetlejuice",
                         "reroll_bj": "reroll one Beetlejuice symbol"}[a[1]]
            opts.append((label, a))
        return self.menu("Handbook for the Recently Deceased (one use, then it is discarded):",
                         opts)

    def decide(self, game: BeetlejuiceGame, kept: set[int]) -> tuple:
        legal = game.legal_actions()
        has_book = any(a[0] == "handbook" for a in legal)
        can_roll = any(a[0] == "reroll" for a in legal)
        self.say(render(game, kept))
        while True:
            hint = "dice to KEEP (e.g. 1 3 4), r = reroll all, " if can_roll else ""
            hint += "s/empty = stop" + (", h = Handbook" if has_book else "") + ", q = quit"
            ans = self.line(f"[{hint}]> ").lower()
            if ans in ("", "s", "stop"):
                return ("stop",)
            if ans == "h" and has_book:
                a = self.handbook_menu(game, [("back", ("back",))])
                if a != ("back",):
                    return a
                continue
            if not can_roll:
                self.say("No reroll is possible now.")
                continue
            if ans in ("r", "reroll"):
                keep: list[int] = []
            else:
                words = ans.replace(",", " ").split()
                if words and words[0] in ("k", "keep"):
                    words = words[1:]
                if not all(w.isdigit() and 1 <= int(w) <= len(game.dice) for w in words):
                    self.say("Type die numbers, r, s, h or q.")
                    continue
                keep = [int(w) - 1 for w in words]
            roll = reroll_for_keep(game, keep)
            if roll is None:
                self.say("No reroll is possible now.")
                continue
            forced = [i for i in roll if i in keep]
            if forced:
                self.say("A reroll needs at least two dice: die "
                         + ", ".join(str(i + 1) for i in forced) + " goes back in too.")
            return ("reroll", roll)

    def choose(self, game: BeetlejuiceGame, kept: set[int]) -> tuple:
        ph = game.phase
        if ph == "decide":
            return self.decide(game, kept)
        self.say(render(game, kept))
        if ph == "prep":
            return self.handbook_menu(game, [("start rolling (keep the Handbook)", ("begin",))])
        if ph == "collect":
            opts = []
            sets = sorted((a for a in game.legal_actions()),
                          key=lambda a: -sum(game.cfg.points(game.slots[i]) for i in a[1]))
            for a in sets:
                label = ", ".join(card_text(game, game.slots[i]) for i in a[1]) or "nothing"
                opts.append((label, a))
            return self.menu("Collect which scared cards?", opts)
        if ph == "pass":
            opts = [(f"hand {card_text(game, a[1])} to {game.names[a[2]]}", a)
                    for a in game.legal_actions()]
            return self.menu("Hand a 2-skull card to another player"
                             " (any other one you hold is discarded):", opts)
        return game.legal_actions()[0]


PROG = "hauntbox play beetlejuice"


def parse_args(argv: list[str]) -> argparse.Namespace:
    from hauntbox.cli_style import Parser, policies, renamed

    ap = Parser(prog=PROG, description="Play Watch Out Beetlejuice in the terminal. "
                "Keys: die numbers to keep, r reroll, s stop, h Handbook, q quit.")
    ap.add_argument("--players", type=int, default=2,
                    help="seats in total, humans and bots (1..6, default 2)")
    ap.add_argument("--humans", type=int, default=1,
                    help="seats played at the keyboard, taken first (default 1; = players "
                         "for hot-seat, 0 to watch bots)")
    ap.add_argument("--policy", action="append", metavar="P[,P...]",
                    help="the bots' policy, heuristic or random; a comma list gives one per "
                         "bot seat, cycling (default heuristic)")
    ap.add_argument("--seed", type=int, default=None, help="seed (default: from the clock)")
    ap.add_argument("--expert", action="store_true", help="play to 8 Residents")
    ap.add_argument("--compare", action="store_true",
                    help="compare every score with Beetlejuice's at the end")
    ap.add_argument("--names", default=None, help="comma-separated seat names")
    a = ap.parse_args(renamed(argv, {"--bot": "--policy"}, PROG))
    a.policy = policies(a.policy) or ["heuristic"]
    bad = [x for x in a.policy if x not in ("heuristic", "random")]
    if bad:
        ap.error(f"--policy {bad[0]}: choose heuristic or random")
    if not 1 <= a.players <= 6:
        ap.error("--players must be 1..6")
    if not 0 <= a.humans <= a.players:
        ap.error("--humans must be 0..players")
    return a


def main(argv: list[str], ask: Callable[[str], str] = input,
         say: Callable[[str], None] = print) -> int:
    """Run one game; 0 when it ends, 1 when input runs out first."""
    a = parse_args(argv)
    seed = a.seed if a.seed is not None else int(time.time() * 1000) & 0x7FFFFFFF
    if a.names:
        names = [s.strip() for s in a.names.split(",")][:a.players]
    else:
        names = []
    for i in range(len(names), a.players):
        names.append(f"Player {i + 1}" if i < a.humans else f"Bot {i + 1}")
    rng = Rng(seed)
    game = BeetlejuiceGame(load_config(), names, None,
                           {"expert": a.expert, "compare_bj": a.compare})
    pol = {i: a.policy[(i - a.humans) % len(a.policy)] for i in range(a.humans, a.players)}
    bots = {i: make_bot(pol[i], Rng(seed + 7 * (i + 1))) for i in range(a.humans, a.players)}
    term = Terminal(ask, say)
    say(f"Watch Out Beetlejuice (seed {seed}): " + ", ".join(
        f"{n} ({'human' if i < a.humans else pol[i] + ' bot'})" for i, n in enumerate(names)))
    if a.humans:
        say("(q quits at any prompt)")
    kept: set[int] = set()
    try:
        while not game.is_over():
            who = game.to_act
            if who == CHANCE:
                action = auto_chance(game, rng)
            elif who in bots:
                action = bots[who].choose(game)
                if action[0] in ("reroll", "stop", "handbook", "begin"):
                    say(f"{names[who]} {action_text(game, action)}")
            else:
                action = term.choose(game, kept)
            try:
                effects = game.apply(action)
            except RuleError as err:  # a human menu only offers legal moves; be safe
                say(f"Not allowed: {err}")
                continue
            for e in effects:
                if e[0] == "turn":
                    say("")
                    say(f"--- Turn {e[2]}: {names[e[1]]} ---")
                    kept = set()
                elif e[0] == "rolled":
                    kept = set(range(len(game.dice))) - set(e[1]) if game.dice else set()
                text = effect_text(game, e)
                if text:
                    say(text)
    except InputEnded:
        say("(input ended before the game did)")
        return 1
    except Quit:
        say("Goodbye: the game is left unfinished.")
        return 0
    pts = ", ".join(f"{names[p]} {game.points(p)}" for p in range(game.n))
    say(f"Final scores: {pts}; Beetlejuice {game.bj_points()} "
        f"({len(game.bj_pile)} Residents)")
    if game.winner == BEETLEJUICE:
        say("Beetlejuice wins.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
