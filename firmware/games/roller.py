# Roller Ghoster controller: binds the rules to the tower, the LEDs and the panel.
# One turn: ROLL press -> die -> (choice) -> move -> on an arrow the tower turns
# one notch and the beams say which staircases a ball came down -> knock-downs.
# State is saved after every completed turn, so a reset loses nothing.

import asyncio

from rules.errors import CHANCE
from rules.roller_ghoster import FACES, RollerGhoster
from devices.tower import JAM
from games.events import report_leds
from ram import collect, hold_collections, release_collections, unload

SAVE_NAME = "roller-ghoster"


def create(app):
    from devices.roller_build import build_roller
    from games.decide import Decider
    layout_cfg = app.read_json("data/roller-ghoster.json")
    try:
        build = build_roller(app.open_board("roller-ghoster"), layout_cfg, app.settings)
    finally:
        unload("devices.roller_build")      # wiring is done once: not kept in RAM
    decider = Decider(build.panel, app.bus)
    # The rules use the build's Layout (one per boot, not one per game), and
    # the data file is garbage once the build is made.
    c = RollerController(build.layout, build.tower, build.display, decider, app.bus, app.store,
                         app.rng, build.colours)
    c.build = build
    c.physical_die = app.settings.get("roller-ghoster.die") == "physical"
    build.beams.on_ball = c.on_ball
    build.beams.on_stuck = c.on_beam_stuck
    build.beams.on_irq_error = c.on_irq_error
    build.tower.on_irq_error = c.on_irq_error
    return c


