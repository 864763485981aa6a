# Boxtop Pinball: Haunted House controller: binds the rules to the instrumented
# table, the NeoPixel displays and the button panel.
#
# One turn:
#   1. wait for the launch: the launch-pad beam, the first sensor event that
#      matters, or the player's CONFIRM ("launched"; the prompt is
#      "launch_press" when there is no working launch beam: press, then flick);
#   2. the turn window: every sensor event until the table has been quiet for
#      quiet_ms (or CONFIRM). Monster hits and clues are credited at once to the
#      active player (the rules say so, whoever's die touched them); circle
#      entries and dice through holes are collected;
#   3. whose die entered the circle / fell through a hole: asked only when more
#      than one player has dice on the machine (active player offered first);
#   4. if an expander was down (or the player chose "add" instead of CONFIRM),
#      the referee adds what the sensors missed;
#   5. the spots where monsters must go light up until the sensors see the
#      standees there (or CONFIRM); then the turn ends and the game is saved.
# Round end: for each die still counted, the referee enters its face and realm;
# dice reported through holes are already counted as lost. Then the monsters go
# home and empty clue spots are lit until refilled.

import asyncio

from devices.table import TurnWindow
from rules.errors import RuleError
from rules.haunted_house import HauntedHouse
from rules.haunted_house_cfg import HHConfig
from ram import collect, hold_collections, release_collections, unload

SAVE_NAME = "haunted-house"
SETTLE_MS = 10      # > the longest LED write (~3 ms, interrupts off) + decision time
# Actions and option lists used every turn, made once.
_LAUNCH = ("launch",)
_END_TURN = ("end_turn",)
_ADD = ("add",)
_LAUNCHED = [("launched",)]
_FLIGHT = [("confirm",), _ADD]
_CONFIRM = [("confirm",)]


def _rare(name, *args):
    # Runs games.haunted_rare.<name>(*args): building the controller and
    # starting or resuming a game are loaded for the call and dropped again, so
    # on the board they cost no RAM during play.
    import games.haunted_rare as r
    try:
        return getattr(r, name)(*args)
    finally:
        unload("games.haunted_rare")


def create(app):
    return _rare("create", app)


async def _stop(task):
    # Cancel a helper task (a pending prompt) and let it finish (its cleanup
    # must run before the next prompt). Polling instead of awaiting the task
    # keeps a cancellation of our own task from being swallowed here.
    if task.done():
        return
    task.cancel()
    for _ in range(100):
        if task.done():
            return
        await asyncio.sleep_ms(0)


