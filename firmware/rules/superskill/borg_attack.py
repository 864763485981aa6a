# Borg Attack special-rules hooks.
#
# Rounds before the battle round are played on the main table; the battle
# round (data "borg.battle_round", 3) is played on the backglass: this module
# then replaces the ball moves (ball_actions) and the ball token stays on the
# engine's Start Arrow as an "in play" marker while x["pos"] holds where it is.
#
# Per-player state (player.x), ship lists indexed by ship number - 1:
#   civ       civilians on the rescue track; rescued: civilians rescued so far
#   ships     1 = recruited (the slash erased)
#   dead      1 = destroyed, or filled in at the battle because never recruited
#   shield    1 = shield box filled (shields down)
#   torp      1 = Photon Torpedo loaded
#   mods      Phaser Modulations (at most max_modulations)
#   adapt     Borg Adaptation track, by die number
#   cube      1 = block hit, one entry per cube block (rows bottom to top)
#   cubes     cubes destroyed
#   battle    1 once the battle round has begun
#   pos       battle ball: -1 not placed yet, 0 on the cube, k on ship k
#
# Actions of the battle (ball 0, one die moves the ball, the other attacks):
#   ("borg", die, skill, nudge, "cube", block) / ("borg", die, skill, nudge, "ship", k)
#   ("modulate", "shields" | "adapt")   before a roll, spending a Modulation
# Questions: ["ask", "recruit"] ship to recruit; ["ask", "load"] ship to load
# a torpedo into; ["ask", "beacon"] BEACON target to fill; ["ask", "place"]
# ship to start the battle on; ["ask", "torpedo", block, ship] fire the
# launching ship's torpedo beside the block just hit (-1: keep it);
# ["ask", "attack", value] the Borg attack die, which a Skill Shot or Nudge
# may change ("choose", "attack", skill, nudge).
from rules.superskill.hooks import TableHooks

LISTS = ("ships", "dead", "shield", "torp", "adapt")
INTS = ("civ", "rescued", "mods", "cubes", "battle", "pos")


def _cfg(game):
    return game.table.data["borg"]


class Cube:
    # Flat block list: for block k, row[k] (0 = bottom), val[k], col[k], at[k];
    # below[k] = blocks it rests on; side[k] = its neighbours in the row.
    def __init__(self, rows):
        self.row = []
        self.val = []
        self.col = []
        self.at = []
        for r in range(len(rows)):
            for b in rows[r]:
                self.row.append(r)
                self.val.append(b[0])
                self.col.append(b[1])
                self.at.append(b[2])
        n = len(self.row)
        self.n = n
        self.top = len(rows) - 1
        self.below = []
        self.side = []
        for k in range(n):
            lo = []
            sd = []
            for j in range(n):
                if self.row[j] == self.row[k] - 1 and (self.at[j] == self.at[k] - 1
                                                       or self.at[j] == self.at[k] + 1):
                    lo.append(j)
                if self.row[j] == self.row[k] and (self.at[j] == self.at[k] - 2
                                                   or self.at[j] == self.at[k] + 2):
                    sd.append(j)
            self.below.append(lo)
            self.side.append(sd)


_CUBES = {}


def cube_of(game):
    t = game.table
    c = _CUBES.get(t.id)
    if c is None or c[0] is not t:
        c = (t, Cube(_cfg(game)["cube"]))
        _CUBES[t.id] = c
    return c[1]


def exposed(cube, filled, k):
    if cube.row[k] == 0:
        return True
    for j in cube.below[k]:
        if filled[j]:
            return True
    return False


def is_final(game, cube, k):
    return cube.row[k] == cube.top and cube.val[k] == _cfg(game)["final_value"]


def block_stars(game, cube, k):
    c = _cfg(game)
    if is_final(game, cube, k):
        return c["final_stars"]
    return c["row_stars"][cube.row[k]]


def intact(x, k):
    return x["ships"][k - 1] == 1 and x["dead"][k - 1] == 0


