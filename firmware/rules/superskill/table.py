# Super-Skill Pinball: one table (a "Pin") as validated data plus indexes.
# The table dict comes from firmware/data/superskill/<table>.json; nothing about
# a particular table is hard-coded here. Movement destinations are precomputed
# per origin so the engine only filters by die value and filled boxes.
from rules.errors import RuleError

LINES = ("solid", "dashed", "double")
KINDS = ("target", "bumper", "droptarget", "flipper", "inlane", "outlane",
         "scoop", "lane", "spinner")
OPTION_KINDS = ("stars", "multiball", "flipper_pass", "multiplier", "fill_next",
                "skill_shot", "custom")
START = "start"


def _need(cond, msg):
    if not cond:
        raise RuleError("table: " + msg)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _str_list(v, what):
    _need(isinstance(v, list), what + " must be a list")
    for s in v:
        _need(isinstance(s, str), what + " entries must be strings")
    return v


class Feature:
    __slots__ = ("id", "name", "kind", "zone", "zi", "colour", "tags", "faces", "colours",
                 "lines", "stars", "sequence", "acc_from", "acc_pass", "to", "flippers",
                 "per_box", "reaches", "nbox", "sets", "data", "rest", "alike", "offer",
                 "opened")

    def __init__(self, d, zone_index):
        _need(isinstance(d, dict), "feature must be an object")
        fid = d.get("id")
        _need(isinstance(fid, str) and fid and fid != START and ":" not in fid,
              "feature id %r" % (fid,))
        self.id = fid
        self.data = d
        self.name = d.get("name", fid)
        self.kind = d.get("kind", "target")
        _need(self.kind in KINDS, "feature %s: kind %r" % (fid, self.kind))
        z = d.get("zone")
        _need(z in zone_index, "feature %s: zone %r" % (fid, z))
        self.zone = z
        self.zi = zone_index[z]
        self.colour = d.get("colour", "white")
        self.tags = tuple(_str_list(d.get("tags", []), fid + ".tags"))
        line = d.get("line", "solid")
        stars = d.get("stars", 0)
        _need(_is_int(stars) and stars >= 0, fid + ": stars")
        boxes = d.get("boxes")
        _need(isinstance(boxes, list) and boxes, fid + ": boxes must be a non-empty list")
        self.faces = []
        self.colours = []
        self.lines = []
        self.stars = []
        for b in boxes:
            _need(isinstance(b, dict), fid + ": box must be an object")
            fs = b.get("faces")
            _need(isinstance(fs, list) and fs, fid + ": box faces")
            for v in fs:
                _need(_is_int(v) and 1 <= v <= 12, fid + ": face %r" % (v,))
            ln = b.get("line", line)
            _need(ln in LINES, fid + ": line %r" % (ln,))
            st = b.get("stars", stars)
            _need(_is_int(st) and st >= 0, fid + ": box stars")
            self.faces.append(tuple(fs))
            self.colours.append(b.get("colour", self.colour))
            self.lines.append(ln)
            self.stars.append(st)
        self.nbox = len(self.faces)
        # alike[i]: one bit per kind of box (faces, colour, line and stars),
        # of which the engine offers only the first empty one; offer[i]: the
        # (feature, box, faces) it offers. Worked out once, not on every move.
        sigs = []
        self.alike = []
        for i in range(self.nbox):
            sig = (self.faces[i], self.colours[i], self.lines[i], self.stars[i])
            if sig not in sigs:
                sigs.append(sig)
            self.alike.append(1 << sigs.index(sig))
        self.offer = [(fid, i, self.faces[i]) for i in range(self.nbox)]
        # what open_boxes() offers here, by (colours allowed, the row):
        # asked on every move a bot tries (the board's companion build never
        # imports the engine; 256 entries at most)
        self.opened = {}
        self.sequence = bool(d.get("sequence", False))
        acc = d.get("access")
        if acc is None:
            self.acc_from = None
            self.acc_pass = False
        else:
            _need(isinstance(acc, dict), fid + ": access")
            self.acc_from = tuple(_str_list(acc.get("from", []), fid + ".access.from"))
            self.acc_pass = bool(acc.get("flipper_pass", False))
        self.to = d.get("to")
        self.flippers = tuple(_str_list(d.get("flippers", []), fid + ".flippers"))
        self.per_box = d.get("per_box", 0)
        _need(_is_int(self.per_box) and self.per_box >= 0, fid + ": per_box")
        self.reaches = tuple(_str_list(d.get("reaches", []), fid + ".reaches"))
        # an outlane a ball may stay on (Lower Decks: the table turned over)
        self.rest = bool(d.get("rest", False))
        self.sets = []


