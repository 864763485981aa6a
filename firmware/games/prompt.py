# A prompt whose buttons do more than "move the highlight, confirm" (the dice
# cursor, the report menu of the companions), run while keeping the contract of
# games.decide.Decider: decider.current holds (kind, player, options) so the
# host can list and answer the same prompt, and a host choice wakes the wait.


def open_prompt(decider, kind, player, options):
    # Publish a prompt the buttons answer in their own way; the host answers it
    # with one of `options` through decider.offer().
    decider.current = (kind, player, options)
    decider._remote = None
    decider.panel.drain()
    decider.bus.publish(("prompt", kind, player, options, 0))


def close_prompt(decider):
    decider.current = None


async def next_input(decider):
    # The next button name (str), or the host's choice (a tuple from the
    # prompt's options).
    panel = decider.panel
    while True:
        r = decider._remote
        if r is not None:
            decider._remote = None
            return r
        name = await panel.next_press()
        if name is not None:
            return name
