# Where a decision comes from: the panel buttons or the serial host (or a bot
# playing through the host interface). Both wake the same flag, so one loop
# serves them without racing two tasks.
#
# ask(prompt) publishes ("prompt", kind, player, options, highlight) and returns
# the chosen option. LEFT/RIGHT move the highlight, ROLL confirms; a remote
# choice arrives through offer(); abort() makes it return None.

from devices.panel import LEFT, RIGHT, ROLL


class Decider:
    def __init__(self, panel, bus, on_highlight=None):
        self.panel = panel
        self.bus = bus
        self.on_highlight = on_highlight   # on_highlight(option) for the LEDs
        self.current = None                # (kind, player, options) while asking
        self._remote = None
        self._abort = False

    def pending(self):
        # A host choice accepted but not yet taken by the waiting ask().
        return self._remote is not None

    def abort(self):
        # Make a waiting ask() return None (the app starts something else).
        if self.current is not None:
            self._abort = True
            self.panel.flag.set()

    def offer(self, option):
        # A choice from the host. Returns an error string, or None if accepted.
        cur = self.current
        if cur is None:
            return "no decision is pending"
        if isinstance(option, list):
            option = tuple([tuple(x) if isinstance(x, list) else x for x in option])
        if option not in cur[2]:
            return "not one of the offered options"
        self._remote = option
        self.panel.flag.set()
        return None

    async def ask(self, kind, player, options):
        self.current = (kind, player, options)
        self._remote = None
        self._abort = False
        self.panel.drain()
        i = 0
        self._show(kind, player, options, i)
        try:
            while True:
                if self._abort:
                    return None
                if self._remote is not None:
                    return self._remote
                name = await self.panel.next_press()
                if self._remote is not None:
                    # A host's choice came while the panel was read: it was
                    # acknowledged, so it wins over a press in the same wake-up.
                    return self._remote
                if name == ROLL:
                    return options[i]
                if name == LEFT:
                    i = (i - 1) % len(options)
                    self._show(kind, player, options, i)
                elif name == RIGHT:
                    i = (i + 1) % len(options)
                    self._show(kind, player, options, i)
        finally:
            self.current = None

    def _show(self, kind, player, options, i):
        if self.on_highlight is not None:
            self.on_highlight(options[i])
        self.bus.publish(("prompt", kind, player, options, i))
