# Starfleet Academy special-rules hooks.
# All of the table's rules are expressed in its data file (sequence targets,
# access from the Red Flipper, bonus menus). This module only keeps the
# per-player counters the table's achievements need:
#   streak: per ball, bumper boxes filled in a row without leaving the zone
#   best:   longest such streak this game
#   km:     Kobayashi Maru completions; km_mb: those during Multiball
from rules.superskill.hooks import TableHooks

BUMPER_ZONE = "upper"


class Hooks(TableHooks):
    def init_player(self, game, p):
        return {"streak": [0, 0], "best": 0, "km": 0, "km_mb": 0}

    def copy_extra(self, x):
        y = dict(x)
        y["streak"] = x["streak"][:]
        return y

    def check_player(self, game, p, x):
        if not isinstance(x, dict):
            return "extra state must be an object"
        s = x.get("streak")
        if not isinstance(s, list) or len(s) != 2:
            return "streak"
        for k in ("best", "km", "km_mb"):
            v = x.get(k)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                return k
        for v in s:
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                return "streak"
        return None

    def on_box_filled(self, game, p, ball, fid, idx, value, effects):
        if ball < 0:
            return
        x = game.players[p].x
        f = game.table.fmap[fid]
        if "bumper" in f.tags:
            x["streak"][ball] += 1
            if x["streak"][ball] > x["best"]:
                x["best"] = x["streak"][ball]
        elif f.zone != BUMPER_ZONE:
            x["streak"][ball] = 0

    def on_ball_moved(self, game, p, ball, pos, effects):
        game.players[p].x["streak"][ball] = 0

    def on_ball_lost(self, game, p, ball, reason, effects):
        game.players[p].x["streak"][ball] = 0

    def on_set_completed(self, game, p, sid, effects):
        if sid == "km":
            x = game.players[p].x
            x["km"] += 1
            if game.players[p].mb:
                x["km_mb"] += 1
