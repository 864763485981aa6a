# The Trouble with Tribbles special-rules hooks.
#
# Per-player state (player.x):
#   n       tribbles filled on the Tribble Track (spaces 1..n; the data's
#           "tribbles.track" lists the spaces: "." plain, "h" hand, "x" the
#           last space, an int = a star space worth that many stars)
#   scored  the dashed Tribble Scored box (Score Tribbles once per round)
#   nspin, nscoop, nbonus   pending "next ..." HISS/PURR multipliers
#   best    best single Score Tribbles award (achievements)
#   flips, ends   times this player's Transporter made an opponent fill two
#                 or more flipper boxes / end their round (achievements)
#
# Questions asked (queue entries ["ask", kind, ...], answers ("choose", kind, ...)):
#   ["ask", "hand"]             a hand space: fill an empty Flipper Zone box
#   ["ask", "scoop", v]         after a Tribble Scoop v: "fill" or "erase" v
#   ["ask", "transport"]        Transporter complete: how many tribbles to send
#   ["ask", "doubles", v]       Tribble Control: "gain" or "skip" v tribbles
from rules.superskill.hooks import TableHooks

KEYS = ("n", "scored", "nspin", "nscoop", "nbonus", "best", "flips", "ends")
CONTROL = "hiss.tribble_control"


def _cfg(game):
    return game.table.data["tribbles"]


def track_value(game, n):
    # Stars the Score Tribbles bonus gives with n tribbles (before multipliers).
    if n <= 0:
        return 0
    sp = _cfg(game)["track"][n - 1]
    if isinstance(sp, int):
        return sp
    return 0


def flipper_zone_boxes(game, p):
    # Empty boxes in the Flipper Zone (flippers and lanes), identical boxes
    # of one feature listed once.
    t = game.table
    bottom = t.orients[0]["bottom"]
    ps = game.players[p]
    out = []
    for f in t.features:
        if f.zone != bottom:
            continue
        row = ps.filled[f.id]
        seen = []
        for i in range(f.nbox):
            if row[i]:
                continue
            sig = (f.faces[i], f.colours[i])
            if sig in seen:
                continue
            seen.append(sig)
            out.append((f.id, i))
    return out


def empty_flipper_boxes(game, p):
    t = game.table
    bottom = t.orients[0]["bottom"]
    ps = game.players[p]
    n = 0
    for f in t.features:
        if f.zone == bottom:
            for k in ps.filled[f.id]:
                if not k:
                    n += 1
    return n


def gain(game, p, k, eff):
    # Fill k tribbles; returns (hand spaces filled, round ended by the X).
    ps = game.players[p]
    x = ps.x
    track = _cfg(game)["track"]
    last = len(track)
    hands = 0
    end = False
    got = 0
    for _ in range(k):
        if x["n"] >= last:
            break    # the track is full: no room for more tribbles
        x["n"] += 1
        got += 1
        sp = track[x["n"] - 1]
        if sp == "h":
            hands += 1
        elif sp == "x":
            end = True
            break
    eff.append(("tribbles", p, got, x["n"]))
    if end:
        eff.append(("tribble_x", p))
        game.lose_all(p, "tribbles", eff)
        return hands, True
    for _ in range(hands):
        ps.queue.append(["ask", "hand"])
    return hands, False


def erase(game, p, k, eff):
    x = game.players[p].x
    x["n"] -= k
    eff.append(("tribbles", p, -k, x["n"]))


