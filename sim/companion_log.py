"""Readable logs of the dice companion games, from the firmware's event stream."""
from __future__ import annotations

from typing import Any, Callable

from hauntbox.names import beetlejuice_card, winners

SHORT = {"roach": "roach", "ghost": "ghost", "corpse": "corpse", "barbara": "Barbara",
         "adam": "Adam", "bj": "BJ"}


class _Log:
    def __init__(self, colours: list[str], out: Callable[[str], None] = print,
                 clock_s: Callable[[], float] | None = None) -> None:
        self.colours = colours
        self.out = out
        self.clock_s = clock_s

    def name(self, p: Any) -> str:
        if isinstance(p, int) and 0 <= p < len(self.colours):
            return self.colours[p]
        return f"player {p}"

    def emit(self, text: str) -> None:
        if self.clock_s is not None:
            self.out(f"[{self.clock_s():8.2f}s] {text}")
        else:
            self.out(text)


class BeetlejuiceLog(_Log):
    def __init__(self, colours: list[str], cfg: Any, out: Callable[[str], None] = print,
                 clock_s: Callable[[], float] | None = None) -> None:
        super().__init__(colours, out, clock_s)
        self.cfg = cfg
        self.rolls = 0

    def card(self, cid: str) -> str:
        # In words, without the card's id (the id stays in the event's JSON).
        return beetlejuice_card(self.cfg.card.get(cid), cid, SHORT)

    def __call__(self, ev: tuple) -> None:
        k = ev[0]
        n = self.name
        if k == "game":
            self.emit(f"New game of Watch Out Beetlejuice: {ev[2]} players, {n(ev[3])} starts")
        elif k == "resumed":
            self.emit(f"Resumed saved game: {ev[2]} players, {n(ev[3])} to play")
        elif k == "dealt":
            self.emit(f"  face up in slot {ev[1] + 1}: {self.card(ev[2])}")
        elif k == "turn":
            self.rolls = 0
            self.emit(f"Turn {ev[2]}: {n(ev[1])}")
        elif k == "bj_card":
            self.emit(f"  {n(ev[1])} draws {self.card(ev[2])}")
        elif k == "replace_residents":
            self.emit(f"  the Residents are replaced ({len(ev[1])} go under the pile)")
        elif k == "rolled":
            what = "rerolls" if self.rolls else "rolls"
            self.rolls += 1
            faces = " ".join(SHORT.get(f, f) for f in ev[2])
            self.emit(f"  {what} dice {','.join(str(i + 1) for i in ev[1])}: {faces}")
        elif k == "forced":
            self.emit(f"  a reroll needs two dice: kept dice {','.join(str(i + 1) for i in ev[2])} go back in")
        elif k == "handbook":
            arg = "" if ev[3] is None else f" {ev[3]}"
            self.emit(f"  {n(ev[1])} uses a Handbook: {ev[2]}{arg}")
        elif k == "took":
            self.emit(f"  {n(ev[1])} takes {self.card(ev[2])}")
        elif k == "collected":
            self.emit(f"  {n(ev[1])} scares {', '.join(self.card(c) for c in ev[2])}")
        elif k == "bj_trigger":
            self.emit(f"  {ev[2]} Beetlejuice symbols!")
        elif k == "summoned":
            self.emit("  BEETLEJUICE rises from his grave")
        elif k == "bj_scares":
            self.emit(f"  Beetlejuice scares {self.card(ev[1])}")
        elif k == "banished":
            self.emit("  Beetlejuice is banished back to his grave")
        elif k == "passed":
            self.emit(f"  {n(ev[1])} hands {self.card(ev[2])} to {n(ev[3])}")
        elif k == "game_over":
            if ev[1] == "bj":
                self.emit("BEETLEJUICE scared five Residents: he wins, everyone loses!")
            else:
                self.emit("Game over: " + winners([n(p) for p in ev[2]]))
        elif k == "versus_bj":
            self.emit(f"  {n(ev[1])}: {ev[2]} points against Beetlejuice's {ev[3]}")
        elif k == "fault":
            self.emit(f"  FAULT {ev[1]}: {ev[2]}")
        elif k == "rejected":
            self.emit(f"  rejected {ev[1]}: {ev[2]}")


class SuperSkillLog(_Log):
    def __init__(self, colours: list[str], out: Callable[[str], None] = print,
                 clock_s: Callable[[], float] | None = None) -> None:
        super().__init__(colours, out, clock_s)
        self.rolls = 0

    def __call__(self, ev: tuple) -> None:
        k = ev[0]
        n = self.name
        if k == "game":
            self.emit(f"New game of Star Trek: Super-Skill Pinball: {ev[2]} players")
        elif k == "resumed":
            self.emit(f"Resumed saved game: {ev[2]} players, after roll {ev[3]}")
        elif k == "roll":
            self.rolls += 1
            self.emit(f"Roll {self.rolls}: {ev[1]} and {ev[2]}")
        elif k == "nudge":
            self.emit(f"  {n(ev[1])} nudges (amount {ev[2]}): tilt warning on")
        elif k == "tilt":
            self.emit(f"  {n(ev[1])} TILTS: difference {ev[3]} is below the Nudge amount {ev[2]}")
        elif k == "nudge_clear":
            self.emit(f"  {n(ev[1])} is safe: difference {ev[3]} >= Nudge amount {ev[2]}")
        elif k == "round_end":
            self.emit(f"  {n(ev[1])} ends round {ev[2]}")
        elif k == "player_over":
            self.emit(f"  {n(ev[1])} has finished the third round")
        elif k == "result":
            self.emit("The players enter the winner: " + (n(ev[1]) if ev[1] is not None else "a tie"))
        elif k == "game_over":
            w = list(ev[1]) if ev[1] else []
            self.emit("Game over: " + (winners([n(p) for p in w]) if w else "shared"))
        elif k == "fault":
            self.emit(f"  FAULT {ev[1]}: {ev[2]}")
        elif k == "rejected":
            self.emit(f"  rejected {ev[1]}: {ev[2]}")
