# The one exception rule engines raise for an illegal action or bad saved
# state. Callers (controllers, protocol) turn it into a clear error reply;
# the engine guarantees its state is unchanged when it raises.


class RuleError(Exception):
    pass


# Marker for "the next action is chance or a sensor reading, not a player".
CHANCE = -1
