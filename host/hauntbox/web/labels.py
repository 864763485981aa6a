"""Words for the page: the prompt's title and buttons, and a few figures per game.

Roller Ghoster's prompts and options are said as the console says them
(``hauntbox.monitor``); the other games' options get words here. ``summary``
adds what the state does not spell out but the rules compute (Beetlejuice
points, through the firmware's own rules module), so the page never redoes a
rule in JavaScript.
"""

from __future__ import annotations

from typing import Any

from hauntbox.monitor import describe_option, describe_prompt, player_name

COMPANION_TITLES = {
    "keep": "{who}: keep dice (the unkept ones are rolled again) or stop",
    "report": "{who}: what happened on the table?",
    "result": "the game is over: who won?",
    "launch": "{who} to launch a die (press when it is on its way)",
    "launch_press": "{who}: press, then flick the die",
    "flight": "{who}'s die is rolling: confirm when it has stopped",
    "place": "set up the table (monsters and clues as shown), then confirm",
    "face": "round-end entry, {who}: the face of one of your dice",
    "realm": "round-end entry, {who}: the realm that die lies in",
    "circle_owner": "whose die is in the Summoning Circle?",
    "hole_owner": "whose die fell through the hole?",
    "enter": "round-end entry, {who}",
    "manual": "{who}: what did the die do?",
    "owner": "whose die was it?",
}


def prompt_title(game: str | None, kind: Any, player: Any, colours: list[str]) -> str:
    if game != "roller-ghoster" and kind in COMPANION_TITLES:
        return COMPANION_TITLES[kind].format(who=player_name(player, colours))
    return describe_prompt(kind, player, colours)


def option_label(game: str | None, option: Any, colours: list[str]) -> str:
    if game == "roller-ghoster" or not isinstance(option, (list, tuple)) or not option:
        return describe_option(option, colours)
    o = list(option)
    name = o[0]
    if name == "reroll" and len(o) > 1 and isinstance(o[1], list):
        dice = ", ".join(str(i + 1) for i in o[1] if isinstance(i, int))
        return f"roll dice {dice} again" if dice else "roll again"
    if name == "stop" and len(o) == 1:
        return "stop and score"
    if name == "next" and len(o) == 1:
        return "next roll"
    if name == "round_over" and len(o) > 1:
        return f"{player_name(o[1], colours)}'s ball drained: round over"
    if name == "nudge" and len(o) > 2:
        return f"{player_name(o[1], colours)} nudged {o[2]}"
    if name == "winner" and len(o) > 1:
        return f"{player_name(o[1], colours)} won"
    if name == "tie" and len(o) == 1:
        return "a tie"
    if name == "launched" and len(o) == 1:
        return "launched"
    if name == "add" and len(o) == 1:
        return "add what the sensors missed"
    if name == "face" and len(o) > 1:
        return f"face {o[1]}"
    if name == "lost" and len(o) == 1:
        return "lost (off the table)"
    if name == "realm" and len(o) > 2:
        return "no realm (x1)" if o[1] == "none" else f"{o[1]} (x{o[2]})"
    if name == "owner" and len(o) > 1:
        return f"{player_name(o[1], colours)}'s die" if o[1] is not None else "nobody's"
    return describe_option(option, colours)


def summary(game: str | None, state: Any) -> dict | None:
    """Figures the rules compute from the state, for the page (None if there are none)."""
    if game != "beetlejuice" or not isinstance(state, dict):
        return None
    try:
        from hauntbox.console import _repo_paths

        _repo_paths()
        from rules.beetlejuice import BeetlejuiceGame
        from rules.beetlejuice_cards import Config

        g = BeetlejuiceGame.from_dict(_bj_config(Config), state.get("game"))
        return {"points": [g.points(p) for p in range(g.n)], "bj_points": g.bj_points()}
    except Exception:  # noqa: BLE001 - the page then shows the cards without points
        return None


_BJ: list[Any] = []


def _bj_config(config: Any) -> Any:
    # The card data, loaded once as the firmware loads it (games/beetlejuice.py create).
    if not _BJ:
        import json

        from hauntbox_fw.build import FIRMWARE_DIR

        with open(f"{FIRMWARE_DIR}/data/beetlejuice.json") as f:
            _BJ.append(config(json.load(f)))
    return _BJ[0]


