# Boxtop Pinball: Haunted House rules: a pure state machine (no I/O, no clock,
# no randomness of its own). The controller feeds it player launches and the
# sensor readings of the table; see docs/assumptions/haunted-house.md.
#
# Phases and who acts:
#   "launch"    active player  ("launch",)               one die leaves the launch pad
#   "flight"    CHANCE         ("monster_hit", monster)   credited to the active player
#                              ("clue_taken", spot)       the active player takes that clue
#                              ("circle", owner)          a die of owner entered the circle
#                              ("hole", owner)            a die of owner fell through a hole
#                              ("off_table", owner)       a die of owner left the machine
#                              ("end_turn",)              the table has settled
#   "round_end" CHANCE         ("die_result", p, face) or ("die_result", p, face, realm)
#                              ("die_lost", p)            one entry per die still counted
#                              ("score_round",)           once every die is entered
#   "over"      nobody (to_act is None)
#
# Effects (tuples of str/int):
#   ("turn", p, round) ("launched", p, "regular"|"summoned")
#   ("monster_hit", p, monster, unique_count) ("monster_moved", monster, from, to, spot)
#   ("clear_spot", spot)  move any die off that monster spot, same face up
#   ("clue_taken", p, spot, clues_held) ("summoned", p, "now"|"next", summoned_this_round)
#   ("summon_refused", p) ("die_lost", p, "hole"|"off_table"|"round_end")
#   ("extra_launch", p, dice_due) ("round_end", round) ("dice_to_enter", p, n)
#   ("die_scored", p, face, multiplier, points)
#   ("round_scored", round, p, dice_points, monster_points, total)
#   ("collect_dice",) ("monster_home", monster, from, to, spot) ("clue_placed", spot)
#   ("round_start", round, p) ("clues_revealed", p, (values...), sum)
#   ("final_score", p, total, last_round_total) ("game_over", (winners...))

from rules.errors import RuleError, CHANCE
from rules.haunted_house_cfg import HHConfig
from ram import unload

GAME = "haunted-house"
STATE_VERSION = 1
LAUNCH = "launch"
FLIGHT = "flight"
TALLY = "round_end"
OVER = "over"
PHASES = (LAUNCH, FLIGHT, TALLY, OVER)
LOSSES = ("hole", "off_table")
# The saved state: "game", "v", then these attributes, in this order.
STATE_KEYS = ("colours", "first", "round", "phase", "active", "turn_regular", "turn_launches",
              "dice_left", "summoned", "due", "on_table", "entries", "monsters", "hits",
              "rounds", "deck", "spots", "clues")


def _is_int(x):
    return type(x) is int


def _player_colours(cfg, players):
    if _is_int(players):
        if not cfg.min_players <= players <= cfg.max_players:
            raise RuleError("players must be %d..%d" % (cfg.min_players, cfg.max_players))
        return cfg.colours[:players]
    if not isinstance(players, (list, tuple)):
        raise RuleError("players: a count or a list of colours")
    out = []
    for c in players:
        if c not in cfg.colours or c in out:
            raise RuleError("bad or repeated colour %r" % (c,))
        out.append(c)
    if not cfg.min_players <= len(out) <= cfg.max_players:
        raise RuleError("players must be %d..%d" % (cfg.min_players, cfg.max_players))
    return out


def _copy(x):
    # A copy of nested lists and dicts (their other values are immutable).
    if isinstance(x, list):
        return [_copy(y) for y in x]
    if isinstance(x, dict):
        d = {}
        for k in x:
            d[k] = _copy(x[k])
        return d
    return x


