# Super-Skill Pinball rule engine (general: any table given as data + hooks).
#
# Turn model: each roll is a chance action ("roll", d1, d2). The players then
# use that shared roll one after the other (to_act = that player) although on
# the real table they choose simultaneously; nothing one player does changes
# another player's options for the same roll unless a table hook says so.
#
# Player actions:
#   ("fill", ball, die, skill, nudge, feature, box)
#       ball: ball slot 0/1; die: index 0/1 of the rolled die assigned to it;
#       skill: 0, or the circled Skill Shot number used instead of the die;
#       nudge: 0, or the signed change written as a Nudge; feature/box: the
#       box filled. Value used = (skill or die) + nudge.
#   ("drain", ball)            the ball has no plain move: let it go
#   ("bonus", menu, option)    choose a bonus after completing a set
#   ("skill", n)               circle Skill Shot number n
#   ("through", ball, die, skill, nudge, spinner, sbox, feature, box)
#       shot up from a flipper through a spinner: sbox is the spinner box
#       filled with the die NOT chosen (or -1), then the chosen value fills
#       feature/box in a zone above the spinner
#   ("wild", ball, die, source, value, feature, box)
#       a table source (hooks.wild_sources) sets the die to any value
#   ("choose", kind, ...)      answer a question a table hook asked
#   ("pass",)                  nothing (more) to decide before the roll
# Effects are tuples, first item the effect name (see docs/assumptions).
from rules.errors import RuleError, CHANCE
from rules.superskill.table import Table, Menu, START
from rules.superskill.table_hooks import load_hooks
from rules.superskill.hooks import TableHooks

MAX_PLAYERS = 4
FORMAT = 1


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Player:
    __slots__ = ("stars", "round", "done", "fin", "balls", "mb", "filled", "nudges",
                 "namt", "skills", "taken", "flags", "todo", "used", "nudged", "queue", "x",
                 "ready", "own")

    def __init__(self, table):
        self.stars = 0
        self.round = 1
        self.done = False
        self.fin = -1
        self.balls = [START, None]
        self.mb = False
        self.filled = {}
        for f in table.features:
            self.filled[f.id] = [0] * f.nbox
        self.nudges = 0
        self.namt = 0
        self.skills = []
        self.taken = []
        self.flags = []
        self.todo = []
        self.used = []
        self.nudged = False
        self.queue = []
        self.x = {}
        self.ready = False
        # The rows of filled this player may write in place: None all of
        # them, else a tuple of feature ids. A clone shares its
        # source's rows (row() copies one before its first write on either
        # side): copying every row was most of the cost of a clone, and bots
        # clone a game for every move they try.
        self.own = None

    def row(self, fid):
        # The row of feature fid, to write into (the only way rows are written).
        r = self.filled[fid]
        own = self.own
        if own is None or fid in own:
            return r
        r = self.filled[fid] = r[:]
        self.own = own + (fid,)     # (a clone writes one or two rows)
        return r

    def nballs(self):
        n = 0
        for b in self.balls:
            if b is not None:
                n += 1
        return n

    def has_work(self):
        return (not self.done) and (len(self.queue) > 0 or len(self.todo) > 0)

    def clone(self, extra=None):
        # (slices, not list(): bots clone a game per move they try); extra:
        # x already copied (TableHooks.copy_extra), else a deep copy
        c = object.__new__(Player)
        c.stars = self.stars
        c.round = self.round
        c.done = self.done
        c.fin = self.fin
        c.balls = self.balls[:]
        c.mb = self.mb
        c.filled = dict(self.filled)     # rows shared until written: row()
        c.own = ()
        if self.own is None or self.own:
            self.own = ()
        c.nudges = self.nudges
        c.namt = self.namt
        c.skills = self.skills[:]
        c.taken = self.taken[:]
        c.flags = self.flags[:]
        c.todo = self.todo[:]
        c.used = self.used[:]
        c.nudged = self.nudged
        c.queue = [q[:] for q in self.queue] if self.queue else []
        c.x = _copy_json(self.x) if extra is None else extra
        c.ready = self.ready
        return c

    def to_dict(self):
        filled = {}
        for k in self.filled:
            filled[k] = list(self.filled[k])
        return {
            "stars": self.stars, "round": self.round, "done": self.done, "fin": self.fin,
            "balls": list(self.balls), "mb": self.mb, "filled": filled,
            "nudges": self.nudges, "namt": self.namt, "skills": list(self.skills),
            "taken": list(self.taken), "flags": list(self.flags), "todo": list(self.todo),
            "used": list(self.used), "nudged": self.nudged,
            "queue": [list(q) for q in self.queue], "x": _copy_json(self.x),
            "ready": self.ready,
        }


def _copy_json(v):
    # A deep copy of JSON-like data (dicts, lists, scalars). Scalars are not
    # passed through a call (bots clone games thousands of times a second).
    if isinstance(v, dict):
        out = {}
        for k in v:
            i = v[k]
            out[k] = _copy_json(i) if isinstance(i, (dict, list)) else i
        return out
    if isinstance(v, list):
        return [_copy_json(i) if isinstance(i, (dict, list)) else i for i in v]
    return v


