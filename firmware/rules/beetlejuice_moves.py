# Watch Out Beetlejuice: the full list of legal actions while a player decides
# (stop, every distinct reroll, the Handbook effects). Hosts, bots and tests ask
# for it through BeetlejuiceGame.legal_actions(); the board never lists it (its
# "keep" prompt offers a few lines and the engine checks any answer), so this
# module is imported only when the list is wanted.

from rules.beetlejuice_cards import BJ, subset as _subset


def decide_actions(g):
    out = [("stop",)]
    if g._can_reroll():
        out.extend(reroll_actions(g))
    out.extend(g.handbook_actions())
    return out


# ("reroll", indexes) for every dice mask, made once (hosts and bots list the
# rerolls at every decision; this module is never loaded on the board).
_ACTIONS = []


def reroll_actions(g):
    # [("reroll", indexes), ...] for every set reroll_sets(g) lists, in its order.
    masks = _reroll_masks(g)
    acts = _ACTIONS
    if len(acts) < 1 << len(g.dice):
        for m in range(len(acts), 1 << len(g.dice)):
            acts.append(("reroll", _subset(m)))
    # two dice or more: m & (m - 1) clears the lowest bit
    return [acts[m] for m in masks if m & (m - 1)]


def reroll_sets(g):
    # One canonical index set per distinct multiset of faces rerolled (two dice
    # or more), in the order of _reroll_masks.
    return [_subset(m) for m in _reroll_masks(g) if m & (m - 1)]


def _reroll_masks(g):
    # For each face (in the order it first shows), none, the first, the first
    # two ... of its dice, every combination (the first face varying slowest);
    # then the same again with the first Beetlejuice die added when the Handbook
    # lets one back in the cup. As dice masks: a set's indexes in order are
    # _subset(mask).
    dice = g.dice
    n = len(dice)
    masks = [0]
    seen = 0
    bj_first = -1
    for i in range(n):
        f = dice[i]
        if f == BJ:
            if bj_first < 0:
                bj_first = i
            continue
        if seen >> i & 1:
            continue
        prefixes = [0]
        m = 0
        for j in range(i, n):
            if dice[j] == f:
                m |= 1 << j
                prefixes.append(m)
        seen |= m
        masks = [b | q for b in masks for q in prefixes]
    if g.bjre and bj_first >= 0:
        masks = masks + [b | 1 << bj_first for b in masks]
    return masks
