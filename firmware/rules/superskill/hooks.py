# Special-rules hook points for Super-Skill Pinball tables.
# A table is its data file plus, optionally, one module here that subclasses
# TableHooks. Every method has a do-nothing default so a table overrides only
# what its special rules need. Hooks receive the game and append effects to
# the list they are given; they must not raise once the engine is mutating.


class TableHooks:
    # Extra per-player state (JSON-serialisable dict) kept in player.x.
    def init_player(self, game, p):
        return {}

    # Checks extra state loaded by from_dict; return an error string or None.
    def check_player(self, game, p, x):
        return None

    # After tilt checks, before anyone chooses for this roll.
    def on_roll(self, game, effects):
        pass

    # A tilt happened; return True if the table handled it (Lower Decks style),
    # False to run the normal procedure (round ends, all balls lost).
    def on_tilt(self, game, p, effects):
        return False

    # Box filled; ball is the ball slot, or -1 when a bonus filled it.
    def on_box_filled(self, game, p, ball, fid, idx, value, effects):
        pass

    # Ball moved somewhere that fills no box (inlane to flipper, etc.).
    def on_ball_moved(self, game, p, ball, pos, effects):
        pass

    # Set completed (already erased when the set erases itself).
    def on_set_completed(self, game, p, sid, effects):
        pass

    # Ball lost (reason: "drain", "outlane", "tilt").
    def on_ball_lost(self, game, p, ball, reason, effects):
        pass

    # Round over for player p (dashed boxes already erased).
    def on_round_end(self, game, p, effects):
        pass

    # Filter or extend the boxes a ball may fill: targets is a list of
    # (feature id, box index); return the list to use.
    def filter_targets(self, game, p, ball, pos, value, targets):
        return targets

    # Extra stars factor for an award carrying these tags (stacks).
    def star_factor(self, game, p, tags):
        return 1

    # Options offered from a menu (list of Option); may filter or add.
    def bonus_options(self, game, p, menu_id, options):
        return options

    # Apply an option of kind "custom", or a set reward ("custom", ...).
    def apply_custom(self, game, p, what, effects):
        pass

    # Extra player actions (e.g. spend a resource before a roll).
    def extra_actions(self, game, p):
        return []

    def apply_extra(self, game, p, action, effects):
        return False


def load_hooks(name):
    # Explicit imports (no __import__ tricks) so this works the same on
    # MicroPython; a new table adds one branch here.
    if not name:
        return TableHooks()
    if name == "starfleet_academy":
        from rules.superskill import starfleet_academy
        return starfleet_academy.Hooks()
    raise ValueError("unknown table hooks %r" % (name,))