class TableSet:
    __slots__ = ("id", "name", "features", "reward", "erase")

    def __init__(self, d, fmap):
        _need(isinstance(d, dict), "set must be an object")
        self.id = d.get("id")
        _need(isinstance(self.id, str) and self.id, "set id")
        self.name = d.get("name", self.id)
        self.features = tuple(_str_list(d.get("features"), "set features"))
        _need(len(self.features) > 0, "set %s is empty" % self.id)
        for f in self.features:
            _need(f in fmap, "set %s: unknown feature %r" % (self.id, f))
        rw = d.get("reward", [])
        _need(isinstance(rw, list), "set %s: reward" % self.id)
        self.reward = []
        for r in rw:
            _need(isinstance(r, list) and r and isinstance(r[0], str), "set %s: reward" % self.id)
            self.reward.append(tuple(r))
        self.erase = bool(d.get("erase", True))


class Option:
    __slots__ = ("id", "key", "name", "kind", "once", "lasts", "stars", "tag", "factor",
                 "feature", "count", "data", "times", "per_round")

    def __init__(self, d, menu_id, fmap):
        _need(isinstance(d, dict), "option must be an object")
        self.id = d.get("id")
        _need(isinstance(self.id, str) and self.id and "." not in self.id, "option id")
        self.key = menu_id + "." + self.id
        self.data = d
        self.name = d.get("name", self.id)
        self.kind = d.get("kind")
        _need(self.kind in OPTION_KINDS, "option %s: kind %r" % (self.key, self.kind))
        self.once = bool(d.get("once", True))
        # a limited option may be taken `times` times per game; a dashed one
        # ("line": "dashed") is available again after each round end
        self.times = d.get("times", 1)
        _need(_is_int(self.times) and self.times >= 1, "option %s: times" % self.key)
        self.per_round = d.get("line", "double") == "dashed"
        self.lasts = d.get("lasts")
        _need(self.lasts in (None, "round", "game"), "option %s: lasts" % self.key)
        self.stars = d.get("stars", 0)
        _need(_is_int(self.stars) and self.stars >= 0, "option %s: stars" % self.key)
        self.tag = d.get("tag")
        self.factor = d.get("factor", 1)
        _need(_is_int(self.factor) and self.factor >= 1, "option %s: factor" % self.key)
        self.feature = d.get("feature")
        self.count = d.get("count", 1)
        if self.kind == "fill_next":
            _need(self.feature in fmap and fmap[self.feature].sequence,
                  "option %s: fill_next needs a sequence feature" % self.key)
        if self.kind == "multiplier":
            _need(isinstance(self.tag, str), "option %s: multiplier needs a tag" % self.key)
        if self.kind in ("flipper_pass", "multiplier"):
            _need(self.lasts is not None, "option %s: needs lasts" % self.key)


class Menu:
    __slots__ = ("id", "name", "options", "omap")

    def __init__(self, d, fmap):
        _need(isinstance(d, dict), "menu must be an object")
        self.id = d.get("id")
        _need(isinstance(self.id, str) and self.id, "menu id")
        self.name = d.get("name", self.id)
        ops = d.get("options")
        _need(isinstance(ops, list) and ops, "menu %s: options" % self.id)
        self.options = []
        self.omap = {}
        for o in ops:
            opt = Option(o, self.id, fmap)
            _need(opt.id not in self.omap, "menu %s: duplicate option %s" % (self.id, opt.id))
            self.options.append(opt)
            self.omap[opt.id] = opt


