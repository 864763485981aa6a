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

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

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
# A refused action's message, by its number in rules.haunted_house_rare.MESSAGES.
_E_ACTION = const(0)
_E_OVER = const(1)
_E_DIE_RESULT = const(2)
_E_UNKNOWN = const(4)
_E_SIZE = const(5)
_E_PHASE = const(6)
_E_PLAYER = const(7)
_E_NOT_ON = const(8)
_E_NO_ENTRY = const(9)
_E_NO_LAUNCH = const(10)
_E_MONSTER = const(11)
_E_SPOT = const(12)
_E_EMPTY = const(13)
_E_FACE = const(14)
_E_REALM = const(15)


def _rare(name, *args):
    # Runs rules.haunted_house_rare.<name>(*args): what a turn never needs
    # (setup, round scoring, the game's end, copies of the state, the messages)
    # is loaded for the call and dropped again, so on the board it costs no
    # RAM during play.
    import rules.haunted_house_rare as r
    try:
        return getattr(r, name)(*args)
    finally:
        unload("rules.haunted_house_rare")


def _bad(i, args=None):
    # The RuleError of a refused action, its text looked up in the rare module.
    import rules.haunted_house_rare as r
    m = r.MESSAGES[i]
    unload("rules.haunted_house_rare")
    return RuleError(m if args is None else m % args)


class HauntedHouse:
    # config: dict from haunted-house.json (or an HHConfig); players: count or
    # colour list in clockwise seat order; exactly one of rng (rules.rng.Rng,
    # shuffles the clue deck) or deck (explicit draw order); start: first player.
    # The state, set up by rules.haunted_house_rare.setup() (these annotations
    # are for the type checker: MicroPython compiles them to nothing).
    cfg: HHConfig
    colours: list
    n: int
    first: int
    round: int
    phase: str
    active: int
    turn_regular: bool
    turn_launches: int
    dice_left: list
    summoned: list
    due: list
    on_table: list
    entries: list
    monsters: dict
    hits: list
    rounds: list
    deck: list
    spots: dict
    clues: list
    winners: list
    _view: dict | None

    def __init__(self, config, players, rng=None, deck=None, start=0):
        _rare("setup", self, config, players, rng, deck, start)

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
        return _rare("round_start_player", self, rnd)

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
            raise _bad(_E_ACTION)
        a = tuple(action)
        name = a[0]
        ph = self.phase
        if ph == OVER:
            raise _bad(_E_OVER)
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
                raise _bad(_E_DIE_RESULT)
            self._need(a, len(a), TALLY)
            return self._die_result(a)
        if name == "die_lost":
            self._need(a, 2, TALLY)
            p = self._player_to_enter(a[1])
            self.entries[p].append(None)
            return [("die_lost", p, "round_end")]
        if name == "score_round":
            self._need(a, 1, TALLY)
            return _rare("score_round", self)
        raise _bad(_E_UNKNOWN, (name,))

    def _need(self, a, size, phase):
        if len(a) != size:
            raise _bad(_E_SIZE, (a[0], size - 1))
        if self.phase != phase:
            raise _bad(_E_PHASE, (a[0], self.phase))

    def _player(self, p):
        if type(p) is not int or not 0 <= p < self.n:
            raise _bad(_E_PLAYER, (p,))
        return p

    def _player_on_table(self, p):
        self._player(p)
        if self.on_table[p] <= 0:
            raise _bad(_E_NOT_ON, p)
        return p

    def _player_to_enter(self, p):
        self._player(p)
        if self.dice_to_enter(p) <= 0:
            raise _bad(_E_NO_ENTRY, p)
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
            raise _bad(_E_NO_LAUNCH, p)
        self.on_table[p] += 1
        self.turn_launches += 1
        self.phase = FLIGHT
        return [("launched", p, kind)]

    def _monster_hit(self, m):
        if not isinstance(m, str) or m not in self.monsters:
            raise _bad(_E_MONSTER, (m,))
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
            raise _bad(_E_SPOT, (s,))
        v = self.spots[s]
        if v is None:
            raise _bad(_E_EMPTY, s)
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
        if type(f) is not int or not 1 <= f <= self.cfg.faces:
            raise _bad(_E_FACE, (f,))
        realm = None
        mult = 1
        if len(a) == 4:
            realm = a[3]
            if not isinstance(realm, str) or realm not in self.cfg.realms:
                raise _bad(_E_REALM, (realm,))
            mult = self.cfg.realms[realm]
        self.entries[p].append([f, realm])
        return [("die_scored", p, f, mult, f * mult)]

    # ---- helpers ---------------------------------------------------------

    def _empty(self):
        return [[] for _ in range(self.n)]

    def _begin_turn(self, p):
        self.active = p
        self.turn_regular = False
        self.turn_launches = 0
        self.phase = LAUNCH
        return [("turn", p, self.round)]

    def setup_effects(self):
        # What the players place before the first launch (prompts for the table).
        return _rare("setup_effects", self)

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
        return _rare("to_dict", self)

    def to_public_dict(self):
        # Everything a spectator may see (the host's "state"); clue values stay
        # hidden until the end.
        return _rare("to_public_dict", self)

    @classmethod
    def from_dict(cls, config, d):
        # Validates and rebuilds a saved game (once per boot: the checks are
        # loaded for it and dropped again).
        return _rare("from_dict", cls, config, d)
