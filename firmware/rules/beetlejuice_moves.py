# Watch Out Beetlejuice: the full list of legal actions while a player decides
# (stop, every distinct reroll, the Handbook effects). Hosts, bots and tests ask
# for it through BeetlejuiceGame.legal_actions(); the board never lists it (its
# "keep" prompt offers a few lines and the engine checks any answer), so this
# module is imported only when the list is wanted.

from rules.beetlejuice_cards import BJ


def decide_actions(g):
    out = [("stop",)]
    if g._can_reroll():
        out.extend([("reroll", r) for r in reroll_sets(g)])
    out.extend(g.handbook_actions())
    return out


def reroll_sets(g):
    # one canonical index set per distinct multiset of faces rerolled
    groups = {}
    order = []
    bj_first = None
    for i in range(len(g.dice)):
        f = g.dice[i]
        if f == BJ:
            if bj_first is None:
                bj_first = i
            continue
        if f not in groups:
            groups[f] = []
            order.append(f)
        groups[f].append(i)
    choices = [[]]
    for f in order:
        idx = groups[f]
        nxt = []
        for base in choices:
            for k in range(len(idx) + 1):
                nxt.append(base + idx[:k])
        choices = nxt
    if g.bjre and bj_first is not None:
        choices = choices + [c + [bj_first] for c in choices]
    out = []
    for c in choices:
        if len(c) >= 2:
            out.append(tuple(sorted(c)))
    return out
