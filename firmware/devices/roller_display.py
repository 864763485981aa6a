# LEDs of the Roller Ghoster build: one under each step (in the layout's climbing
# order), one per trench, one per die face, one per player seat. Colours are
# ghost colours; the strip is only written when the picture changed.

COLOURS = {
    "red": (255, 0, 0), "blue": (0, 60, 255), "green": (0, 255, 40),
    "yellow": (255, 180, 0), "white": (255, 255, 255), "off": (0, 0, 0),
}
FAULT = (255, 0, 0)
HIGHLIGHT = (255, 255, 255)
DIE_ORDER = ("1", "2", "3", "1a", "2a", "ghost")


class RollerDisplay:
    # The LED under a step is its index in the layout's climbing order.
    def __init__(self, strip, layout, pixel_cfg, colours):
        self.strip = strip
        self.layout = layout
        self.colours = [COLOURS.get(c, COLOURS["white"]) for c in colours]
        self.steps_from = pixel_cfg.get("steps_from", 0)
        self.trench_from = pixel_cfg["trenches_from"]
        self.die_from = pixel_cfg["die_from"]
        self.players_from = pixel_cfg["players_from"]
        self.fault = False
        self.highlight = None
        self.face = None        # a die face being entered (the physical die), not yet rolled
        self.balls = 0          # bit k-1 set: a ball was just seen on staircase k

    def step_led(self, space):
        # `in` and index() scan in C: a Python loop over the ~40 steps took
        # 0.3 ms on the rp2 port, four times per frame.
        order = self.layout.order
        if space in order:
            return self.steps_from + order.index(space)
        return -1      # start, top: no LED

    def render(self, game, face=None):
        s = self.strip
        s.fill((0, 0, 0))
        lay = self.layout
        for p in range(game.players):
            pos = game.pos[p]
            k = lay.trench_stair(pos)
            if k:
                s[self.trench_from + k - 1] = self.colours[p]
            else:
                led = self.step_led(pos)
                if led >= 0:
                    s[led] = self.colours[p]
        if self.highlight is not None:
            led = self.step_led(self.highlight)
            if led >= 0:
                s[led] = HIGHLIGHT
        f = face if face is not None else game.face
        if f is None:
            f = self.face
        if f is not None:
            s[self.die_from + DIE_ORDER.index(f)] = HIGHLIGHT
        if not game.is_over():
            s[self.players_from + game.turn] = self.colours[game.turn]
        elif game.winner is not None:
            for i in range(game.players):
                s[self.players_from + i] = self.colours[game.winner]
        if self.balls:
            # A ball just came down: flash that staircase's trench LED.
            for k in range(lay.n_stairs):
                if self.balls & (1 << k):
                    s[self.trench_from + k] = HIGHLIGHT
        if self.fault:
            for i in range(6):
                s[self.die_from + i] = FAULT
        return self.show()

    def flash_ball(self, staircase):
        # A ball just came down: light its trench LED on the picture last
        # drawn, which is what render() would draw now (a ball changes nothing
        # else). A full render took ~2 ms on the rp2 port, all of it on the
        # ball's edge-to-LED latency.
        self.balls |= 1 << (staircase - 1)
        try:
            return self.strip.show_led(self.trench_from + staircase - 1, HIGHLIGHT)
        except OSError:
            return False    # as in show()

    def show(self):
        try:
            return self.strip.show()
        except OSError:
            # A failed strip write must never stop the game; the controller
            # reports it once from the failure count.
            return False
