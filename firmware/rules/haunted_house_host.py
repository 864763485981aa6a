# Boxtop Pinball: Haunted House: every legal action of a state, for hosts,
# bots and tests (HauntedHouse.legal_actions). The board never asks for the
# list: its actions come from the sensors and the referee. Imported only when
# the list is wanted.

from rules.haunted_house import FLIGHT, LAUNCH, TALLY


def legal_actions(g):
    ph = g.phase
    if ph == LAUNCH:
        return [("launch",)]
    if ph == FLIGHT:
        out = [("monster_hit", m) for m in g.cfg.monsters]
        for s in g.cfg.clue_spots:
            if g.spots[s] is not None:
                out.append(("clue_taken", s))
        for o in range(g.n):
            if g.on_table[o] > 0:
                out.append(("circle", o))
                out.append(("hole", o))
                out.append(("off_table", o))
        out.append(("end_turn",))
        return out
    if ph == TALLY:
        out = []
        for p in range(g.n):
            if g.dice_to_enter(p) > 0:
                for f in range(1, g.cfg.faces + 1):
                    out.append(("die_result", p, f))
                    for r in g.cfg.realm_ids:
                        out.append(("die_result", p, f, r))
                out.append(("die_lost", p))
        if not out:
            out.append(("score_round",))
        return out
    return []