class RollerController:
    name = "roller-ghoster"
    save_name = SAVE_NAME
    min_players = 2
    max_players = 4

    def __init__(self, layout, tower, display, decider, bus, store, rng, colours):
        # layout: a rules.roller_layout.Layout (or its data, which each game
        # would then build again).
        self.build = None
        self.layout = layout
        self.tower = tower
        self.display = display
        self.decider = decider
        self.bus = bus
        self.store = store
        self.rng = rng
        self.colours = colours
        self.game = None
        self.die_show_ms = 400
        self.faults = 0
        self.turns = 0
        self.led_fault = False
        self.quiet = None            # rotations in a row without a ball, per staircase
        self.suspect = ()            # staircases whose beam looks dead (no emitter test)
        self.dead = ()               # staircases whose receiver failed the emitter test
        self.dead_after = 12         # rotations without a ball while the others saw some
        self.sensing = False         # a turn's balls are being counted (sensors_live)
        self.physical_die = False    # the players roll the real die and enter its face
        decider.on_highlight = self._highlight

    # ---- setup -----------------------------------------------------------

    def tasks(self):
        # Device tasks that run for as long as this game is loaded.
        b = self.tower.beams
        return [b.run(), b.tick()]

    def on_ball(self, staircase, count):
        # Called from the beam task as soon as a ball is counted: show it now.
        if self.game is not None:
            strip = self.display.strip
            before = strip.failures
            self.display.flash_ball(staircase)
            report_leds(self, strip, before, "LED strip")
        else:
            self.display.balls |= 1 << (staircase - 1)
        self.bus.publish(("ball", staircase, count))

    def on_beam_stuck(self, staircase, stuck):
        # A beam blocked for longer than a ball takes (or clear again).
        self.bus.publish(("fault", "beam_stuck" if stuck else "beam_ok", staircase))

    def on_irq_error(self, where, errors):
        # An input's interrupt handler raised (caught in drivers/edges.py, so
        # the IRQ stays armed): a fault the host sees, not a beam gone quiet.
        # where: a staircase number, or "notch".
        self.faults += 1
        self.bus.publish(("fault", "irq", where, errors))

    def public_state(self):
        return self.game.to_dict() if self.game is not None else None

    def new_game(self, players, start=0, options=None):
        self.game = RollerGhoster(self.layout, players, start)
        self.bus.publish(("game", "roller-ghoster", players, start))
        self.bus.publish(("turn", start))
        self.save()
        self.render()

    def resume(self, saved):
        # saved: dict from the store; raises RuleError/ValueError if invalid.
        game = RollerGhoster.from_dict(self.layout, saved.get("game"))
        from rules.rng import Rng
        self.rng = Rng.saved_or(saved, self.rng)
        self.game = game
        self.bus.publish(("resumed", "roller-ghoster", game.players, game.turn))
        self.render()

    def save(self):
        self.store.save(SAVE_NAME, {"game": self.game.to_dict(), "rng": self.rng.to_dict()})

    # ---- helpers ---------------------------------------------------------

    def _highlight(self, option):
        g = self.game
        self.display.highlight = g.preview(option) if g is not None and option else None
        # Entering the real die's face: its LED in the die row shows the choice.
        self.display.face = option[1] if option and option[0] == "roll" and len(option) > 1 else None
        if g is not None:
            self.render()

    def _apply(self, action):
        effects = self.game.apply(action)
        done = False
        for e in effects:
            self.bus.publish(e)
            if e[0] == "turn" or e[0] == "win":
                done = True
        if done:
            self.turns += 1
            self.save()
        self.display.highlight = None
        self.display.face = None
        self.render()
        return effects

    def render(self):
        strip = self.display.strip
        before = strip.failures
        self.display.render(self.game)
        report_leds(self, strip, before, "LED strip")

    def watch_beams(self, counts):
        # A dead receiver reads "clear" forever, which looks like "no ball". Flag a
        # staircase that stays silent for many rotations while the others see balls.
        n = len(counts)
        if self.quiet is None:
            self.quiet = [0] * n
            self.seen_others = [0] * n
        total = sum(counts)
        suspects = []
        for k in range(n):
            if counts[k]:
                self.quiet[k] = 0
                self.seen_others[k] = 0
            else:
                self.quiet[k] += 1
                self.seen_others[k] += total
            if self.quiet[k] >= self.dead_after and self.seen_others[k] >= self.dead_after:
                suspects.append(k + 1)
        suspects = tuple(suspects)
        for k in suspects:
            if k not in self.suspect and k not in self.dead:
                self.faults += 1
                self.bus.publish(("fault", "beam_silent", k))
        self.suspect = suspects

    def fault(self, code, detail=None):
        self.faults += 1
        self.display.fault = True
        self.render()
        self.bus.publish(("fault", code, detail))

    def clear_fault(self):
        if self.display.fault:
            self.display.fault = False
            self.render()

    # ---- the turn loop ---------------------------------------------------

    async def play(self):
        g = self.game
        while not g.is_over():
            await self.step()
        return g.winner

    async def step(self):
        g = self.game
        if g.to_act == CHANCE:
            if g.phase == "roll":
                if self.physical_die:
                    # The players rolled the real die: LEFT/RIGHT pick the face
                    # it shows (its LED lights), ROLL confirms; or the host's act.
                    self._apply(await self.decider.ask("die", g.turn, g.legal_actions()))
                    return
                await self.decider.ask("roll", g.turn, [("roll",)])
                face = FACES[self.rng.below(len(FACES))]
                self._apply(("roll", face))
                await asyncio.sleep_ms(self.die_show_ms)
            else:
                stairs = await self.turn_tower()
                self._apply(("balls", stairs))
            return
        actions = g.legal_actions()
        if len(actions) == 1:
            self._apply(actions[0])
            return
        choice = await self.decider.ask(g.phase, g.turn, actions)
        self._apply(choice)

    def sensors_live(self):
        # Why a flash write must wait now (None: it need not). Erasing and
        # programming the flash run with interrupts off on the rp2 port, so a
        # ball's beam pulse could be lost: from the emitter test before a
        # turn until its balls are counted (the settle window, the manual
        # turn after a jam and its settle window included).
        if self.tower.turning:
            return "the tower is turning: try again after the rotation"
        if self.sensing:
            return "the balls of this turn are still being counted: try again after the rotation"
        return None

    async def turn_tower(self):
        self.sensing = True
        try:
            return await self._turn_tower()
        finally:
            self.sensing = False
            release_collections()

    async def _turn_tower(self):
        tower = self.tower
        if not tower.reservoir_full():
            self.bus.publish(("reservoir", "refill"))
            while not tower.reservoir_full():
                await self.decider.ask("refill", self.game.turn, [("confirm",)])
        dead = await tower.beams.test_receivers()
        for k in dead:
            if k not in self.dead:
                self.faults += 1
                self.bus.publish(("fault", "beam_dead", k))
        self.dead = dead
        # Collect before the tower turns: a collection takes ~6 ms on the rp2
        # port, and gc.threshold (app.GC_THRESHOLD) would otherwise start one
        # every few turns while balls are being counted, on top of a ball's
        # edge-to-LED time (2% of the balls, 2026-12-02); and none from here
        # until the balls are counted (the host's replies may allocate past
        # the threshold meanwhile): released once they are, and by turn_tower's
        # finally if the rotation fails.
        collect()
        hold_collections()
        self.bus.publish(("rotating",))
        status, counts = await tower.rotate()
        release_collections()
        if status == JAM:
            self.fault("jam", "no notch after retry: turn the tower one notch by hand, then confirm")
            await self.decider.ask("manual_turn", self.game.turn, [("confirm",)])
            self.clear_fault()
            collect()
            hold_collections()
            await tower.collect()
            release_collections()
            counts = tower.beams.counts()
        self.display.balls = 0
        self.sensing = False         # counted: what follows are questions to the players
        self.bus.publish(("rotated", counts))
        if tower.beams.emitters is None:
            # Without the emitter test, silence over many rotations is the only clue.
            self.watch_beams(counts)
        stairs = [k + 1 for k in range(len(counts)) if counts[k] > 0]
        unsure = list(tower.beams.stuck())
        for k in tower.beams.doubtful():
            # Too many glitches, or a pulse no single ball makes: say so and ask.
            self.bus.publish(("fault", "beam_doubt", k))
            if k not in unsure:
                unsure.append(k)
        for k in self.suspect + self.dead:
            if k not in unsure:
                unsure.append(k)
        for k in unsure:
            # A stuck (or silent) beam cannot be trusted: the players say what happened.
            if k in stairs:
                stairs.remove(k)
            ans = await self.decider.ask("ball_on_%d" % k, self.game.turn, [("no",), ("yes",)])
            if ans == ("yes",):
                stairs.append(k)
        stairs.sort()
        return tuple(stairs)
