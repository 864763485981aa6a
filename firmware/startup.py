# What runs once when the board starts: a random seed, the boot's crash
# accounting, the buttons held at power-up (service mode, safe boot), resume
# the saved game or start a new one, and ask the players whether to resume;
# safe mode after too many crashes.
# App (app.py) loads this module for it and drops it again (ram.py), so it is
# not in RAM during play.

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

# Resets in a row without a completed, saved turn before the board goes into
# safe mode (the game stays off until a person or the host starts a new one).
MAX_CRASHES = const(3)


def default_seed():
    try:
        import os
        b = os.urandom(4)
        return b[0] | (b[1] << 8) | (b[2] << 16) | ((b[3] & 0x3F) << 24)
    except (ImportError, AttributeError, OSError):
        from time import ticks_us
        return ticks_us()


def boot_buttons(controller):
    # What the buttons held at power-up ask for: MENU alone the service mode
    # (docs/service-mode.md), MENU with ROLL safe boot (the game skipped, the
    # REPL free), else None.
    panel = getattr(controller, "panel", None)
    if panel is None:
        decider = getattr(controller, "decider", None)
        panel = decider.panel if decider is not None else None
    if panel is None or not panel.held("menu"):
        return None
    return "safe" if panel.held("roll") else "service"


def _power_on():
    # True if this boot follows a power-up (not a reset of a running board).
    # machine.reset() on the rp2 port resets through the watchdog, so a crash
    # reset and a watchdog reset both read WDT_RESET. Without reset_cause
    # every boot counts as a reset (safe side).
    try:
        import machine
        return machine.reset_cause() == machine.PWRON_RESET
    except (ImportError, AttributeError):
        return False


def boot_check(app):
    # Crash accounting at boot (docs/reliability.md, "Crash accounting"). A
    # boot counts as a crash when the last run had a game going (armed) and
    # ended in an exception (crash.py wrote why) or in a reset that was not a
    # power-up: a watchdog reset (a dead task, a hang) counts like an
    # exception. The count is cleared only by a turn completed and saved
    # after a boot (App._on_saved), so nothing a game does before that, its
    # own first save included, can stop the count. MAX_CRASHES in a row:
    # safe mode. Then the boot's faults (config) are published and the record
    # written with the new boot number, armed for this run.
    import faultlog
    try:
        h, problem = faultlog.read(app)
        app.boot = h["boot"] + 1
        app.crashes = h["crashes"]
        app.fault_total = h["total"]
        if h["faults"]:
            app.fault_last = h["faults"][-1]
        if problem is not None:
            app.bus.publish(("fault", "health_bad", problem))
        if h["armed"] and (h["crashed"] is not None or not _power_on()):
            app.crashes += 1
            app.bus.publish(("fault", "reset", h["crashed"] or "reset while a game ran "
                             "(watchdog, or a reset not at power-up)"))
        if app.crashes >= MAX_CRASHES:
            app.safe_mode = ("%d resets in a row without a completed turn: the game is off "
                             "(ROLL or the host's new starts a new one)" % app.crashes)
            app.bus.publish(("fault", "safe_mode", app.safe_mode))
        for p in app.settings.problems:
            app.bus.publish(("fault", "config", p))
        faultlog.write(app)
    finally:
        from ram import unload
        unload("faultlog")


# Save files of earlier firmware, named before every game had one name
# (roller-ghoster, haunted-house): renamed once, so a game saved by it resumes.
OLD_SAVE_NAMES = {"roller-ghoster": "roller_ghoster", "haunted-house": "haunted_house"}


def _adopt_old_save(store, name):
    old = OLD_SAVE_NAMES.get(name)
    if old is None:
        return
    import os
    try:
        os.stat(store.path(name))
        return                          # a save under the new name wins
    except OSError:
        pass
    try:
        os.rename(store.path(old), store.path(name))
    except OSError:
        pass                            # none: nothing to adopt


def start_game(app, players, start, resume, options):
    # Resume the saved game if there is a valid one; otherwise start fresh.
    # Returns True if a game was resumed. Never raises on a bad save file:
    # a save that fails its seal (games/store.py) or its game's checks is
    # set aside as <name>.json.bad and reported (fault state_bad).
    c = app.controller
    saved = None
    if resume:
        _adopt_old_save(app.store, c.save_name)
        try:
            saved = app.store.load(c.save_name)
        except ValueError as e:
            app.bus.publish(("fault", "state_bad", str(e)))
            app.store.set_aside(c.save_name)
    if saved is not None:
        try:
            # Every game saves its dice generator: a save without a sound one
            # is damaged (the game would go on with other dice).
            from rules.rng import Rng
            Rng.from_dict(saved.get("rng"))
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


def _strips(c):
    b = getattr(c, "build", None)
    out = []
    for name in ("strip", "spot_strip"):
        s = getattr(b, name, None)
        if s is not None and s not in out:
            out.append(s)
    return out


def show_safe_mode(app):
    # On the LEDs: every chain dark but its first LEDs, one red per counted
    # crash (at most the chain's length).
    for s in _strips(app.controller):
        s.fill((0, 0, 0))
        for i in range(min(app.crashes, len(s))):
            s[i] = (255, 0, 0)
        try:
            s.show()
        except OSError:
            pass


async def safe_mode(app, players, start):
    # The game stays off: the saved game (which may be what crashed) is set
    # aside, the LEDs show why, no device task runs, and the board waits for
    # ROLL (the "safe_mode" prompt) or a host's `new`. Either starts a new
    # game; the crash count stays until that game completes a turn, so a game
    # that crashes again comes back here rather than looping.
    c = app.controller
    app.store.set_aside(c.save_name)
    show_safe_mode(app)
    await c.decider.ask("safe_mode", -1, [("new",)])
    app.safe_mode = None
    await app._start_tasks()        # (this boot without the watchdog)
    if app._request is not None:
        await app._apply_request()
    else:
        c.new_game(players, start)
