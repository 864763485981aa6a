# Small drivers shared by the Haunted House tests (MicroPython-compatible).

from rules.haunted_house import HauntedHouse


def deck_with_front(cfg, front):
    # The data deck with the given values moved to the front of the draw order.
    rest = list(cfg["clue_deck"])
    for v in front:
        rest.remove(v)
    return list(front) + rest


def new_game(cfg, players=2, start=0, front=()):
    return HauntedHouse(cfg, players, deck=deck_with_front(cfg, front), start=start)


def turn(g, events=(), settle=True):
    # The active player launches one die, the sensors report events, the table
    # settles. Returns every effect.
    out = g.apply(("launch",))
    for e in events:
        out += g.apply(e)
    if settle:
        out += g.apply(("end_turn",))
    return out


def launch_rest(g):
    # Launch every remaining die of the round without any bonus events.
    out = []
    while g.phase in ("launch", "flight"):
        if g.phase == "launch":
            out += g.apply(("launch",))
        out += g.apply(("end_turn",))
    return out


def enter_results(g, results=None):
    # results: {player: [(face,) or (face, realm) or None, ...]}; dice without
    # an entry are reported lost. Then the round is scored.
    results = results or {}
    out = []
    for p in range(g.n):
        for r in results.get(p, []):
            if r is None:
                out += g.apply(("die_lost", p))
            else:
                out += g.apply(("die_result", p) + tuple(r))
        while g.dice_to_enter(p) > 0:
            out += g.apply(("die_lost", p))
    out += g.apply(("score_round",))
    return out


def play_round(g, results=None):
    return launch_rest(g) + enter_results(g, results)