def _open_in(f, row, cols):
    # The boxes of feature f open_boxes() offers with this row and these
    # colours (None: any): a sequence its first empty box, else the first
    # empty box of each kind (alike in faces, colour, line and stars).
    out = []
    if f.sequence:
        i = 0
        while i < f.nbox and row[i]:
            i += 1
        if i < f.nbox and (cols is None or f.colours[i] in cols):
            out.append(f.offer[i])
        return out
    seen = 0
    alike = f.alike
    for i in range(f.nbox):
        if row[i] or seen & alike[i]:
            continue
        if cols is not None and f.colours[i] not in cols:
            continue
        seen |= alike[i]
        out.append(f.offer[i])
    return out


def _merge_menus(table, hooks):
    # Bonus menus of the table plus those a hooks module adds: extra_menus (a
    # list of menu dicts) and extra_options ({menu id: [option dicts]}).
    em = getattr(hooks, "extra_menus", None)
    eo = getattr(hooks, "extra_options", None)
    if not em and not eo:
        return table.menus, table.options
    menus = {}
    for mid in table.menu_order:
        menus[mid] = table.menus[mid]
    for md in em or ():
        m = Menu(md, table.fmap)
        if m.id in menus:
            raise RuleError("hooks: duplicate menu " + m.id)
        menus[m.id] = m
    if eo:
        for mid in eo:
            if mid not in menus:
                raise RuleError("hooks: unknown menu " + mid)
            old = menus[mid]
            d = {"id": mid, "name": old.name,
                 "options": [o.data for o in old.options] + list(eo[mid])}
            menus[mid] = Menu(d, table.fmap)
    options = {}
    for mid in menus:
        for o in menus[mid].options:
            options[o.key] = o
    return menus, options