class HauntedHouse:
    # config: dict from haunted-house.json (or an HHConfig); players: count or
    # colour list in clockwise seat order; exactly one of rng (rules.rng.Rng,
    # shuffles the clue deck) or deck (explicit draw order); start: first player.
    def __init__(self, config, players, rng=None, deck=None, start=0):
        cfg = config if isinstance(config, HHConfig) else HHConfig(config)
        colours = _player_colours(cfg, players)
        n = len(colours)
        if not _is_int(start) or not 0 <= start < n:
            raise RuleError("start player must be 0..%d" % (n - 1))
        if (rng is None) == (deck is None):
            raise RuleError("pass exactly one of rng or deck")
        if deck is None:
            order = list(cfg.deck)
            rng.shuffle(order)
        else:
            from rules.haunted_house_state import check_deck
            order = check_deck(cfg, deck)
        self.cfg = cfg
        self._view = None       # see state_view()
        self.colours = colours
        self.n = n
        self.first = start
        self.round = 1
        self.deck = order
        self.spots = {}
        for s in cfg.clue_spots:
            self.spots[s] = None
        self._refill()
        self.monsters = {}
        for m in cfg.monsters:
            self.monsters[m] = cfg.home[m]
        self._reset_dice()
        self.hits = [self._empty()]
        self.rounds = []
        self.clues = self._empty()
        self.winners = []
        self.active = -1
        self._begin_turn(start)

    # ---- queries ---------------------------------------------------------

    @property
    def to_act(self):
        if self.phase == LAUNCH:
            return self.active
        if self.phase == OVER:
            return None
        return CHANCE

    @property
    def winner(self):
        # The single winner, or None while playing or when the win is shared.
        if len(self.winners) == 1:
            return self.winners[0]
        return None

    def is_over(self):
        return self.phase == OVER

    def round_start_player(self, rnd=None):
        r = self.round if rnd is None else rnd
        if self.cfg.rotate:
            return (self.first + r - 1) % self.n
        return self.first

    def round_total(self, rnd, p):
        row = self.rounds[rnd - 1][p]
        return row[0] + row[1]

    def round_totals(self, p):
        return [self.round_total(r + 1, p) for r in range(len(self.rounds))]

    def clue_total(self, p):
        return sum(self.clues[p])

    def clue_values(self, p):
        # Private: only for the owner's eyes (or the game end reveal).
        return list(self.clues[p])

    def score(self, p):
        # Round points so far; clue points join once the game is over. (Called
        # on every LED frame: builds no lists.)
        t = 0
        for row in self.rounds:
            t += row[p][0] + row[p][1]
        if self.phase == OVER:
            for v in self.clues[p]:
                t += v
        return t

    def final_score(self, p):
        # Round points and clue points.
        t = 0
        for row in self.rounds:
            t += row[p][0] + row[p][1]
        for v in self.clues[p]:
            t += v
        return t

    def final_scores(self):
        return [self.final_score(p) for p in range(self.n)]

    def monsters_hit(self, p, rnd=None):
        r = self.round if rnd is None else rnd
        return list(self.hits[r - 1][p])

    def has_hit(self, p, m):
        # Player p hit monster m this round (no list made).
        return m in self.hits[self.round - 1][p]

    def launched(self, p):
        return self.cfg.dice - self.dice_left[p] + self.summoned[p] - self.due[p]

    def dice_to_enter(self, p):
        return self.on_table[p] - len(self.entries[p])

    def monster_spot(self, m):
        return self.cfg.mspot[m][self.monsters[m]]

    def legal_actions(self):
        # Every legal action, for hosts, bots and tests. The board never lists
        # them (the sensors and the referee supply the actions), so the listing
        # lives in a module loaded only when asked for.
        from rules.haunted_house_host import legal_actions
        return legal_actions(self)

    # ---- actions ---------------------------------------------------------

    def apply(self, action):
        # Every branch checks first and changes state only once the action is
        # known to be legal, so a RuleError leaves the game untouched.
        if not isinstance(action, (tuple, list)) or not action:
            raise RuleError("action must be a non-empty tuple")
        a = tuple(action)
        name = a[0]
        ph = self.phase
        if ph == OVER:
            raise RuleError("the game is over")
        if name == "launch":
            self._need(a, 1, LAUNCH)
            return self._launch()
        if name in ("monster_hit", "clue_taken", "circle", "hole", "off_table", "end_turn"):
            self._need(a, 1 if name == "end_turn" else 2, FLIGHT)
            if name == "end_turn":
                return self._end_turn()
            if name == "monster_hit":
                return self._monster_hit(a[1])
            if name == "clue_taken":
                return self._clue_taken(a[1])
            o = self._player_on_table(a[1])
            if name == "circle":
                return self._circle(o)
            self.on_table[o] -= 1
            return [("die_lost", o, name)]
        if name == "die_result":
            if len(a) not in (3, 4):
                raise RuleError("die_result takes player, face[, realm]")
            self._need(a, len(a), TALLY)
            return self._die_result(a)
        if name == "die_lost":
            self._need(a, 2, TALLY)
            p = self._player_to_enter(a[1])
            self.entries[p].append(None)
            return [("die_lost", p, "round_end")]
        if name == "score_round":
            self._need(a, 1, TALLY)
            for p in range(self.n):
                if self.dice_to_enter(p) > 0:
                    raise RuleError("%d dice of player %d not entered" % (self.dice_to_enter(p), p))
            return self._score_round()
        raise RuleError("unknown action %r" % (name,))

    def _need(self, a, size, phase):
        if len(a) != size:
            raise RuleError("%s takes %d arguments" % (a[0], size - 1))
        if self.phase != phase:
            raise RuleError("%s is not allowed in phase %s" % (a[0], self.phase))

    def _player(self, p):
        if not _is_int(p) or not 0 <= p < self.n:
            raise RuleError("no player %r" % (p,))
        return p

    def _player_on_table(self, p):
        self._player(p)
        if self.on_table[p] <= 0:
            raise RuleError("player %d has no die on the machine" % p)
        return p

    def _player_to_enter(self, p):
        self._player(p)
        if self.dice_to_enter(p) <= 0:
            raise RuleError("player %d has no die left to enter" % p)
        return p

    def _launch(self):
        p = self.active
        if not self.turn_regular and self.dice_left[p] > 0:
            self.dice_left[p] -= 1
            self.turn_regular = True
            kind = "regular"
        elif self.due[p] > 0:
            self.due[p] -= 1
            kind = "summoned"
        else:
            raise RuleError("player %d has no die to launch" % p)
        self.on_table[p] += 1
        self.turn_launches += 1
        self.phase = FLIGHT
        return [("launched", p, kind)]

    def _monster_hit(self, m):
        if not isinstance(m, str) or m not in self.monsters:
            raise RuleError("no monster %r" % (m,))
        p = self.active
        frm = self.monsters[m]
        to = self.cfg.next_level[frm]
        self.monsters[m] = to
        got = self.hits[self.round - 1][p]
        if m not in got:
            # Keep the list in the data's monster order (stable persistence).
            i = 0
            for x in self.cfg.monsters:
                if x == m:
                    break
                if x in got:
                    i += 1
            got.insert(i, m)
        spot = self.cfg.mspot[m][to]
        return [("monster_hit", p, m, len(got)), ("monster_moved", m, frm, to, spot),
                ("clear_spot", spot)]

    def _clue_taken(self, s):
        if not isinstance(s, str) or s not in self.spots:
            raise RuleError("no clue spot %r" % (s,))
        v = self.spots[s]
        if v is None:
            raise RuleError("clue spot %s is empty" % s)
        p = self.active
        self.spots[s] = None
        self.clues[p].append(v)
        return [("clue_taken", p, s, len(self.clues[p]))]

    def _circle(self, o):
        if self.summoned[o] >= self.cfg.limit:
            return [("summon_refused", o)]
        self.summoned[o] += 1
        self.due[o] += 1
        return [("summoned", o, "now" if o == self.active else "next", self.summoned[o])]

    def _end_turn(self):
        p = self.active
        if self.due[p] > 0:
            # Summoned dice are launched at once, within the same turn.
            self.phase = LAUNCH
            return [("extra_launch", p, self.due[p])]
        n = self.n
        for k in range(1, n + 1):
            q = (p + k) % n
            if self.dice_left[q] > 0 or self.due[q] > 0:
                return self._begin_turn(q)
        self.phase = TALLY
        self.active = -1
        self.turn_regular = False
        self.turn_launches = 0
        out = [("round_end", self.round)]
        for q in range(n):
            if self.on_table[q] > 0:
                out.append(("dice_to_enter", q, self.on_table[q]))
        return out

    def _die_result(self, a):
        p = self._player_to_enter(a[1])
        f = a[2]
        if not _is_int(f) or not 1 <= f <= self.cfg.faces:
            raise RuleError("bad face %r" % (f,))
        realm = None
        mult = 1
        if len(a) == 4:
            realm = a[3]
            if not isinstance(realm, str) or realm not in self.cfg.realms:
                raise RuleError("no haunted realm %r" % (realm,))
            mult = self.cfg.realms[realm]
        self.entries[p].append([f, realm])
        return [("die_scored", p, f, mult, f * mult)]

    def _dice_points(self, p):
        t = 0
        for e in self.entries[p]:
            if e is not None:
                t += e[0] * (self.cfg.realms[e[1]] if e[1] is not None else 1)
        return t

    def _score_round(self):
        r = self.round
        out = []
        row = []
        for p in range(self.n):
            d = self._dice_points(p)
            m = self.cfg.mscores[len(self.hits[r - 1][p])]
            row.append([d, m])
            out.append(("round_scored", r, p, d, m, d + m))
        self.rounds.append(row)
        if r >= self.cfg.rounds:
            return out + self._finish()
        out.append(("collect_dice",))
        for m in self.cfg.monsters:
            lv = self.monsters[m]
            home = self.cfg.home[m]
            if lv != home:
                self.monsters[m] = home
                out.append(("monster_home", m, lv, home, self.cfg.mspot[m][home]))
        self._reset_dice()
        out += self._refill()
        self.round = r + 1
        self.hits.append(self._empty())
        q = self.round_start_player()
        out.append(("round_start", self.round, q))
        return out + self._begin_turn(q)

    def _finish(self):
        self.phase = OVER
        self.active = -1
        self.turn_regular = False
        self.turn_launches = 0
        z = [0] * self.n
        self.dice_left = list(z)
        self.summoned = list(z)
        self.due = list(z)
        self.on_table = list(z)
        self.entries = self._empty()
        self.winners = self._compute_winners()
        out = []
        for p in range(self.n):
            out.append(("clues_revealed", p, tuple(self.clues[p]), self.clue_total(p)))
        totals = self.final_scores()
        last = len(self.rounds)
        for p in range(self.n):
            out.append(("final_score", p, totals[p], self.round_total(last, p)))
        out.append(("game_over", tuple(self.winners)))
        return out

    def _compute_winners(self):
        # Most points wins; a tie goes to the most points in the final round;
        # players still level share the win.
        totals = self.final_scores()
        best = max(totals)
        tied = [p for p in range(self.n) if totals[p] == best]
        if len(tied) > 1:
            last = len(self.rounds)
            lb = max([self.round_total(last, p) for p in tied])
            tied = [p for p in tied if self.round_total(last, p) == lb]
        return tied

    # ---- helpers ---------------------------------------------------------

    def _empty(self):
        return [[] for _ in range(self.n)]

    def _reset_dice(self):
        n = self.n
        self.dice_left = [self.cfg.dice] * n
        self.summoned = [0] * n
        self.due = [0] * n
        self.on_table = [0] * n
        self.entries = self._empty()

    def _refill(self):
        out = []
        for s in self.cfg.clue_spots:
            if self.spots[s] is None and self.deck:
                self.spots[s] = self.deck.pop(0)
                out.append(("clue_placed", s))
        return out

    def _begin_turn(self, p):
        self.active = p
        self.turn_regular = False
        self.turn_launches = 0
        self.phase = LAUNCH
        return [("turn", p, self.round)]

    def setup_effects(self):
        # What the players place before the first launch (prompts for the table).
        out = []
        for m in self.cfg.monsters:
            out.append(("monster_home", m, self.monsters[m], self.monsters[m], self.monster_spot(m)))
        for s in self.cfg.clue_spots:
            if self.spots[s] is not None:
                out.append(("clue_placed", s))
        out.append(("turn", self.active, self.round))
        return out

    # ---- persistence -----------------------------------------------------

    def state_view(self):
        # The state as saved: a dict owned by the game, refreshed in place on
        # each call (no new dict), whose lists and dicts are the game's own (no
        # copies). For a save: serialise it at once; never keep or change it.
        v = self._view
        if v is None:
            v = self._view = {"game": GAME, "v": STATE_VERSION}
        for k in STATE_KEYS:
            v[k] = getattr(self, k)
        return v

    def to_dict(self):
        # An independent copy of the state (JSON-serialisable).
        return _copy(self.state_view())

    def to_public_dict(self):
        # Everything a spectator may see (the host's "state", which a host may
        # poll ten times a second: so here, not in a module loaded per call).
        # Clue values stay hidden until the end.
        d = self.to_dict()
        del d["deck"]
        d["deck_left"] = len(self.deck)
        spots = {}
        for s in self.spots:
            spots[s] = self.spots[s] is not None
        d["spots"] = spots
        d["clue_counts"] = [len(c) for c in self.clues]
        if self.phase != "over":
            del d["clues"]
        d["scores"] = [self.score(p) for p in range(self.n)]
        d["winners"] = list(self.winners)
        return d

    @classmethod
    def from_dict(cls, config, d):
        # Validates and rebuilds a saved game (once per boot: the checks are
        # loaded for it and dropped again).
        from rules.haunted_house_state import load
        try:
            return load(cls, config, d)
        finally:
            unload("rules.haunted_house_state")

