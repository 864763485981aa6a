"""A readable log of a Haunted House game from the firmware's event stream."""
from __future__ import annotations

from typing import Callable

MONSTER = {"medusa": "Medusa", "frank": "Frank", "bob": "Bob"}
REALM = {"ravens": "Ravens x5", "chest": "Chest x3", "gnomes": "Gnomes x2"}


class HauntedLog:
    def __init__(self, colours: list[str], out: Callable[[str], None] = print,
                 clock_s: Callable[[], float] | None = None,
                 scoreboard: Callable[[], str] | None = None, verbose: bool = False) -> None:
        self.colours = colours
        self.out = out
        self.clock_s = clock_s
        self.scoreboard = scoreboard        # text of the LED score panel, printed after each round
        self.verbose = verbose
        self.turn_no = 0
        self.round = 1
        self._board_due = False

    def name(self, p: int) -> str:
        return self.colours[p] if 0 <= p < len(self.colours) else f"player {p}"

    def emit(self, text: str) -> None:
        if self.clock_s is not None:
            self.out(f"[{self.clock_s():8.2f}s] {text}")
        else:
            self.out(text)

    def _board(self, title: str) -> None:
        if self.scoreboard is not None:
            self.out(title)
            self.out(self.scoreboard())

    def __call__(self, ev: tuple) -> None:  # noqa: C901 - one branch per event kind
        k = ev[0]
        n = self.name
        if self._board_due and k in ("place", "over", "prompt"):
            # The LEDs are rewritten right after the round's effects: by the
            # next of these events they show the new scores.
            self._board_due = False
            final = " (final, clues included)" if k == "over" else ""
            self._board(f"Scoreboard after round {self.round - 1}{final}, read from the LEDs:")
        if k == "game":
            self.emit(f"New game of Boxtop Pinball: Haunted House: {ev[2]} players, {n(ev[3])} starts")
        elif k == "resumed":
            self.emit(f"Resumed saved game: {ev[2]} players, {n(ev[3])} to launch")
        elif k == "launched":
            self.turn_no += 1
            extra = " (summoned die)" if ev[2] == "summoned" else ""
            self.emit(f"Round {self.round}, launch {self.turn_no}: {n(ev[1])} launches{extra}")
        elif k == "monster_hit":
            self.emit(f"  HIT {MONSTER.get(ev[2], ev[2])}: credited to {n(ev[1])} "
                      f"({ev[3]} different monster{'s' if ev[3] != 1 else ''} this round)")
        elif k == "monster_moved":
            self.emit(f"    {MONSTER.get(ev[1], ev[1])} moves {ev[2]} -> {ev[3]} ({ev[4]})")
        elif k == "clue_taken":
            self.emit(f"  CLUE at {ev[2]}: taken by {n(ev[1])} (holds {ev[3]}, value secret)")
        elif k == "summoned":
            when = "launches it now" if ev[2] == "now" else "launches it next turn"
            self.emit(f"  {n(ev[1])}'s die is in the Summoning Circle: extra die, {when}")
        elif k == "summon_refused":
            self.emit(f"  {n(ev[1])}'s die is in the Summoning Circle, but the 2 extra dice are used up")
        elif k == "die_lost" and ev[2] == "hole":
            self.emit(f"  a {n(ev[1])} die falls through a hole")
        elif k == "window" and ev[1] == "closed":
            how = {"quiet": "table quiet", "confirm": "CONFIRM pressed", "timeout": "time limit"}[ev[2]]
            self.emit(f"  turn window closed: {how} after {ev[4] / 1000:.1f} s, {ev[3]} sensor event(s)")
        elif k == "ignored" and self.verbose:
            self.emit(f"  (sensor {ev[1]} ignored: nothing to credit there)")
        elif k == "place" and self.verbose:
            self.emit(f"  lit: put pieces on {', '.join(ev[1])}")
        elif k == "place_confirmed":
            self.emit(f"  CONFIRM: {', '.join(ev[1])} taken as in place")
        elif k == "round_end":
            self.emit(f"Round {ev[1]} over: the referee enters the dice")
        elif k == "enter_dice":
            pre = f" ({ev[3]} already lost through holes)" if ev[3] else ""
            self.emit(f"  {n(ev[1])}: {ev[2]} dice to enter{pre}")
        elif k == "die_scored":
            mult = f" x{ev[3]}" if ev[3] != 1 else ""
            self.emit(f"    {n(ev[1])} die {ev[2]}{mult} = {ev[4]}")
        elif k == "die_lost" and ev[2] == "round_end":
            self.emit(f"    {n(ev[1])} die lost")
        elif k == "round_scored":
            self.emit(f"  {n(ev[2])}: dice {ev[3]} + monsters {ev[4]} = {ev[5]} this round")
            self._board_due = True
            self.round = ev[1] + 1
        elif k == "clues_revealed":
            vals = ", ".join(str(v) for v in ev[2]) or "none"
            self.emit(f"  {n(ev[1])} reveals clues: {vals} = {ev[3]}")
        elif k == "final_score":
            self.emit(f"  {n(ev[1])}: {ev[2]} points (final round {ev[3]})")
        elif k == "game_over":
            names = " and ".join(n(p).upper() for p in ev[1])
            self.emit(f"{names} {'WINS' if len(ev[1]) == 1 else 'SHARE THE WIN'}!")
        elif k == "fault":
            self.emit(f"  FAULT {ev[1]}: {' '.join(str(x) for x in ev[2:])}")
        elif k == "manual":
            self.emit(f"  expander down ({', '.join(ev[2])}): the referee adds what it missed")
        elif k == "rejected":
            self.emit(f"  rejected {ev[1]}: {ev[2]}")