class SuperSkillGame:
    def __init__(self, config, players=1, hooks=None):
        table = config if isinstance(config, Table) else Table(config)
        self.table = table
        if isinstance(players, (list, tuple)):
            players = len(players)
        if not _is_int(players) or not (1 <= players <= MAX_PLAYERS):
            raise RuleError("players must be 1..%d" % MAX_PLAYERS)
        self.hooks = hooks if hooks is not None else load_hooks(table.hooks)
        self._plain_hooks()
        self.menus, self.options = _merge_menus(table, self.hooks)
        self.players = [Player(table) for _ in range(players)]
        self.roll_no = 0
        self.dice = None
        self.cur = CHANCE
        self._ver = 0
        self._cache = None
        self._only = None     # see clone()
        for p in range(players):
            self.players[p].x = self.hooks.init_player(self, p)

    def _plain_hooks(self):
        # Which of the hooks called on every move a table leaves as they are
        # (the default does nothing): those calls are skipped. A bot tries
        # thousands of moves a second, each calling them several times.
        h = type(self.hooks)
        self._filters = h.filter_targets is not TableHooks.filter_targets
        self._factors = h.star_factor is not TableHooks.star_factor
        self._prerolls = h.pre_roll_actions is not TableHooks.pre_roll_actions
        # the features the default risky_fill names (outlanes), or None when
        # the table asks its own
        self._risky = None
        if h.risky_fill is TableHooks.risky_fill:
            self._risky = set(f.id for f in self.table.features if f.kind == "outlane")

    # ---- queries ------------------------------------------------------------

    def is_over(self):
        for ps in self.players:
            if not ps.done:
                return False
        return True

    @property
    def to_act(self):
        if self.is_over():
            return None
        return self.cur

    @property
    def phase(self):
        if self.is_over():
            return "over"
        if self.cur == CHANCE:
            return "roll"
        ps = self.players[self.cur]
        q = ps.queue
        if q:
            if q[0][0] == "skill":
                return "skill"
            return "choice" if q[0][0] == "ask" else "bonus"
        return "move" if ps.todo else "preroll"

    def winners(self):
        # Most stars; tie: whoever finished their last round on the earliest
        # roll; still tied: shared.
        if not self.is_over():
            return []
        best = None
        for p, ps in enumerate(self.players):
            key = (ps.stars, -ps.fin)
            if best is None or key > best:
                best = key
        return [p for p, ps in enumerate(self.players) if (ps.stars, -ps.fin) == best]

    @property
    def winner(self):
        w = self.winners()
        return w[0] if len(w) == 1 else None

    def fpass(self, p):
        opts = self.options
        for k in self.players[p].flags:
            if opts[k].kind == "flipper_pass":
                return True
        return False

    def open_boxes(self, p, pos):
        # Boxes a ball at pos may fill with some value, as (feature id, box,
        # faces), in rule order: where the ball may go, then which empty box
        # there. Of boxes alike in faces, colour, line and stars only the first
        # is offered (alike boxes show the same faces, so this does not depend
        # on the value). targets() picks those showing one value; a caller
        # asking for many values reads the table once.
        t = self.table
        filled = self.players[p].filled
        fmap = t.fmap
        out = []
        for fid, cols in t.destinations(pos, self.fpass(p), self.hooks.orientation(self, p)):
            f = fmap[fid]
            row = filled[fid]
            key = (cols,) + tuple(row)
            got = f.opened.get(key)
            if got is None:
                got = _open_in(f, row, cols)
                if len(f.opened) < 256:     # (a bound on memory)
                    f.opened[key] = got
            out += got
        return out

    def targets(self, p, pos, value, ball=0, boxes=None):
        # Boxes a ball at pos may fill with this value; boxes: open_boxes(p,
        # pos) if the caller has it already.
        if boxes is None:
            boxes = self.open_boxes(p, pos)
        out = [(fid, i) for fid, i, faces in boxes if value in faces]
        if not self._filters:
            return out
        return self.hooks.filter_targets(self, p, ball, pos, value, out)

    def free_dice(self, p):
        ps = self.players[p]
        out = []
        vals = []
        for d in (0, 1):
            if d in ps.used:
                continue
            if self.dice[d] in vals:
                continue
            vals.append(self.dice[d])
            out.append(d)
        return out

    def can_nudge(self, p):
        ps = self.players[p]
        return ps.nudges < self.table.nudge_boxes and not ps.nudged

    def bonus_options(self, p, mid):
        ps = self.players[p]
        out = []
        for o in self.menus[mid].options:
            if o.once and o.key in ps.taken and ps.taken.count(o.key) >= o.times:
                continue
            if o.kind == "multiball" and ps.nballs() >= 2:
                continue
            if o.lasts is not None and o.key in ps.flags:
                continue
            out.append(o)
        return self.hooks.bonus_options(self, p, mid, out)

    def skill_choices(self, p):
        ps = self.players[p]
        return [n for n in self.table.skill_shots if n not in ps.skills]

    def legal_actions(self, nudge=None):
        # nudge: list no Nudge of more than this (a bot trying only small
        # ones): the same list in the same order, less the larger nudges of
        # the ball moves. Each list is kept for apply() while the state stays.
        c = self._cache
        if c is not None and c[0] == self._ver and c[2] == nudge:
            return list(c[1])
        acts = self._legal(nudge)
        self._cache = (self._ver, acts, nudge)
        return list(acts)

    def _legal(self, nudge=None):
        if self.is_over():
            return []
        t = self.table
        if self.cur == CHANCE:
            return [("roll", a, b) for a in t.faces for b in t.faces]
        p = self.cur
        ps = self.players[p]
        if ps.queue:
            head = ps.queue[0]
            if head[0] == "skill":
                return [("skill", n) for n in self.skill_choices(p)]
            if head[0] == "ask":
                return [tuple(a) for a in self.hooks.ask_actions(self, p, head)]
            return [("bonus", head[1], o.id) for o in self.bonus_options(p, head[1])]
        acts = []
        if not ps.todo:
            # the pre-roll decision point
            for a in self.hooks.pre_roll_actions(self, p):
                acts.append(tuple(a))
            acts.append(("pass",))
            return acts
        for b in ps.todo:
            mine = self.hooks.ball_actions(self, p, b)
            if mine is None:
                self._ball_actions(p, b, acts, nudge)
            else:
                for a in mine:
                    acts.append(tuple(a))
        for a in self.hooks.extra_actions(self, p):
            acts.append(a)
        return acts

    def targets_by_value(self, p, pos, ball=0, boxes=None):
        # targets() of every value at once, {value: [(feature id, box)]} (a
        # value not in it has none), in one pass over the open boxes; None
        # when the table filters targets (then ask targets() per value).
        if self._filters:
            return None
        if boxes is None:
            boxes = self.open_boxes(p, pos)
        tv = {}
        for fid, i, faces in boxes:
            for v in faces:
                tg = tv.get(v)
                if tg is None:
                    tv[v] = [(fid, i)]
                else:
                    tg.append((fid, i))
        return tv

    def _ball_actions(self, p, b, acts, most=None):
        t = self.table
        ps = self.players[p]
        pos = ps.balls[b]
        dice = self.free_dice(p)
        only_one = len(ps.todo) == 1
        nudge = self.can_nudge(p)
        lo = t.min_face
        hi = t.max_face
        plain = False
        oid = self.hooks.orientation(self, p)
        boxes = self.open_boxes(p, pos)     # read once, picked per value below
        spins = []
        for sf, cols in t.spinners(pos, self.fpass(p), oid):
            f = t.fmap[sf]
            if cols is None or any(c in cols for c in f.colours):
                spins.append(sf)
        risky = self._risky
        # targets by value: the same for every die, Skill Shot and nudge
        tv = self.targets_by_value(p, pos, b, boxes)
        filtered = tv is None
        if filtered:
            tv = {}
        for d in dice:
            bases = [(0, self.dice[d])]
            if not only_one or d == dice[0]:
                for s in ps.skills:
                    bases.append((s, s))
            # the spinner box the other die fills does not depend on the value
            sboxes = [(sf, t.level(sf, oid), self.spinner_box(p, sf, self.dice[1 - d]))
                      for sf in spins] if spins else ()
            for s, base in bases:
                deltas = [0]
                if nudge:
                    # every value the nudge may reach, lowest first
                    v0 = lo if most is None or base - most < lo else base - most
                    v1 = hi if most is None or base + most > hi else base + most
                    for v in range(v0, v1 + 1):
                        if v != base:
                            deltas.append(v - base)
                for n in deltas:
                    v = base + n
                    tg = tv.get(v)
                    if tg is None:
                        tg = tv[v] = self.targets(p, pos, v, b, boxes) if filtered else []
                    for fid, i in tg:
                        a = ("fill", b, d, s, n, fid, i)
                        if n and (risky is None or fid in risky) and self._nudge_loses(p, b, a, fid, i):
                            continue
                        acts.append(a)
                        if s == 0 and n == 0:
                            plain = True
                    for sf, sl, sb in sboxes:
                        for fid, i in tg:
                            if t.level(fid, oid) >= sl or t.fmap[fid].kind == "flipper":
                                continue
                            a = ("through", b, d, s, n, sf, sb, fid, i)
                            if n and (risky is None or fid in risky) and self._nudge_loses(p, b, a, fid, i):
                                continue
                            acts.append(a)
                            if sb >= 0:
                                acts.append(("through", b, d, s, n, sf, -1, fid, i))
                            if s == 0 and n == 0:
                                plain = True
        for src in self.hooks.wild_sources(self, p):
            for d in dice:
                if only_one and d != dice[0]:
                    continue
                for v in t.faces:
                    if v == self.dice[d]:
                        continue
                    for fid, i in self.targets(p, pos, v, b, boxes):
                        acts.append(("wild", b, d, src, v, fid, i))
        if not plain:
            acts.append(("drain", b))

    def _nudge_loses(self, p, b, a, fid, i):
        # Nudging: a Nudge is refused exactly when the nudged move would lose
        # the ball (ball b gone, or the round or game over). Only a box the
        # table calls risky is played out, on a copy, so the usual moves cost
        # nothing; a loss that waits on a later choice is not certain, so that
        # nudge is allowed.
        if not self.hooks.risky_fill(self, p, fid, i):
            return False
        g = self.clone(p)
        g._do_fill(p, a, [])
        g._settle(p, [])
        ps = g.players[p]
        return ps.done or ps.balls[b] is None or ps.round != self.players[p].round

    def spinner_box(self, p, sf, u):
        # Box of spinner sf the unchosen die value u would fill, or -1.
        f = self.table.fmap[sf]
        row = self.players[p].filled[sf]
        for i in range(f.nbox):
            if u in f.faces[i] and not row[i]:
                return i
        return -1

    # ---- applying -----------------------------------------------------------

    def apply(self, action):
        if isinstance(action, list):
            action = tuple(action)
        if not isinstance(action, tuple) or not action:
            raise RuleError("action must be a tuple")
        if self.is_over():
            raise RuleError("game over")
        for v in action:
            if v is True or v is False:     # (isinstance(v, bool), without a call)
                raise RuleError("booleans are not action values")
        if self.cur == CHANCE:
            # every roll of the faces is legal: no list of them is built
            f = self.table.faces
            ok = len(action) == 3 and action[0] == "roll" and action[1] in f and action[2] in f
        else:
            # in a list of legal actions kept for this state (a shorter one
            # a bot asked for is part of the whole), else in the whole list
            c = self._cache
            ok = c is not None and c[0] == self._ver and action in c[1]
            if not ok and (c is None or c[0] != self._ver or c[2] is not None):
                ok = action in self._legal_cached()
        if not ok:
            raise RuleError("illegal action %r in phase %s" % (action, self.phase))
        return self.apply_legal(action)

    def apply_legal(self, action, advance=True):
        # apply() without its checks, for an action taken from this very
        # state's legal_actions() (a bot trying each move on a copy).
        # advance=False: the turn does not pass on (the state is right for
        # the player who acted, and for a question they must answer next: a
        # copy a bot only values).
        eff = []
        name = action[0]
        self._ver += 1
        if name == "roll":
            if self._only is not None:      # a roll changes every player
                cx = self.hooks.copy_extra
                self.players = [ps.clone(cx(ps.x)) for ps in self.players]
                self._only = None
            self._roll(action[1], action[2], eff)
            return eff
        p = self.cur
        ps = self.players[p]
        if name == "fill" or name == "through" or name == "wild":
            self._do_fill(p, action, eff)
        elif name == "drain":
            self._lose_ball(p, action[1], "drain", eff)
        elif name == "bonus":
            ps.queue.pop(0)
            self._bonus(p, action[1], action[2], eff)
        elif name == "skill":
            ps.queue.pop(0)
            self._circle(p, action[1], eff)
        elif name == "choose" and ps.queue and ps.queue[0][0] == "ask":
            head = ps.queue.pop(0)
            self.hooks.apply_ask(self, p, head, action, eff)
        elif name == "pass" and not ps.queue and not ps.todo:
            ps.ready = True
        else:
            self.hooks.apply_extra(self, p, action, eff)
        self._settle_all(p, eff)
        if advance:
            self._advance(eff)
        return eff

    def _settle_all(self, p, eff):
        # the player who acted first, then anyone a hook asked something
        # (a player with nothing queued has nothing to settle)
        players = self.players
        if players[p].queue:
            self._settle(p, eff)
        if len(players) > 1:
            for q in range(len(players)):
                if q != p and players[q].queue:
                    if self._only is not None and q != self._only:
                        # a copy for one player's moves: this one's state is
                        # still the game's, so it gets its own first
                        ps = players[q]
                        players[q] = ps.clone(self.hooks.copy_extra(ps.x))
                    self._settle(q, eff)

    def _legal_cached(self):
        c = self._cache
        if c is None or c[0] != self._ver or c[2] is not None:
            c = self._cache = (self._ver, self._legal(), None)
        return c[1]

    def _roll(self, d1, d2, eff):
        self.roll_no += 1
        self.dice = (d1, d2)
        eff.append(("roll", d1, d2))
        for p, ps in enumerate(self.players):
            ps.used = []
            ps.nudged = False
            ps.todo = []
            ps.ready = False
            if ps.done:
                continue
            if ps.mb and ps.nballs() <= 1:
                ps.mb = False
                eff.append(("multiball_end", p))
            if ps.namt:
                amt = ps.namt
                ps.namt = 0
                diff = d1 - d2 if d1 >= d2 else d2 - d1
                if diff < amt:
                    eff.append(("tilt", p, amt, diff))
                    if not self.hooks.on_tilt(self, p, eff):
                        for b in (0, 1):
                            if ps.balls[b] is not None:
                                self._lose_ball(p, b, "tilt", eff)
                        continue
                    if ps.done:
                        continue
                else:
                    eff.append(("nudge_clear", p, amt, diff))
            ps.todo = [b for b in (0, 1) if ps.balls[b] is not None]
        self.hooks.on_roll(self, eff)
        for p in range(len(self.players)):
            self._settle(p, eff)
        self.cur = CHANCE
        self._advance(eff)

    def _do_fill(self, p, a, eff):
        ps = self.players[p]
        if a[0] == "wild":
            b, d, src, v, fid, i = a[1], a[2], a[3], a[4], a[5], a[6]
            ps.used.append(d)
            ps.todo.remove(b)
            eff.append(("wild", p, src, self.dice[d], v))
            self.hooks.use_wild(self, p, src, eff)
            self.fill_box(p, b, fid, i, v, eff)
            return
        b, d, s, n = a[1], a[2], a[3], a[4]
        if a[0] == "through":
            fid, i = a[7], a[8]
        else:
            fid, i = a[5], a[6]
        base = s if s else self.dice[d]
        v = base + n
        if s:
            ps.skills.remove(s)
            eff.append(("skill_used", p, s, self.dice[d]))
        if n:
            ps.nudges += 1
            ps.namt = n if n > 0 else -n
            ps.nudged = True
            eff.append(("nudge", p, base, v, ps.namt))
        ps.used.append(d)
        ps.todo.remove(b)
        if a[0] == "through":
            sf, sb = a[5], a[6]
            u = self.dice[1 - d]
            eff.append(("spin", p, b, sf, u))
            if sb >= 0:
                self.fill_box(p, b, sf, sb, u, eff)
            if ps.done or ps.balls[b] is None or b in ps.todo:
                return   # a hook ended the round meanwhile
        self.fill_box(p, b, fid, i, v, eff)

    def fill_box(self, p, b, fid, i, v, eff, quiet=False):
        # Fill one box and resolve what it gives; b < 0 when a bonus or a
        # table rule fills it (the ball does not move). quiet: no stars.
        t = self.table
        ps = self.players[p]
        f = t.fmap[fid]
        own = ps.own
        row = ps.filled[fid] if own is None or fid in own else ps.row(fid)
        row[i] = 1
        eff.append(("fill", p, b, fid, i, v))
        lost = False
        if b >= 0 and f.kind == "outlane":
            cnt = 0
            for x in f.flippers:
                for k in ps.filled[x]:
                    cnt += k
            if not quiet:
                self.award(p, f.per_box * cnt + f.stars[i], f.tags, fid, eff)
            lost = not self.hooks.keep_on_outlane(self, p, b, fid, eff)
            if not lost:
                ps.balls[b] = fid
        else:
            if not quiet and f.stars[i] > 0:     # (award() gives nothing else)
                self.award(p, f.stars[i], f.tags, fid, eff)
            if b >= 0:
                if f.kind == "inlane":
                    ps.balls[b] = f.to
                    eff.append(("ball_to", p, b, f.to))
                elif f.kind != "spinner":   # the ball never stops in a spinner
                    ps.balls[b] = fid
        self.hooks.on_box_filled(self, p, b, fid, i, v, eff)
        if b >= 0 and f.kind == "inlane":
            self.hooks.on_ball_moved(self, p, b, f.to, eff)
        for sid in f.sets:
            self._check_set(p, sid, eff)
        if lost:
            self._lose_ball(p, b, "outlane", eff)

    def award(self, p, base, tags, why, eff):
        if base <= 0:
            return 0
        ps = self.players[p]
        n = base
        opts = self.options
        for k in ps.flags:
            o = opts[k]
            if o.kind == "multiplier" and o.tag in tags:
                n *= o.factor
        if ps.mb:
            n *= self.table.mb_factor
        if self._factors:
            n *= self.hooks.star_factor(self, p, tags)
        ps.stars += n
        eff.append(("stars", p, n, why))
        return n

    def add_stars(self, p, n, why, eff):
        # Stars no multiplier touches (e.g. a bonus the rules say is never
        # doubled, or a score doubling).
        if n > 0:
            self.players[p].stars += n
            eff.append(("stars", p, n, why))
        return n

    def _check_set(self, p, sid, eff):
        t = self.table
        ps = self.players[p]
        s = t.smap[sid]
        for fid in s.features:
            for k in ps.filled[fid]:
                if not k:
                    return
        eff.append(("set_complete", p, sid))
        if s.erase:
            for fid in s.features:
                f = t.fmap[fid]
                row = ps.row(fid)
                for i in range(f.nbox):
                    if f.lines[i] == "solid":
                        row[i] = 0
        self.hooks.on_set_completed(self, p, sid, eff)
        for r in s.reward:
            if r[0] == "stars":
                self.award(p, r[1], ("set",), sid, eff)
            elif r[0] == "skill_shot":
                ps.queue.append(["skill"])
            elif r[0] == "menu":
                ps.queue.append(["menu", r[1]])
            else:
                self.hooks.apply_custom(self, p, r, eff)

    def _circle(self, p, n, eff):
        self.players[p].skills.append(n)
        self.players[p].skills.sort()
        eff.append(("skill_shot", p, n))

    def _bonus(self, p, mid, oid, eff):
        t = self.table
        ps = self.players[p]
        o = None
        for x in self.bonus_options(p, mid):
            if x.id == oid:
                o = x
        if o.once:
            ps.taken.append(o.key)
        eff.append(("bonus", p, mid, oid))
        k = o.kind
        if k == "stars":
            self.award(p, o.stars, ("bonus",), o.key, eff)
        elif k == "multiball":
            self.start_multiball(p, eff)
        elif k == "flipper_pass" or k == "multiplier":
            ps.flags.append(o.key)
        elif k == "fill_next":
            f = t.fmap[o.feature]
            for _ in range(o.count):
                row = ps.filled[f.id]
                i = 0
                while i < f.nbox and row[i]:
                    i += 1
                if i >= f.nbox:
                    break
                self.fill_box(p, -1, f.id, i, f.faces[i][0], eff)
        elif k == "skill_shot":
            ps.queue.insert(0, ["skill"])
        else:
            self.hooks.apply_custom(self, p, ("option", o.key), eff)

    def start_multiball(self, p, eff):
        ps = self.players[p]
        for b in (0, 1):
            if ps.balls[b] is None:
                ps.balls[b] = START
                ps.mb = True
                eff.append(("multiball", p, b))
                return True
        return False

    def _settle(self, p, eff):
        # Resolve queued choices that are not real choices (none or one option).
        ps = self.players[p]
        if ps.done:
            ps.queue = []   # choices earned on the very move that ended the game
        while ps.queue and not ps.done:
            head = ps.queue[0]
            if head[0] == "ask":
                ch = self.hooks.ask_actions(self, p, head)
                if len(ch) > 1:
                    return
                ps.queue.pop(0)
                if ch:
                    self.hooks.apply_ask(self, p, head, tuple(ch[0]), eff)
                else:
                    eff.append(("no_choice", p, head[1]))
            elif head[0] == "skill":
                ch = self.skill_choices(p)
                if len(ch) > 1:
                    return
                ps.queue.pop(0)
                if ch:
                    self._circle(p, ch[0], eff)
                else:
                    eff.append(("skill_shot_lost", p))
            else:
                ch = self.bonus_options(p, head[1])
                if len(ch) > 1:
                    return
                ps.queue.pop(0)
                if ch:
                    self._bonus(p, head[1], ch[0].id, eff)
                else:
                    eff.append(("no_bonus", p, head[1]))

    def _lose_ball(self, p, b, why, eff):
        ps = self.players[p]
        ps.balls[b] = None
        if b in ps.todo:
            ps.todo.remove(b)
        eff.append(("ball_lost", p, b, why))
        self.hooks.on_ball_lost(self, p, b, why, eff)
        if ps.balls[0] is None and ps.balls[1] is None:
            self.end_round(p, eff)

    def lose_all(self, p, why, eff):
        # Every ball of player p is lost at once (a table rule ends the
        # round); the round-end procedure follows.
        ps = self.players[p]
        live = [b for b in (0, 1) if ps.balls[b] is not None]
        if not live:
            return
        for b in live:
            self._lose_ball(p, b, why, eff)

    def end_round(self, p, eff):
        # Round-end procedure: erase dashed boxes and round-long indicators,
        # fill the next round circle, a new ball on the Start Arrow.
        t = self.table
        ps = self.players[p]
        eff.append(("round_end", p, ps.round))
        filled = ps.filled
        for fid, idx in t.dashed:
            row = filled[fid]
            for i in idx:
                if row[i]:
                    row = ps.row(fid)      # (written only if a box is erased)
                    row[i] = 0
        ps.flags = [k for k in ps.flags if self.options[k].lasts != "round"]
        ps.taken = [k for k in ps.taken if not self.options[k].per_round]
        ps.todo = []
        ps.balls = [None, None]
        self.hooks.on_round_end(self, p, eff)
        ps.mb = False
        if ps.round >= t.rounds:
            ps.done = True
            ps.fin = self.roll_no
            ps.queue = []
            ps.namt = 0
            eff.append(("player_over", p, ps.stars))
        else:
            ps.round += 1
            ps.balls = [START, None]
            eff.append(("round_start", p, ps.round))

    def _advance(self, eff):
        if self.is_over():
            if not eff or eff[-1][0] != "game_over":
                eff.append(("game_over", tuple(self.winners())))
            self.cur = CHANCE
            return
        players = self.players
        n = len(players)
        cur = self.cur
        if cur != CHANCE:
            ps = players[cur]
            if not ps.done and (ps.queue or ps.todo):     # has_work()
                return
        start = 0 if cur == CHANCE else cur + 1
        for q in range(start, n):
            if players[q].has_work():
                self.cur = q
                return
        # a hook may have asked an earlier player something this roll
        for q in range(0, start):
            if players[q].has_work():
                self.cur = q
                return
        # the pre-roll decision point, in seat order
        if self._prerolls:
            for q in range(n):
                if self._pre_roll(q):
                    self.cur = q
                    return
        self.cur = CHANCE

    def _pre_roll(self, q):
        ps = self.players[q]
        if ps.done or ps.ready:
            return False
        return self._prerolls and len(self.hooks.pre_roll_actions(self, q)) > 0

    # ---- copies and persistence ---------------------------------------------

    def clone(self, mover=None, into=None):
        # mover: a copy to apply only that player's moves to and value them
        # (a bot trying moves): on a table whose moves touch no other player
        # (TableHooks.moves_touch_others), the others' state stays the
        # game's own, not copied; such a copy is for use before the game
        # changes again. into: such a copy of this game made before, no
        # longer needed, to make again instead of a new one (a bot trying
        # one move after the other).
        if into is not None:
            g = into
        else:
            g = object.__new__(type(self))
            g.table = self.table
            g.hooks = self.hooks
            g._filters = self._filters
            g._factors = self._factors
            g._prerolls = self._prerolls
            g._risky = self._risky
            g.menus = self.menus
            g.options = self.options
        cx = self.hooks.copy_extra
        if mover is None or self.hooks.moves_touch_others:
            players = []
            for ps in self.players:
                players.append(ps.clone(cx(ps.x)))
            g._only = None
        else:
            players = self.players[:]
            ps = players[mover]
            players[mover] = ps.clone(cx(ps.x))
            g._only = mover
        g.players = players
        g.roll_no = self.roll_no
        g.dice = self.dice
        g.cur = self.cur
        # same state, same legal actions: share the (never mutated) cached list
        g._ver = self._ver
        g._cache = self._cache
        return g

    def to_dict(self):
        return {
            "format": FORMAT, "table": self.table.id, "roll_no": self.roll_no,
            "dice": list(self.dice) if self.dice is not None else None,
            "cur": self.cur, "players": [ps.to_dict() for ps in self.players],
        }

    @classmethod
    def from_dict(cls, config, d, hooks=None):
        table = config if isinstance(config, Table) else Table(config)
        if not isinstance(d, dict):
            raise RuleError("state: not an object")
        if d.get("format") != FORMAT:
            raise RuleError("state: format")
        if d.get("table") != table.id:
            raise RuleError("state: saved for table %r" % (d.get("table"),))
        pl = d.get("players")
        if not isinstance(pl, list) or not (1 <= len(pl) <= MAX_PLAYERS):
            raise RuleError("state: players")
        g = cls(table, len(pl), hooks)
        rn = d.get("roll_no")
        if not _is_int(rn) or rn < 0:
            raise RuleError("state: roll_no")
        g.roll_no = rn
        dice = d.get("dice")
        if dice is None:
            g.dice = None
        else:
            if not isinstance(dice, list) or len(dice) != 2:
                raise RuleError("state: dice")
            for v in dice:
                if v not in table.faces:
                    raise RuleError("state: dice")
            g.dice = (dice[0], dice[1])
        cur = d.get("cur")
        if not _is_int(cur) or not (CHANCE <= cur < len(pl)):
            raise RuleError("state: cur")
        g.cur = cur
        for p in range(len(pl)):
            g.players[p] = g._load_player(p, pl[p])
        # consistency of the turn pointer
        if g.dice is None and rn != 0:
            raise RuleError("state: no roll yet")
        for p, ps in enumerate(g.players):
            w = ps.has_work()
            if cur == CHANCE and w and not g.is_over():
                raise RuleError("state: player %d still has to act" % p)
            if cur == CHANCE and g._pre_roll(p):
                raise RuleError("state: player %d still has to decide" % p)
            if cur != CHANCE and p < cur and ps.todo and not ps.done:
                raise RuleError("state: player %d still has to act" % p)
        if cur != CHANCE and not g.players[cur].has_work() and not g._pre_roll(cur):
            raise RuleError("state: player to act has nothing to do")
        if g.dice is None and cur != CHANCE and g.players[cur].has_work():
            raise RuleError("state: no roll yet")
        if g.is_over() and cur != CHANCE:
            raise RuleError("state: game over")
        return g

    def _load_player(self, p, d):
        t = self.table
        if not isinstance(d, dict):
            raise RuleError("state: player %d" % p)
        ps = Player(t)

        def bad(what):
            raise RuleError("state: player %d: %s" % (p, what))

        def get_int(k, lo, hi):
            v = d.get(k)
            if not _is_int(v) or v < lo or v > hi:
                bad(k)
            return v

        def get_bool(k):
            v = d.get(k)
            if not isinstance(v, bool):
                bad(k)
            return v

        ps.stars = get_int("stars", 0, 1 << 30)
        ps.round = get_int("round", 1, t.rounds)
        ps.done = get_bool("done")
        ps.fin = get_int("fin", -1, 1 << 30)
        if ps.done != (ps.fin >= 0):
            bad("fin")
        balls = d.get("balls")
        if not isinstance(balls, list) or len(balls) != 2:
            bad("balls")
        for b in balls:
            if b is not None and b not in t.positions:
                bad("ball position %r" % (b,))
        ps.balls = list(balls)
        nb = ps.nballs()
        if ps.done and nb:
            bad("balls after game over")
        if not ps.done and nb == 0:
            bad("no ball in play")
        ps.mb = get_bool("mb")
        filled = d.get("filled")
        if not isinstance(filled, dict) or len(filled) != len(t.features):
            bad("filled")
        for f in t.features:
            row = filled.get(f.id)
            if not isinstance(row, list) or len(row) != f.nbox:
                bad("filled " + f.id)
            for k in row:
                if k not in (0, 1) or isinstance(k, bool):
                    bad("filled " + f.id)
            if f.sequence:
                i = 0
                while i < f.nbox and row[i]:
                    i += 1
                for k in row[i:]:
                    if k:
                        bad("sequence " + f.id)
            ps.filled[f.id] = list(row)
        ps.nudges = get_int("nudges", 0, t.nudge_boxes)
        ps.namt = get_int("namt", 0, t.max_face - t.min_face)
        sk = d.get("skills")
        if not isinstance(sk, list):
            bad("skills")
        for n in sk:
            if n not in t.skill_shots or sk.count(n) != 1:
                bad("skills")
        if sorted(sk) != sk:
            bad("skills order")
        ps.skills = list(sk)
        for k in ("taken", "flags"):
            v = d.get(k)
            if not isinstance(v, list):
                bad(k)
            for key in v:
                if key not in self.options:
                    bad(k)
                o = self.options[key]
                if v.count(key) > (o.times if k == "taken" else 1):
                    bad(k)
                if k == "taken" and not o.once:
                    bad(k)
                if k == "flags" and o.lasts is None:
                    bad(k)
        ps.taken = list(d["taken"])
        ps.flags = list(d["flags"])
        todo = d.get("todo")
        if not isinstance(todo, list):
            bad("todo")
        for b in todo:
            if b not in (0, 1) or todo.count(b) != 1 or balls[b] is None:
                bad("todo")
        ps.todo = list(todo)
        used = d.get("used")
        if not isinstance(used, list) or len(used) > 2:
            bad("used")
        for u in used:
            if u not in (0, 1) or used.count(u) != 1:
                bad("used")
        ps.used = list(used)
        ps.nudged = get_bool("nudged")
        q = d.get("queue")
        if not isinstance(q, list):
            bad("queue")
        for e in q:
            if not isinstance(e, list) or not e:
                bad("queue")
            if e[0] == "skill":
                if len(e) != 1:
                    bad("queue")
            elif e[0] == "menu":
                if len(e) != 2 or e[1] not in self.menus:
                    bad("queue")
            elif e[0] == "ask":
                if len(e) < 2 or not isinstance(e[1], str):
                    bad("queue")
                for v in e:
                    if not (isinstance(v, str) or _is_int(v)):
                        bad("queue")
            else:
                bad("queue")
        ps.queue = [list(e) for e in q]
        if (ps.todo or ps.queue) and self.dice is None:
            bad("work without a roll")
        if ps.done and (ps.todo or ps.queue or ps.mb or ps.namt):
            bad("finished player with pending state")
        r = d.get("ready", False)
        if not isinstance(r, bool):
            bad("ready")
        ps.ready = r
        x = d.get("x")
        err = self.hooks.check_player(self, p, x)
        if err:
            bad("extra: " + err)
        ps.x = _copy_json(x)
        return ps