class Hooks(TableHooks):
    moves_touch_others = True     # a transport gives tribbles to the others

    def init_player(self, game, p):
        x = {}
        for k in KEYS:
            x[k] = 0
        return x

    def check_player(self, game, p, x):
        if not isinstance(x, dict) or len(x) != len(KEYS):
            return "extra state must be an object"
        for k in KEYS:
            v = x.get(k)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                return k
        if x["n"] > len(_cfg(game)["track"]):
            return "n"
        for k in ("scored", "nspin", "nscoop", "nbonus"):
            if x[k] > 1:
                return k
        return None

    # ---- doubles ----------------------------------------------------------------

    def on_roll(self, game, effects):
        d1, d2 = game.dice
        if d1 != d2:
            return
        for p, ps in enumerate(game.players):
            if ps.done:
                continue
            if CONTROL in ps.flags:
                ps.queue.append(["ask", "doubles", d1])
            else:
                gain(game, p, d1, effects)

    # ---- boxes ------------------------------------------------------------------

    def on_box_filled(self, game, p, ball, fid, idx, value, effects):
        t = game.table
        f = t.fmap[fid]
        x = game.players[p].x
        if "scoop" in f.tags:
            x["nscoop"] = 0
            game.players[p].queue.append(["ask", "scoop", f.faces[idx][0]])
        elif "spinner" in f.tags:
            x["nspin"] = 0
        elif "purr" in f.tags:
            gain(game, p, _cfg(game)["purr_gain"], effects)

    def risky_fill(self, game, p, fid, idx):
        # scoops and PURR targets add tribbles, and the X ends the round
        f = game.table.fmap[fid]
        return f.kind == "outlane" or "scoop" in f.tags or "purr" in f.tags

    def star_factor(self, game, p, tags):
        x = game.players[p].x
        c = _cfg(game)
        n = 1
        if "scoop" in tags and x["nscoop"]:
            n *= c["scoop_factor"]
        if "spinner" in tags and x["nspin"]:
            n *= c["spinner_factor"]
        return n

    # ---- bonuses ----------------------------------------------------------------

    def bonus_options(self, game, p, menu_id, options):
        if game.players[p].x["scored"]:
            return [o for o in options if o.id != "score_tribbles"]
        return options

    def apply_custom(self, game, p, what, effects):
        ps = game.players[p]
        x = ps.x
        if what[0] == "custom":
            if what[1] == "transport":
                ps.queue.append(["ask", "transport"])
            return
        key = what[1]
        oid = key.split(".")[1]
        if oid == "spinner_x3":
            x["nspin"] = 1
        elif oid == "scoop_x3":
            x["nscoop"] = 1
        elif oid == "bonus_x2":
            x["nbonus"] = 1
        elif oid == "tribble_control":
            ps.flags.append(key)
        elif oid == "score_tribbles":
            v = track_value(game, x["n"])
            if x["nbonus"]:
                v *= _cfg(game)["bonus_factor"]
                x["nbonus"] = 0
            got = game.award(p, v, ("tribbles",), "score_tribbles", effects)
            if got > x["best"]:
                x["best"] = got
            x["scored"] = 1

    # ---- questions ----------------------------------------------------------------

    def ask_actions(self, game, p, entry):
        x = game.players[p].x
        kind = entry[1]
        if kind == "hand":
            return [("choose", "hand", fid, i) for fid, i in flipper_zone_boxes(game, p)]
        if kind == "scoop":
            out = [("choose", "scoop", "fill")]
            if x["n"] >= entry[2]:
                out.append(("choose", "scoop", "erase"))
            return out
        if kind == "transport":
            return [("choose", "transport", k) for k in range(x["n"] + 1)]
        if kind == "doubles":
            return [("choose", "doubles", "gain"), ("choose", "doubles", "skip")]
        return []

    def apply_ask(self, game, p, entry, action, effects):
        kind = entry[1]
        if kind == "hand":
            fid, i = action[2], action[3]
            game.fill_box(p, -1, fid, i, game.table.fmap[fid].faces[i][0], effects, True)
        elif kind == "scoop":
            if action[2] == "erase":
                erase(game, p, entry[2], effects)
            else:
                gain(game, p, entry[2], effects)
        elif kind == "doubles":
            if action[2] == "gain":
                gain(game, p, entry[2], effects)
            else:
                effects.append(("tribbles", p, 0, game.players[p].x["n"]))
        elif kind == "transport":
            self._transport(game, p, action[2], effects)

    def _transport(self, game, p, k, effects):
        # Erase k tribbles; split them evenly among the opponents still in the
        # game (at most transport_max each); the rest are lost.
        erase(game, p, k, effects)
        to = [q for q in range(len(game.players)) if q != p and not game.players[q].done]
        share = 0
        if to:
            share = k // len(to)
            if share > _cfg(game)["transport_max"]:
                share = _cfg(game)["transport_max"]
        effects.append(("transport", p, k, tuple(to), share))
        x = game.players[p].x
        for q in to:
            room = empty_flipper_boxes(game, q)
            hands, end = gain(game, q, share, effects)
            if end:
                x["ends"] += 1
            elif (hands if hands < room else room) >= 2:
                x["flips"] += 1

    # ---- rounds -----------------------------------------------------------------

    def on_round_end(self, game, p, effects):
        ps = game.players[p]
        x = ps.x
        x["scored"] = 0
        x["nspin"] = 0
        x["nscoop"] = 0
        x["nbonus"] = 0
        # a hand not yet answered would fill a box of the next round
        ps.queue = [e for e in ps.queue if not (e[0] == "ask" and e[1] == "hand")]


def achievements(x):
    out = []
    if x.get("best", 0) >= 30:
        out.append("score30")
    if x.get("best", 0) >= 60:
        out.append("score60")
    if x.get("flips", 0) >= 1:
        out.append("send_flips")
    if x.get("ends", 0) >= 1:
        out.append("send_end")
    return out