def _events() -> dict[str, dict[str, Any]]:
    # kind -> text(d, name) per game; d is the event's data list, name(p) a seat's colour.
    bj = {
        "game": lambda d, n: f"new game of Watch Out Beetlejuice: {d[1]} players, {n(d[2])} starts",
        "turn": lambda d, n: f"turn {d[1]}: {n(d[0])}",
        "rolled": lambda d, n: "  dice " + ", ".join(f"{i + 1} {f}" for i, f in zip(d[0], d[1])),
        "dealt": lambda d, n: f"  face up in slot {d[0] + 1}: {d[1]}",
        "bj_card": lambda d, n: f"  {n(d[0])} draws Beetlejuice card {d[1]}",
        "took": lambda d, n: f"  {n(d[0])} takes {d[1]}",
        "collected": lambda d, n: f"  {n(d[0])} scares {', '.join(map(str, d[1]))}",
        "bj_trigger": lambda d, n: f"  {d[1]} Beetlejuice symbols!",
        "summoned": lambda d, n: "  BEETLEJUICE rises from his grave",
        "bj_scares": lambda d, n: f"  Beetlejuice scares {d[0]}",
        "banished": lambda d, n: "  Beetlejuice is banished back to his grave",
        "game_over": lambda d, n: ("BEETLEJUICE wins, everyone loses!" if d[0] == "bj" else
                                   "game over: " + " and ".join(n(p) for p in d[1]) + " win"),
    }
    ss = {
        "game": lambda d, n: f"new game of Super-Skill Pinball: {d[1]} players",
        "turn": lambda d, n: f"roll {d[0] + 1} next",
        "roll": lambda d, n: f"the dice show {d[0]} and {d[1]}",
        "nudge": lambda d, n: f"  {n(d[0])} nudges (amount {d[1]}): tilt warning on",
        "tilt": lambda d, n: f"  {n(d[0])} TILTS: difference {d[2]} is below the nudge {d[1]}",
        "nudge_clear": lambda d, n: f"  {n(d[0])} is safe: difference {d[2]} >= nudge {d[1]}",
        "round_end": lambda d, n: f"  {n(d[0])} ends round {d[1]}",
        "player_over": lambda d, n: f"  {n(d[0])} has finished the last round",
        "game_over": lambda d, n: "game over: " + (" and ".join(n(p) for p in d[0]) or "shared"),
        "round_start": lambda d, n: f"  {n(d[0])} starts round {d[1]}",
    }
    hh = {
        "game": lambda d, n: f"new game of Haunted House: {d[1]} players, {n(d[2])} starts",
        "turn": lambda d, n: f"{n(d[0])}'s turn",
        "launched": lambda d, n: f"{n(d[0])} launches" + (" a summoned die" if d[1] == "summoned" else ""),
        "monster_hit": lambda d, n: f"  HIT {d[1]}: credited to {n(d[0])}",
        "monster_moved": lambda d, n: f"    {d[0]} moves {d[1]} -> {d[2]}",
        "clue_taken": lambda d, n: f"  CLUE at {d[1]} taken by {n(d[0])}",
        "summoned": lambda d, n: f"  {n(d[0])}'s die is in the Summoning Circle: an extra die",
        "window": lambda d, n: (f"  turn over ({d[1]}, {d[2]} sensor event(s))" if d[0] == "closed"
                                else None),
        "place": lambda d, n: None,          # the LEDs light where the pieces go
        "placed": lambda d, n: None,         # ... and the board sees each one put there
        "seen": lambda d, n: None,           # a sensor edge; what it meant follows
        "clear_spot": lambda d, n: None,
        "place_confirmed": lambda d, n: "  the table is set up",
        "round_end": lambda d, n: f"round {d[0]} over: enter the dice",
        "enter_dice": lambda d, n: f"  {n(d[0])}: {d[1]} dice to enter" + (
            f" ({d[2]} already lost through holes)" if d[2] else ""),
        "dice_to_enter": lambda d, n: None,
        "die_scored": lambda d, n: f"    {n(d[0])} die {d[1]} = {d[3]}",
        "round_scored": lambda d, n: f"  {n(d[1])}: dice {d[2]} + monsters {d[3]} = {d[4]}",
        "final_score": lambda d, n: f"  {n(d[0])}: {d[1]} points",
        "game_over": lambda d, n: " and ".join(n(p) for p in d[0]).upper() + " WINS!",
    }
    common = {"rejected": lambda d, n: f"  rejected {d[0]}: {d[1]}"}
    return {"beetlejuice": {**bj, **common}, "superskill": {**ss, **common},
            "haunted-house": {**hh, **common}}


_EVENTS = _events()


def event_text(game: str | None, msg: dict, colours: list[str]) -> str | None:
    """One event in words: the console's words for Roller Ghoster and the device
    events, this module's for the other games' rule effects (None: not worth a line)."""
    from hauntbox.monitor import format_event

    kind = msg.get("ev")
    table = _EVENTS.get(game or "", {})
    if kind in table:
        d = msg.get("data") if isinstance(msg.get("data"), list) else []
        try:
            return table[kind](d, lambda p: player_name(p, colours))
        except Exception:  # noqa: BLE001 - a malformed event is shown raw
            pass
    return format_event(msg, colours)