class HauntedController:
    name = "haunted-house"
    save_name = SAVE_NAME
    min_players = 1
    max_players = 4
    # Set up by games.haunted_rare.init() (annotations for the type checker:
    # MicroPython compiles them to nothing).
    build: object
    cfg: HHConfig
    game: HauntedHouse | None
    window: TurnWindow
    colours: list
    spot_monster: dict
    realm_opts: list
    face_opts: list
    pending: dict
    refill: list
    preview: tuple | None
    entering: int
    fault: bool
    hit_now: list
    taken_now: list
    circles: int
    holes: list
    hole_lost: list
    turns: int
    answer: tuple | None
    _blind: bool
    _downs: int
    _saved: dict
    windows: dict
    sensing: bool

    def __init__(self, data, table, scoreboard, decider, bus, store, rng, quiet_ms=1500,
                 place_ms=300, window_max_ms=30000):
        self.table = table
        self.scoreboard = scoreboard
        self.decider = decider
        self.bus = bus
        self.store = store
        self.rng = rng
        self.place_ms = place_ms
        _rare("init", self, data, quiet_ms, window_max_ms)

    # ---- setup -----------------------------------------------------------

    def tasks(self):
        return [self.table.run()]

    def public_state(self):
        return self.game.to_public_dict() if self.game is not None else None

    def new_game(self, players, start=0, options=None):
        _rare("new_game", self, players, start, options)

    def resume(self, saved):
        _rare("resume", self, saved)

    def save(self):
        # state_view(): the engine's state without copying its lists; the outer
        # dict is kept and refilled (a save builds no dicts but the rng's).
        s = self._saved
        s["game"] = self.game.state_view()
        s["rng"] = self.rng.to_dict()
        s["hole_lost"] = self.hole_lost
        self.store.save(SAVE_NAME, s)

    # ---- helpers ---------------------------------------------------------

    def render(self):
        if self.game is not None:
            self.fault = self.table.any_faulted()
            self.scoreboard.render(self.game, self)

    def _watch(self, ev):
        # Expander faults come from the table task: show them at once.
        if ev[0] == "fault" and len(ev) > 1 and ev[1] in ("expander", "expander_ok"):
            self.render()

    def _highlight(self, option):
        cur = self.decider.current
        self.preview = (cur[1], option) if cur is not None and option else None
        self.render()

    def _apply(self, action):
        try:
            effects = self.game.apply(action)
        except RuleError as e:
            # A sensor reading the rules cannot take (should not happen: the
            # controller only offers legal ones); report it, never crash.
            self.bus.publish(("rejected", action, str(e)))
            return []
        for e in effects:
            self.bus.publish(e)
        self.render()
        return effects

    async def _quiet_panel(self, limit_ms=2000):
        # A press that started before a question was shown must not answer it
        # (e.g. CONFIRM pressed just as the table went quiet on its own): wait
        # until every button is released and settled, then drop what was pressed.
        panel = self.decider.panel
        waited = 0
        while waited < limit_ms:
            panel.drain()
            busy = False
            for name in panel.buttons:
                b = panel.buttons[name]
                if b.active() or b.settle_wait_ms():
                    busy = True
            if not busy:
                return
            await asyncio.sleep_ms(10)
            waited += 10

    async def _ask(self, kind, player, options):
        try:
            await self._quiet_panel()
            self.answer = None
            self.answer = await self.decider.ask(kind, player, options)
            return self.answer
        finally:
            self.preview = None
            self.table.wake()

    def _ask_task(self, kind, player, options):
        return asyncio.create_task(self._ask(kind, player, options))

    def _seats_from(self, p):
        n = self.game.n
        return [(p + k) % n for k in range(n)]

    # ---- which sensor events matter ----------------------------------------

    def _relevant(self, ev):
        name = ev[0]
        kind = ev[1]
        if kind == "hole" or kind == "circle":
            return True
        if kind == "launch":
            return False
        m = self.spot_monster.get(name)
        g = self.game
        if m is not None:
            return (g.monster_spot(m) == name and m not in self.pending
                    and m not in self.hit_now)
        if name in g.spots:
            return (g.spots[name] is not None and name not in self.refill
                    and name not in self.taken_now)
        return False

    def _on_event(self, ev):
        name = ev[0]
        kind = ev[1]
        if kind == "launch":
            return
        if not self._relevant(ev):
            self.bus.publish(("ignored", name))
            return
        self.bus.publish(("seen", name, kind))
        if kind == "hole":
            self.holes.append(name)
            return
        if kind == "circle":
            self.circles += 1
            return
        m = self.spot_monster.get(name)
        if m is not None:
            self.hit_now.append(m)
            for e in self._apply(("monster_hit", m)):
                if e[0] == "monster_moved":
                    self.pending[m] = e[4]
            return
        self.taken_now.append(name)
        self._apply(("clue_taken", name))

    # ---- the game loop ---------------------------------------------------

    async def play(self):
        g = self.game
        await self._place(g.active if g.active >= 0 else 0)
        while not g.is_over():
            await self.step()
        self.render()
        return g.winner

    async def step(self):
        g = self.game
        if g.phase == "launch":
            await self.turn()
        elif g.phase == "round_end":
            await self.round_end()
        elif g.phase == "flight":
            # Only a hand-made save can stop mid-flight: that die has landed.
            self._apply(("end_turn",))
            self.save()
        else:
            raise RuleError("unexpected phase %s" % g.phase)

    # A turn is a sequence of awaits (prompts, the turn window, placing); the
    # work between them is in the plain methods _turn_start, _settled,
    # _launched, _flown, _window_closed, _owner_candidates, _credit_owner,
    # _place_* and _turn_end, which the VM benchmark (sim/bench_vm_haunted.py)
    # calls in the same order without an event loop.

    def sensors_live(self):
        # Why a flash write must wait now (None: it need not). Erasing and
        # programming the flash run with interrupts off on the rp2 port: from
        # the start of a turn (waiting for the launch) until its window closes
        # every sensor edge matters, and one timed late or lost is a wrong
        # credit. Owners, placing and the round end ask people: not live.
        if self.sensing:
            return "a turn is in play (the table's sensors are live): try again after the turn"
        return None

    async def turn(self):
        p = self._turn_start()
        self.sensing = True
        hold_collections()          # _turn_start collected: none until the window closes
        try:
            await asyncio.sleep_ms(SETTLE_MS)
            self._settled()
            first, reason = await self._launch_and_window(p)
        finally:
            self.sensing = False
            release_collections()
            self.scoreboard.hold_score = False
            self.render()
        add = self._window_closed(reason)
        doubt = self.table.doubtful()
        if doubt is not None:
            # A pattern no real hit or glitch makes: say so, and let the
            # referee add what the sensors may have missed.
            self.bus.publish(("fault", "sensor_doubt", doubt))
        await self._owners(p)
        if add or self._blind or doubt is not None:
            # An expander was down during this turn (its sensors saw nothing),
            # the sensors were doubtful, or the referee asked to add something.
            await self._manual(p)
        await self._place(p)
        self._turn_end()

    def _turn_start(self):
        p = self.game.active
        # The game's own lists, emptied in place (no new lists every turn).
        self.hit_now.clear()
        self.taken_now.clear()
        self.circles = 0
        self.holes.clear()
        self.render()
        # Collect before the launch: a collection takes several ms on the rp2
        # port, and gc.threshold (app.GC_THRESHOLD) would otherwise start one
        # every other turn or so, some while a die is moving, on top of a
        # hit's edge-to-LED time; turn() holds the threshold's collections
        # until the window closes (ram.hold_collections).
        collect()
        # From here until the window closes a die may be moving: keep the
        # interrupts-off time of the long LED chain away from sensor edges.
        self.scoreboard.hold_score = True
        return p

    def _settled(self):
        # After SETTLE_MS: the last write may have stretched a glitch that
        # straddled it (its closing edge was time-stamped late): let such
        # pulses be decided, then forget everything seen before the prompt.
        self.table.step()
        self.table.clear_events()

    def _window_closed(self, reason):
        # Returns True if the referee asked to add something ("add").
        self.windows[reason] = self.windows.get(reason, 0) + 1
        self.bus.publish(("window", "closed", reason, self.window.count, self.window.length_ms))
        return reason == "confirm" and self.answer == _ADD

    def _turn_end(self):
        self._apply(_END_TURN)
        self.turns += 1
        self.save()

    async def _launch_and_window(self, p):
        # With the launch-pad beam working the players just flick; without it
        # (not fitted, or its expander is down) they press CONFIRM, then flick.
        kind = "launch" if self.table.line_ok("launch") else "launch_press"
        ask = self._ask_task(kind, p, _LAUNCHED)
        try:
            first = await self.window.wait_start(self._relevant, ask.done)
        finally:
            await _stop(ask)
        self._launched(p, first)
        # CONFIRM ends the turn early; RIGHT + CONFIRM ("add") ends it and lets
        # the referee add something the sensors could not see.
        ask = self._ask_task("flight", p, _FLIGHT)
        try:
            reason = await self.window.run(self._on_event, ask.done, first)
        finally:
            await _stop(ask)
        self._flown()
        return first, reason

    def _launched(self, p, first):
        self._apply(_LAUNCH)
        self.table.mark_noise()
        self._downs = self.table.downs
        self._blind = self.table.any_faulted()
        how = "confirm" if first is None else ("beam" if first[1] == "launch" else "sensor")
        self.bus.publish(("window", "open", p, how))

    def _flown(self):
        t = self.table
        self._blind = self._blind or t.any_faulted() or t.downs != self._downs

    async def _owner(self, kind, p, where):
        # Whose die? Only asked when several players have dice on the machine.
        cands = self._owner_candidates(kind, p, where)
        if cands is None:
            return -1
        if len(cands) == 1:
            return cands[0][1]
        self.bus.publish((kind, where))
        choice = await self._ask(kind, p, cands)
        return choice[1]

    def _owner_candidates(self, kind, p, where):
        # [("owner", q)] for the players with dice on the machine, p first; None
        # (reported) if there is none.
        g = self.game
        cands = [("owner", q) for q in self._seats_from(p) if g.on_table[q] > 0]
        if not cands:
            self.bus.publish(("rejected", (kind, where), "no die on the machine"))
            return None
        return cands

    async def _owners(self, p):
        for _ in range(self.circles):
            o = await self._owner("circle_owner", p, "summoning_circle")
            self._credit_owner("circle", o)
        for h in self.holes:
            o = await self._owner("hole_owner", p, h)
            self._credit_owner("hole", o)

    def _credit_owner(self, kind, o):
        if o < 0:
            return
        if kind == "circle":
            self._apply(("circle", o))
        elif self._apply(("hole", o)):
            self.hole_lost[o] += 1

    async def _manual(self, p):
        # An expander is down: the referee adds what its sensors could not see.
        g = self.game
        self.bus.publish(("manual", p, tuple(self.table.faulted())))
        while True:
            opts = [("done",)]
            for m in self.cfg.monsters:
                if m not in self.hit_now:
                    opts.append(("monster_hit", m))
            for s in self.cfg.clue_spots:
                if g.spots[s] is not None:
                    opts.append(("clue_taken", s))
            for q in self._seats_from(p):
                if g.on_table[q] > 0:
                    opts.append(("circle", q))
                    opts.append(("hole", q))
            choice = await self._ask("manual", p, opts)
            if choice == ("done",):
                return
            effects = self._apply(choice)
            for e in effects:
                if e[0] == "monster_moved":
                    self.hit_now.append(e[1])
                    self.pending[e[1]] = e[4]
                elif e[0] == "die_lost" and e[2] == "hole":
                    self.hole_lost[e[1]] += 1

    async def _place(self, p):
        # Light the spots where a monster or a clue must go and wait until the
        # sensors see each one in place for place_ms, or CONFIRM.
        want = self._place_start()
        if want is None:
            return
        ask = self._ask_task("place", p, _CONFIRM)
        try:
            while True:
                wait = self._place_poll(want)
                if not want or ask.done():
                    break
                await self.table.wait_change(wait)
        finally:
            await _stop(ask)
        self._place_end(want)

    def _place_start(self):
        # The spots to watch (a list the polls shrink), or None if none.
        if not self.pending and not self.refill:
            return None
        want = [self.pending[m] for m in self.pending] + self.refill
        self.bus.publish(("place", tuple(want)))
        self.render()
        return want

    def _place_poll(self, want):
        # Takes the spots now seen in place out of want; returns how long (ms)
        # to wait for the next change.
        t = self.table
        t.step()
        wait = 1000
        i = 0
        while i < len(want):
            s = want[i]
            if t.resting(s, self.place_ms):
                self._placed(s)
            else:
                w = t.rest_wait_ms(s, self.place_ms)
                if 0 <= w < wait:
                    wait = w
            if self._waiting_for(s):
                i += 1
            else:
                want.pop(i)
        return wait

    def _place_end(self, want):
        if want:
            self.bus.publish(("place_confirmed", tuple(want)))
        self.pending.clear()
        self.refill.clear()
        self.render()

    def _waiting_for(self, spot):
        if spot in self.refill:
            return True
        for m in self.pending:
            if self.pending[m] == spot:
                return True
        return False

    def _placed(self, spot):
        if not self._waiting_for(spot):
            return
        self.bus.publish(("placed", spot))
        if spot in self.refill:
            self.refill.remove(spot)
        for m in list(self.pending):
            if self.pending[m] == spot:
                del self.pending[m]
        self.render()

    async def round_end(self):
        g = self.game
        for p in range(g.n):
            if not self._enter_start(p):
                continue
            while g.dice_to_enter(p) > 0:
                face = await self._ask("face", p, self.face_opts)
                if face == ("lost",):
                    self._enter(p, face, None)
                    continue
                realm = await self._ask("realm", p, self.realm_opts)
                self._enter(p, face, realm)
        if self._round_scored():
            await self._place(g.active)

    def _enter_start(self, p):
        # Player p's dice are to be entered (False: none).
        g = self.game
        if g.dice_to_enter(p) <= 0:
            return False
        self.entering = p
        self.bus.publish(("enter_dice", p, g.dice_to_enter(p), self.hole_lost[p]))
        self.render()
        return True

    def _enter(self, p, face, realm):
        # face: ("face", f) or ("lost",); realm: ("realm", id|"none", mult).
        if face[0] == "lost":
            self._apply(("die_lost", p))
        elif realm[1] == "none":
            self._apply(("die_result", p, face[1]))
        else:
            self._apply(("die_result", p, face[1], realm[1]))

    def _round_scored(self):
        # Scores the round and saves; True if pieces are to be placed next.
        g = self.game
        self.entering = -1
        effects = self._apply(("score_round",))
        hl = self.hole_lost
        for i in range(len(hl)):
            hl[i] = 0
        for e in effects:
            if e[0] == "monster_home":
                self.pending[e[1]] = e[4]
            elif e[0] == "clue_placed":
                self.refill.append(e[1])
        self.save()
        if not g.is_over():
            return True
        self.pending.clear()
        self.refill.clear()
        self.render()
        return False
