# The event stream: rule effects and device events, as tuples ("kind", ...).
# Sinks (the serial protocol, the sim's log, a test) subscribe; a sink that fails
# is dropped rather than allowed to stop the game.


class EventBus:
    def __init__(self):
        self.sinks = []
        self.count = 0

    def subscribe(self, sink):
        self.sinks.append(sink)

    def unsubscribe(self, sink):
        if sink in self.sinks:
            self.sinks.remove(sink)

    def publish(self, event):
        self.count += 1
        for s in self.sinks:
            try:
                s(event)
            except Exception:  # noqa: BLE001 - a broken sink must not stop the game
                self.unsubscribe(s)
