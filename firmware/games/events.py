# The event stream: rule effects and device events, as tuples ("kind", ...).
# Sinks (the serial protocol, the sim's log, a test) subscribe; a sink that fails
# is dropped rather than allowed to stop the game.


class EventBus:
    def __init__(self):
        self.sinks = []
        self.count = 0
        self.failed = 0         # sinks dropped because they raised

    def subscribe(self, sink):
        self.sinks.append(sink)

    def unsubscribe(self, sink):
        if sink in self.sinks:
            self.sinks.remove(sink)

    def publish(self, event):
        # By index, not `for s in self.sinks`: removing a failing sink from the
        # list being iterated would make the sink after it miss this event (and
        # a copy of the list per event would cost heap all game).
        self.count += 1
        sinks = self.sinks
        i = 0
        while i < len(sinks):
            s = sinks[i]
            try:
                s(event)
            except Exception:  # noqa: BLE001 - a broken sink must not stop the game
                self.failed += 1
                if i < len(sinks) and sinks[i] is s:
                    sinks.pop(i)
                else:
                    self.unsubscribe(s)     # it changed the list itself: find it
                continue
            if i < len(sinks) and sinks[i] is s:
                i += 1
            # else: s unsubscribed itself; sinks[i] is already the next one


def report_leds(c, strip, before, what):
    # After a render: one fault event per change of an LED chain's health,
    # ("fault", "leds", reason) when its writes start failing and ("fault",
    # "leds_ok", None) when they work again. The game goes on without LEDs; the
    # event stream still has everything. c: the controller (led_fault, faults,
    # bus); before: strip.failures before the render.
    failed = strip.failures != before
    if failed and not c.led_fault:
        c.led_fault = True
        c.faults += 1
        c.bus.publish(("fault", "leds", what + " write failed: check its data line and supply"))
    elif not failed and c.led_fault:
        c.led_fault = False
        c.bus.publish(("fault", "leds_ok", None))
