# The button panel: ROLL/CONFIRM, LEFT, RIGHT, MENU, all on one ThreadSafeFlag.
# next_press() waits for the next debounced press and names the button.
# The flag is shared with the host link, so a remote choice wakes the same wait.

import asyncio

ROLL = "roll"
LEFT = "left"
RIGHT = "right"
MENU = "menu"


class Panel:
    def __init__(self, buttons, flag):
        self.buttons = buttons      # dict name -> DebouncedInput
        self.flag = flag
        self._order = [n for n in (ROLL, LEFT, RIGHT, MENU) if n in buttons]

    def held(self, name):
        b = self.buttons.get(name)
        if b is None:
            return False
        b.update()
        return b.active() or b.rec.level() == b.active_level

    def _take(self):
        for name in self._order:
            b = self.buttons[name]
            b.update()
            if b.presses:       # take_presses() only when there is one (polled often)
                b.take_presses()
                return name
        return None

    def take(self):
        # The next press already made, or None (no waiting): for loops that
        # poll other inputs too (the service mode).
        return self._take()

    def drain(self):
        while self._take() is not None:
            pass

    async def next_press(self):
        # The next press, or None when woken without one (e.g. flag set by the
        # host), so the caller can look at its other inputs.
        name = self._take()
        if name is not None:
            return name
        wait = 0
        for name in self._order:
            w = self.buttons[name].settle_wait_ms()
            if w and (wait == 0 or w < wait):
                wait = w
        if wait:
            await asyncio.sleep_ms(wait)
        else:
            await self.flag.wait()
        return self._take()


_BUTTON_PINS = ((ROLL, "btn_roll"), (LEFT, "btn_left"), (RIGHT, "btn_right"), (MENU, "btn_menu"))


def panel_from_board(board, debounce_ms=20):
    from drivers.debounce import DebouncedInput
    from drivers.edges import EdgeRecorder
    flag = asyncio.ThreadSafeFlag()
    buttons = {}
    for name, pin_name in _BUTTON_PINS:
        if board.has(pin_name):
            rec = EdgeRecorder(board.input(pin_name), 8, flag)
            buttons[name] = DebouncedInput(rec, board.active_level(pin_name), debounce_ms)
    return Panel(buttons, flag)