class Hooks(TableHooks):
    def init_player(self, game, p):
        n = _cfg(game)["ships"]
        x = {}
        for k in INTS:
            x[k] = 0
        x["pos"] = -1
        for k in LISTS:
            x[k] = [0] * n
        x["adapt"] = [0] * len(game.table.faces)
        x["cube"] = [0] * cube_of(game).n
        return x

    def check_player(self, game, p, x):
        if not isinstance(x, dict) or len(x) != len(LISTS) + len(INTS) + 1:
            return "extra state must be an object"
        c = _cfg(game)
        n = c["ships"]
        for k in INTS:
            v = x.get(k)
            if not isinstance(v, int) or isinstance(v, bool) or v < (-1 if k == "pos" else 0):
                return k
        if x["civ"] > c["civilian_track"] or x["mods"] > c["max_modulations"]:
            return "track"
        if x["pos"] > n or x["battle"] > 1:
            return "pos"
        for k in LISTS + ("cube",):
            v = x.get(k)
            want = n
            if k == "adapt":
                want = len(game.table.faces)
            elif k == "cube":
                want = cube_of(game).n
            if not isinstance(v, list) or len(v) != want:
                return k
            for e in v:
                if e not in (0, 1) or isinstance(e, bool):
                    return k
        return None

    # ---- main table ---------------------------------------------------------------

    def on_box_filled(self, game, p, ball, fid, idx, value, effects):
        f = game.table.fmap[fid]
        if "civilian" in f.tags:
            n = 1
            if game.players[p].mb:
                n *= game.table.mb_factor
            self.civilians(game, p, n, effects)

    def civilians(self, game, p, n, effects):
        x = game.players[p].x
        room = _cfg(game)["civilian_track"] - x["civ"]
        if n > room:
            n = room
        x["civ"] += n
        effects.append(("civilians", p, n, x["civ"]))

    def apply_custom(self, game, p, what, effects):
        ps = game.players[p]
        x = ps.x
        if what[0] == "custom":
            k = what[1]
            if k == "recruit":
                ps.queue.append(["ask", "recruit"])
            elif k == "torpedo":
                ps.queue.append(["ask", "load"])
            elif k == "rescue":
                # two stars a civilian, never doubled by Multiball
                game.add_stars(p, _cfg(game)["stars_per_civilian"] * x["civ"], "rescue", effects)
                x["rescued"] += x["civ"]
                effects.append(("rescued", p, x["civ"], x["rescued"]))
                x["civ"] = 0
            return
        oid = what[1].split(".")[1]
        if oid == "modulations2":
            self.modulations(game, p, 2, effects)
        elif oid == "fill_beacon":
            ps.queue.insert(0, ["ask", "beacon"])
        elif oid == "torpedoes2":
            ps.queue.insert(0, ["ask", "load"])
            ps.queue.insert(0, ["ask", "load"])

    def modulations(self, game, p, n, effects):
        x = game.players[p].x
        m = _cfg(game)["max_modulations"]
        x["mods"] = x["mods"] + n if x["mods"] + n < m else m
        effects.append(("modulations", p, x["mods"]))

    def bonus_options(self, game, p, menu_id, options):
        if not game.players[p].x["battle"]:
            return options
        # on the backglass only what still means something is offered
        return [o for o in options if o.kind in ("stars", "custom") and o.id != "fill_beacon"]

    # ---- questions -------------------------------------------------------------------

    def ask_actions(self, game, p, entry):
        x = game.players[p].x
        kind = entry[1]
        n = _cfg(game)["ships"]
        if kind == "recruit":
            return [("choose", "recruit", k) for k in range(1, n + 1) if not x["ships"][k - 1]]
        if kind == "load":
            out = []
            for k in range(1, n + 1):
                if x["torp"][k - 1]:
                    continue
                if x["battle"] and not intact(x, k):
                    continue
                out.append(("choose", "load", k))
            return out
        if kind == "beacon":
            out = []
            ps = game.players[p]
            for fid in game.table.smap["beacon"].features:
                row = ps.filled[fid]
                for i in range(len(row)):
                    if not row[i]:
                        out.append(("choose", "beacon", fid, i))
            return out
        if kind == "place":
            return [("choose", "place", k) for k in range(1, n + 1) if intact(x, k)]
        if kind == "torpedo":
            cube = cube_of(game)
            out = [("choose", "torpedo", -1)]
            for j in cube.side[entry[2]]:
                if not x["cube"][j] and not x["adapt"][cube.val[j] - 1]:
                    out.append(("choose", "torpedo", j))
            return out
        if kind == "attack":
            return self.attack_choices(game, p, entry[2])
        return []

    def attack_choices(self, game, p, base):
        ps = game.players[p]
        x = ps.x
        out = [("choose", "attack", 0, 0)]
        if base < 1 or not intact(x, base):
            return out    # the attack flies into empty space: nothing to change
        for s in ps.skills:
            if s != base:
                out.append(("choose", "attack", s, 0))
        if game.can_nudge(p):
            for v in game.table.faces:
                if v != base:
                    out.append(("choose", "attack", 0, v - base))
        return out

    def apply_ask(self, game, p, entry, action, effects):
        ps = game.players[p]
        x = ps.x
        kind = entry[1]
        if kind == "recruit":
            k = action[2]
            x["ships"][k - 1] = 1
            x["dead"][k - 1] = 0
            effects.append(("recruit", p, k))
        elif kind == "load":
            x["torp"][action[2] - 1] = 1
            effects.append(("torpedo_loaded", p, action[2]))
        elif kind == "beacon":
            fid, i = action[2], action[3]
            game.fill_box(p, -1, fid, i, game.table.fmap[fid].faces[i][0], effects)
        elif kind == "place":
            x["pos"] = action[2]
            effects.append(("battle_ball", p, "ship", action[2]))
        elif kind == "torpedo":
            j = action[2]
            if j >= 0:
                x["torp"][entry[3] - 1] = 0
                effects.append(("torpedo", p, entry[3], j))
                self.hit(game, p, j, effects)
        elif kind == "attack":
            s, n = action[2], action[3]
            base = entry[2]
            v = (s if s else base) + n
            if s:
                ps.skills.remove(s)
                effects.append(("skill_used", p, s, base))
            if n:
                self.nudge(game, p, s if s else base, v, effects)
            self.attack(game, p, v, effects)

    def nudge(self, game, p, base, v, effects):
        ps = game.players[p]
        ps.nudges += 1
        ps.namt = v - base if v > base else base - v
        ps.nudged = True
        effects.append(("nudge", p, base, v, ps.namt))

    def attack(self, game, p, v, effects):
        x = game.players[p].x
        if not intact(x, v):
            effects.append(("attack", p, v, "miss"))
        elif not x["shield"][v - 1]:
            x["shield"][v - 1] = 1
            effects.append(("attack", p, v, "shield"))
        else:
            x["dead"][v - 1] = 1
            x["torp"][v - 1] = 0    # a torpedo not yet fired is lost with it
            effects.append(("attack", p, v, "destroyed"))

    def hit(self, game, p, k, effects):
        # Fill cube block k: row stars, adaptation, modulation; the final
        # block destroys the cube and a new one appears.
        x = game.players[p].x
        cube = cube_of(game)
        x["cube"][k] = 1
        v = cube.val[k]
        effects.append(("cube_hit", p, k, v, cube.row[k] + 1))
        game.award(p, block_stars(game, cube, k), ("cube",), "cube", effects)
        if cube.col[k] == "g":
            x["adapt"][v - 1] = 1
            effects.append(("adapt", p, v))
        elif cube.col[k] == "y":
            if x["mods"] < _cfg(game)["max_modulations"]:
                self.modulations(game, p, 1, effects)
        if is_final(game, cube, k):
            x["cubes"] += 1
            x["cube"] = [0] * cube.n
            effects.append(("cube_destroyed", p, x["cubes"]))
            return True
        return False

    # ---- the battle round -------------------------------------------------------------

    def on_round_end(self, game, p, effects):
        ps = game.players[p]
        x = ps.x
        if ps.round + 1 != _cfg(game)["battle_round"]:
            return
        x["battle"] = 1
        n = _cfg(game)["ships"]
        for k in range(1, n + 1):
            if not x["ships"][k - 1]:
                x["dead"][k - 1] = 1
                x["torp"][k - 1] = 0
        effects.append(("battle", p, tuple(k for k in range(1, n + 1) if x["ships"][k - 1])))
        if not any(x["ships"]):
            ps.queue.append(["ask", "recruit"])
        ps.queue.append(["ask", "place"])

    def ball_actions(self, game, p, b):
        ps = game.players[p]
        x = ps.x
        if not x["battle"]:
            return None
        cube = cube_of(game)
        d1, d2 = game.dice
        dice = (0,) if d1 == d2 else (0, 1)
        on_ship = x["pos"] > 0
        acts = []
        plain = False
        faces = game.table.faces
        lo = game.table.min_face
        hi = game.table.max_face
        nudge = game.can_nudge(p)
        for d in dice:
            bases = [(0, game.dice[d])]
            for s in ps.skills:
                bases.append((s, s))
            for s, base in bases:
                deltas = [0]
                if nudge:
                    for v in range(lo, hi + 1):
                        if v != base:
                            deltas.append(v - base)
                for n in deltas:
                    v = base + n
                    if v not in faces:
                        continue
                    if on_ship and not x["adapt"][v - 1]:
                        for k in range(cube.n):
                            if cube.val[k] != v or x["cube"][k]:
                                continue
                            if not exposed(cube, x["cube"], k):
                                continue
                            if (s or n) and is_final(game, cube, k):
                                continue
                            acts.append(("borg", d, s, n, "cube", k))
                            if not s and not n:
                                plain = True
                    if intact(x, v):
                        acts.append(("borg", d, s, n, "ship", v))
                        if not s and not n:
                            plain = True
        if not plain:
            acts.append(("drain", b))
        return acts

    def apply_extra(self, game, p, action, effects):
        ps = game.players[p]
        x = ps.x
        if action[0] == "modulate":
            x["mods"] -= 1
            n = len(x["shield"])
            if action[1] == "shields":
                x["shield"] = [0] * n
            else:
                x["adapt"] = [0] * len(x["adapt"])
            effects.append(("modulate", p, action[1], x["mods"]))
            return True
        if action[0] != "borg":
            return False
        d, s, n, kind, k = action[1], action[2], action[3], action[4], action[5]
        base = s if s else game.dice[d]
        v = base + n
        if s:
            ps.skills.remove(s)
            effects.append(("skill_used", p, s, game.dice[d]))
        if n:
            self.nudge(game, p, base, v, effects)
        ps.used.append(d)
        ps.todo.remove(0)
        launch = x["pos"]
        if kind == "ship":
            x["pos"] = k
            effects.append(("battle_ball", p, "ship", k))
        else:
            x["pos"] = 0
            effects.append(("battle_ball", p, "cube", k))
            gone = self.hit(game, p, k, effects)
            if not gone and launch > 0 and x["torp"][launch - 1]:
                ps.queue.append(["ask", "torpedo", k, launch])
        ps.queue.append(["ask", "attack", game.dice[1 - d]])
        return True

    def pre_roll_actions(self, game, p):
        x = game.players[p].x
        if not x["battle"] or x["mods"] <= 0 or x["pos"] < 0:
            return []
        out = []
        for k in range(1, len(x["shield"]) + 1):
            if x["shield"][k - 1] and intact(x, k):
                out.append(("modulate", "shields"))
                break
        if any(x["adapt"]):
            out.append(("modulate", "adapt"))
        return out


def achievements(x):
    out = []
    if x.get("rescued", 0) >= 20:
        out.append("rescue20")
    ships = x.get("ships", [])
    if ships and all(ships):
        out.append("ships6")
    if x.get("cubes", 0) >= 1:
        out.append("cube1")
    if x.get("cubes", 0) >= 2:
        out.append("cube2")
    return out
