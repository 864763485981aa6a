# Lower Decks special-rules hooks.
#
# Per-player state (player.x):
#   orient   "ry" or "gp": which flippers are at the bottom (gravity)
#   tilts    tilts so far (1: outlanes filled, 2: inlanes filled, 3: game over)
#   tendi, boimler   0 not recruited, 1 bonus in effect, 2 bonus used up
#   mariner  0/1 recruited; mboxes: Mariner boxes filled (of mariner_boxes)
#   ruth     0/1 Rutherford recruited
#   ind      PRO/MOT/ION indicators on the backglass [0/1, 0/1, 0/1]
#   rep      Replicator bonus: 0 off, 1 stars doubled until the next flip,
#            2 waiting for the flip this turn will bring
#   holo     the once-per-game Holodeck reset taken
#   promos   PROMOTION bonuses; best: most stars gained by one
#   out4     all four outlane boxes were filled at once (the last by the ball)
#
# Questions: ["ask", "crew"] which crewman to reset (Bridge bonus);
#            ["ask", "holo"] the same for the Holodeck bonus, which may be kept;
#            ["ask", "promo"] fill one Promotion Target (Bridge bonus).
from rules.superskill.hooks import TableHooks

KEYS = ("orient", "tilts", "tendi", "boimler", "mariner", "mboxes", "ruth", "ind", "rep",
        "holo", "promos", "best", "out4")


def _cfg(game):
    return game.table.data["lower_decks"]


def orientation_for(game, stars):
    # Blocks of `block` stars alternate through `pattern`; a score that is an
    # exact multiple of the block stays in the block it completes (10 is
    # still the first block; 100, 200 ... stay on the last colour).
    g = _cfg(game)["gravity"]
    pat = g["pattern"]
    if stars <= 0:
        return pat[0]
    k = ((stars - 1) % g["cycle"]) // g["block"]
    return pat[k % len(pat)]


def crew_resettable(game, p):
    x = game.players[p].x
    out = []
    if x["tendi"] == 2:
        out.append("tendi")
    if x["boimler"] == 2:
        out.append("boimler")
    if x["mariner"] and x["mboxes"] > 0:
        out.append("mariner")
    if x["ruth"] and len(game.players[p].skills) < len(game.table.skill_shots):
        out.append("rutherford")
    return out


def promo_boxes(game, p):
    t = game.table
    ps = game.players[p]
    out = []
    for sid in _cfg(game)["promotion_sets"]:
        for fid in t.smap[sid].features:
            row = ps.filled[fid]
            for i in range(len(row)):
                if not row[i]:
                    out.append((fid, i))
    return out


