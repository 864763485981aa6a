# What runs once when the board starts: a random seed, the safe-boot check,
# resume the saved game or start a new one, and ask the players whether to
# resume. App (app.py) loads this module for it and drops it again
# (ram.py), so it is not in RAM during play.


def default_seed():
    try:
        import os
        b = os.urandom(4)
        return b[0] | (b[1] << 8) | (b[2] << 16) | ((b[3] & 0x3F) << 24)
    except (ImportError, AttributeError, OSError):
        from time import ticks_us
        return ticks_us()


def menu_held(controller):
    panel = getattr(controller, "panel", None)
    if panel is None:
        decider = getattr(controller, "decider", None)
        panel = decider.panel if decider is not None else None
    return panel is not None and panel.held("menu")


def start_game(app, players, start, resume, options):
    # Resume the saved game if there is a valid one; otherwise start fresh.
    # Returns True if a game was resumed. Never raises on a bad save file.
    c = app.controller
    saved = None
    if resume:
        try:
            saved = app.store.load(c.save_name)
        except ValueError as e:
            app.bus.publish(("fault", "state_bad", str(e)))
            app.store.set_aside(c.save_name)
    if saved is not None:
        try:
            c.resume(saved)
            if not c.game.is_over():
                return True
        except Exception as e:  # noqa: BLE001 - any invalid save: set aside, start fresh
            app.bus.publish(("fault", "state_bad", str(e)))
            app.store.set_aside(c.save_name)
    c.new_game(players, start, options)
    return False


async def offer_resume(app, players, start):
    # A saved game was found: the players choose (ROLL = resume, RIGHT then
    # ROLL = new game; or "act" from the host). Until then nothing changes.
    c = app.controller
    choice = await c.decider.ask("resume", -1, [("resume",), ("new",)])
    if choice == ("new",):
        app.store.remove(c.save_name)
        c.new_game(players, start)
        return False
    return True