class Table:
    def __init__(self, d):
        _need(isinstance(d, dict), "table must be an object")
        self.data = d
        self.id = d.get("id")
        _need(isinstance(self.id, str) and self.id, "id")
        self.name = d.get("name", self.id)
        self.hooks = d.get("hooks")
        self.rounds = d.get("rounds", 3)
        _need(_is_int(self.rounds) and self.rounds >= 1, "rounds")
        faces = d.get("faces", [1, 2, 3, 4, 5, 6])
        _need(isinstance(faces, list) and faces, "faces")
        for v in faces:
            _need(_is_int(v) and v >= 1, "faces")
        self.faces = tuple(faces)
        self.min_face = min(faces)
        self.max_face = max(faces)
        self.nudge_boxes = d.get("nudge_boxes", 0)
        _need(_is_int(self.nudge_boxes) and self.nudge_boxes >= 0, "nudge_boxes")
        sk = d.get("skill_shots", [])
        _need(isinstance(sk, list), "skill_shots")
        for v in sk:
            _need(_is_int(v) and v >= 1, "skill_shots")
        self.skill_shots = tuple(sk)
        self.mb_factor = d.get("multiball_factor", 1)
        _need(_is_int(self.mb_factor) and self.mb_factor >= 1, "multiball_factor")

        zones = d.get("zones")
        _need(isinstance(zones, list) and len(zones) >= 2, "zones")
        self.zones = []
        self.zone_names = {}
        zi = {}
        for z in zones:
            _need(isinstance(z, dict) and isinstance(z.get("id"), str), "zone")
            _need(z["id"] not in zi, "duplicate zone " + z["id"])
            zi[z["id"]] = len(self.zones)
            self.zones.append(z["id"])
            self.zone_names[z["id"]] = z.get("name", z["id"])
        self.zone_index = zi

        feats = d.get("features")
        _need(isinstance(feats, list) and feats, "features")
        self.features = []
        self.fmap = {}
        for fd in feats:
            f = Feature(fd, zi)
            _need(f.id not in self.fmap, "duplicate feature " + f.id)
            self.features.append(f)
            self.fmap[f.id] = f
        self.flippers = [f.id for f in self.features if f.kind == "flipper"]
        # (feature id, its dashed boxes) for the features that have any: what
        # a round end erases
        self.dashed = []
        for f in self.features:
            idx = [i for i in range(f.nbox) if f.lines[i] == "dashed"]
            if idx:
                self.dashed.append((f.id, idx))
        _need(len(self.flippers) >= 1, "a table needs at least one flipper")
        for f in self.features:
            if f.kind == "inlane":
                _need(f.to in self.flippers, f.id + ": inlane must lead to a flipper")
            if f.kind == "outlane":
                for x in f.flippers:
                    _need(x in self.flippers, f.id + ": outlane flipper %r" % (x,))
            if f.acc_from is not None:
                for x in f.acc_from:
                    _need(x == START or x in self.fmap, f.id + ": access from %r" % (x,))
            if f.kind == "flipper":
                _need(len(f.reaches) > 0, f.id + ": flipper needs reaches")

        st = d.get("start", {})
        _need(isinstance(st, dict), "start")
        to = st.get("to", "down")
        if to != "down":
            _str_list(to, "start.to")
            for x in to:
                _need(x in self.fmap, "start.to %r" % (x,))
        self.start_to = to
        self.start_name = st.get("name", "Start Arrow")

        # Orientations: which end of the table is the bottom (Lower Decks turns
        # its table over). Each lists the zones top to bottom; the flippers in
        # its bottom zone are the active ones; "start" overrides start.to.
        # Without the key there is one orientation: the zones as listed.
        self.orients = []
        self.orient_ids = []
        ods = d.get("orientations")
        if ods is None:
            ods = [{"id": "", "zones": list(self.zones)}]
            fz = self.fmap[self.flippers[0]].zi
            for fid in self.flippers:
                _need(self.fmap[fid].zi == fz, "flippers must share the flipper zone")
        _need(isinstance(ods, list) and ods, "orientations")
        for od in ods:
            _need(isinstance(od, dict) and isinstance(od.get("id"), str), "orientation")
            _need(od["id"] not in self.orient_ids, "duplicate orientation")
            zs = _str_list(od.get("zones"), "orientation zones")
            _need(sorted(zs) == sorted(self.zones), "orientation %s: zones" % od["id"])
            level = {}
            for n, z in enumerate(zs):
                level[z] = n
            bottom = zs[-1]
            act = [fid for fid in self.flippers if self.fmap[fid].zone == bottom]
            _need(len(act) >= 1, "orientation %s: no flipper at the bottom" % od["id"])
            sto = od.get("start", to)
            if sto != "down":
                _str_list(sto, "orientation start")
                for x in sto:
                    _need(x in self.fmap, "orientation start %r" % (x,))
            self.orients.append({"id": od["id"], "name": od.get("name", od["id"]),
                                 "level": level, "bottom": bottom, "flippers": act,
                                 "start": sto})
            self.orient_ids.append(od["id"])
        self.flipper_zone = self.zone_index[self.orients[0]["bottom"]]

        self.arrows = {}
        self.info_arrows = []
        for a in d.get("arrows", []):
            _need(isinstance(a, dict), "arrow")
            fr = a.get("from")
            t = a.get("to")
            _need(fr in self.fmap or fr == START, "arrow from %r" % (fr,))
            _need(t in self.fmap, "arrow to %r" % (t,))
            _need(fr != t, "arrow to itself")
            if a.get("kind", "move") == "move":
                if fr not in self.arrows:
                    self.arrows[fr] = []
                self.arrows[fr].append(t)
            else:
                self.info_arrows.append((fr, t, a.get("colour", "white")))

        self.sets = []
        self.smap = {}
        for sd in d.get("sets", []):
            s = TableSet(sd, self.fmap)
            _need(s.id not in self.smap, "duplicate set " + s.id)
            self.sets.append(s)
            self.smap[s.id] = s
            for fid in s.features:
                self.fmap[fid].sets.append(s.id)

        self.menus = {}
        self.menu_order = []
        for md in d.get("menus", []):
            m = Menu(md, self.fmap)
            _need(m.id not in self.menus, "duplicate menu " + m.id)
            self.menus[m.id] = m
            self.menu_order.append(m.id)
        for s in self.sets:
            for r in s.reward:
                if r[0] == "menu":
                    _need(len(r) == 2 and r[1] in self.menus, "set %s: menu reward" % s.id)
                elif r[0] == "stars":
                    _need(len(r) == 2 and _is_int(r[1]), "set %s: stars reward" % s.id)
                else:
                    _need(r[0] in ("skill_shot", "custom"), "set %s: reward %r" % (s.id, r[0]))
        self.options = {}
        for mid in self.menu_order:
            for o in self.menus[mid].options:
                self.options[o.key] = o

        self.indicators = d.get("indicators", [])
        self.achievements = d.get("achievements", [])
        self.positions = [START] + [f.id for f in self.features
                                    if f.kind not in ("inlane", "outlane", "spinner") or f.rest]
        self._dest = {}
        self._spin = {}
        self._build_destinations()

    # ---- movement -----------------------------------------------------------

    def allowed_from(self, f, pos, fpass):
        # Features with an access condition are only reachable from the listed
        # positions (or from any flipper under Flipper Pass when marked so).
        if f.acc_from is None:
            return True
        if pos in f.acc_from:
            return True
        return fpass and f.acc_pass and pos in self.flippers

    def orient(self, oid):
        if oid is None or len(self.orients) == 1:
            return self.orients[0]
        return self.orients[self.orient_ids.index(oid)]

    def level(self, fid, oid=None):
        # Height of a feature's zone in an orientation: 0 = top.
        return self.orient(oid)["level"][self.fmap[fid].zone]

    def _build_destinations(self):
        # _dest[(orientation, pos, fpass)] = list of (feature id, colours or None)
        # _spin[...] = spinners a ball shot from that flipper may pass through
        # Spinners are never a place to stop: they are only passed through.
        for o in self.orients:
            lv = o["level"]
            for pos in self.positions:
                for fpass in (False, True):
                    out = []
                    spins = []
                    if pos == START:
                        if o["start"] == "down":
                            for f in self.features:
                                if f.kind != "spinner" and self.allowed_from(f, pos, fpass):
                                    out.append((f.id, None))
                        else:
                            for fid in o["start"]:
                                out.append((fid, None))
                    else:
                        src = self.fmap[pos]
                        sl = lv[src.zone]
                        if src.kind == "flipper" and pos in o["flippers"]:
                            cols = None if fpass else src.reaches
                            for f in self.features:
                                if f.kind in ("flipper", "inlane", "outlane"):
                                    continue   # never shot up into the other end's lanes
                                if lv[f.zone] < sl and self.allowed_from(f, pos, fpass):
                                    if f.kind == "spinner":
                                        spins.append((f.id, cols))
                                    else:
                                        out.append((f.id, cols))
                            for fid in o["flippers"]:
                                out.append((fid, None))
                        else:
                            for f in self.features:
                                if (lv[f.zone] > sl and f.kind != "spinner"
                                        and self.allowed_from(f, pos, fpass)):
                                    out.append((f.id, None))
                        seen = [x[0] for x in out]
                        for t in self.arrows.get(pos, ()):
                            if t not in seen and t != pos:
                                out.append((t, None))
                    self._dest[(o["id"], pos, fpass)] = out
                    self._spin[(o["id"], pos, fpass)] = spins

    def destinations(self, pos, fpass, oid=None):
        return self._dest[(self.orient(oid)["id"], pos, bool(fpass))]

    def spinners(self, pos, fpass, oid=None):
        return self._spin[(self.orient(oid)["id"], pos, bool(fpass))]

    def feature(self, fid):
        return self.fmap[fid]