class Hooks(TableHooks):
    def init_player(self, game, p):
        return {"orient": orientation_for(game, 0), "tilts": 0, "tendi": 0, "boimler": 0,
                "mariner": 0, "mboxes": 0, "ruth": 0, "ind": [0, 0, 0], "rep": 0,
                "holo": 0, "promos": 0, "best": 0, "out4": 0}

    def check_player(self, game, p, x):
        if not isinstance(x, dict) or len(x) != len(KEYS):
            return "extra state must be an object"
        if x.get("orient") not in _cfg(game)["gravity"]["pattern"]:
            return "orient"
        lim = {"tilts": 3, "tendi": 2, "boimler": 2, "mariner": 1,
               "mboxes": _cfg(game)["mariner_boxes"], "ruth": 1, "rep": 2, "holo": 1,
               "promos": 1 << 20, "best": 1 << 30, "out4": 1}
        for k in lim:
            v = x.get(k)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0 or v > lim[k]:
                return k
        ind = x.get("ind")
        if not isinstance(ind, list) or len(ind) != 3:
            return "ind"
        for v in ind:
            if v not in (0, 1) or isinstance(v, bool):
                return "ind"
        return None

    # ---- gravity ------------------------------------------------------------------

    def orientation(self, game, p):
        return game.players[p].x["orient"]

    def on_roll(self, game, effects):
        # The table turns at the end of a player's turn; nothing happens
        # between that and the next roll, so it is done here.
        for p, ps in enumerate(game.players):
            if ps.done:
                continue
            self.turn(game, p, effects)

    def turn(self, game, p, effects):
        x = game.players[p].x
        new = orientation_for(game, game.players[p].stars)
        if new == x["orient"]:
            return False
        x["orient"] = new
        effects.append(("gravity", p, new))
        if x["rep"] == 1:
            x["rep"] = 0
            effects.append(("replicator_off", p))
        elif x["rep"] == 2:
            x["rep"] = 1
            effects.append(("replicator_on", p))
        return True

    def keep_on_outlane(self, game, p, ball, fid, effects):
        # The outlane's stars turn the table over: the ball stays (on the
        # outlane, which will be at the top) and moves down from there.
        x = game.players[p].x
        return orientation_for(game, game.players[p].stars) != x["orient"]

    # ---- tilts ---------------------------------------------------------------------

    def on_tilt(self, game, p, effects):
        x = game.players[p].x
        x["tilts"] += 1
        kinds = _cfg(game)["tilt_fill"]
        if x["tilts"] > len(kinds):
            game.lose_all(p, "tilt", effects)
            return True
        kind = kinds[x["tilts"] - 1][0]
        ps = game.players[p]
        for f in game.table.features:
            if f.kind != kind:
                continue
            for i in range(f.nbox):
                if not ps.filled[f.id][i]:
                    game.fill_box(p, -1, f.id, i, f.faces[i][0], effects, True)
        return True

    # ---- boxes ---------------------------------------------------------------------

    def on_box_filled(self, game, p, ball, fid, idx, value, effects):
        f = game.table.fmap[fid]
        ps = game.players[p]
        x = ps.x
        if f.kind == "inlane" and ball >= 0:
            self.recruit(game, p, f.data.get("crew"), effects)
        elif f.kind == "outlane" and ball >= 0 and not x["out4"]:
            # the achievement counts outlanes the ball went into, not a tilt's
            full = True
            for g in game.table.features:
                if g.kind == "outlane":
                    for k in ps.filled[g.id]:
                        if not k:
                            full = False
            if full:
                x["out4"] = 1

    def recruit(self, game, p, who, effects):
        ps = game.players[p]
        x = ps.x
        if who == "tendi":
            x["tendi"] = 1
        elif who == "boimler":
            x["boimler"] = 1
        elif who == "mariner":
            x["mariner"] = 1
        elif who == "rutherford":
            x["ruth"] = 1
            ps.skills = list(game.table.skill_shots)
        else:
            return
        effects.append(("crew", p, who))

    def wild_sources(self, game, p):
        x = game.players[p].x
        if x["mariner"] and x["mboxes"] < _cfg(game)["mariner_boxes"]:
            return ["mariner"]
        return []

    def use_wild(self, game, p, source, effects):
        game.players[p].x["mboxes"] += 1

    def star_factor(self, game, p, tags):
        x = game.players[p].x
        c = _cfg(game)
        n = 1
        if x["tendi"] == 1 and "holodeck" in tags:
            n *= c["crew_factor"]
        if x["boimler"] == 1 and "promotion" in tags:
            n *= c["crew_factor"]
        if x["rep"] == 1:
            n *= c["replicator_factor"]
        return n

    # ---- sets and bonuses -------------------------------------------------------------

    def on_set_completed(self, game, p, sid, effects):
        x = game.players[p].x
        if sid == "holodeck" and x["tendi"] == 1:
            x["tendi"] = 2

    def apply_custom(self, game, p, what, effects):
        ps = game.players[p]
        x = ps.x
        if what[0] == "option":
            oid = what[1].split(".")[1]
            if oid == "reset_crew":
                ps.queue.insert(0, ["ask", "crew"])
            elif oid == "fill_promo":
                ps.queue.insert(0, ["ask", "promo"])
                ps.queue.insert(0, ["ask", "promo"])
            return
        kind = what[1]
        if kind == "promo":
            self.promo_set(game, p, what[2], effects)
        elif kind == "holodeck":
            if not x["holo"] and crew_resettable(game, p):
                ps.queue.append(["ask", "holo"])
        elif kind == "replicator":
            if orientation_for(game, ps.stars) != x["orient"]:
                x["rep"] = 2
            elif x["rep"] == 0:
                x["rep"] = 1
            effects.append(("replicator", p, x["rep"]))

    def promo_set(self, game, p, sid, effects):
        # A PRO/MOT/ION set: its indicator, three stars; all three: PROMOTION.
        ps = game.players[p]
        x = ps.x
        c = _cfg(game)
        sets = c["promotion_sets"]
        done = sets.index(sid)
        x["ind"][done] = 1
        effects.append(("indicator", p, sets[done]))
        game.award(p, c["promotion_set_stars"], ("promotion", "set"), sets[done], effects)
        if x["ind"] == [1, 1, 1]:
            x["ind"] = [0, 0, 0]
            gained = game.add_stars(p, ps.stars, "promotion", effects)
            x["promos"] += 1
            if gained > x["best"]:
                x["best"] = gained
            if x["boimler"] == 1:
                x["boimler"] = 2

    def bonus_options(self, game, p, menu_id, options):
        out = []
        for o in options:
            if o.id == "reset_crew" and not crew_resettable(game, p):
                continue
            if o.id == "fill_promo" and not promo_boxes(game, p):
                continue
            out.append(o)
        return out

    # ---- questions ---------------------------------------------------------------------

    def ask_actions(self, game, p, entry):
        if entry[1] == "crew":
            return [("choose", "crew", c) for c in crew_resettable(game, p)]
        if entry[1] == "holo":
            # the once-per-game Holodeck reset may be kept for a later set
            return [("choose", "holo", c) for c in crew_resettable(game, p)] + [
                ("choose", "holo", "")]
        if entry[1] == "promo":
            return [("choose", "promo", fid, i) for fid, i in promo_boxes(game, p)]
        return []

    def apply_ask(self, game, p, entry, action, effects):
        ps = game.players[p]
        x = ps.x
        if entry[1] == "crew" or entry[1] == "holo":
            who = action[2]
            if not who:
                return
            if entry[1] == "holo":
                x["holo"] = 1
            effects.append(("crew_reset", p, who))
            if who == "tendi":
                x["tendi"] = 1
            elif who == "boimler":
                x["boimler"] = 1
            elif who == "mariner":
                x["mboxes"] = 0
            elif who == "rutherford":
                ps.skills = list(game.table.skill_shots)
        elif entry[1] == "promo":
            fid, i = action[2], action[3]
            game.fill_box(p, -1, fid, i, game.table.fmap[fid].faces[i][0], effects)


def achievements(x):
    out = []
    if x.get("out4", 0):
        out.append("outlanes4")
    if x.get("best", 0) >= 100:
        out.append("promo100")
    if x.get("best", 0) >= 200:
        out.append("promo200")
    if x.get("promos", 0) >= 2:
        out.append("promo_twice")
    return out
