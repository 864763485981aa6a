# Special-rules hook points for Super-Skill Pinball tables.
# A table is its data file plus, optionally, one module here that subclasses
# TableHooks. Every method has a do-nothing default so a table overrides only
# what its special rules need. Hooks receive the game and append effects to
# the list they are given; they must not raise once the engine is mutating.


class TableHooks:
    # True when a player's move may change another player's state (The
    # Trouble with Tribbles: transported tribbles). While it is False, a copy
    # made to value one player's moves (SuperSkillGame.clone(p)) shares the
    # other players' state with the game instead of copying it.
    moves_touch_others = False

    # The rows of player.filled may be shared with a copy of the game: write
    # a box only through game.players[p].row(fid) (the engine does).

    # Extra per-player state (JSON-serialisable dict) kept in player.x.
    def init_player(self, game, p):
        return {}

    # A copy of player.x for a clone of the game, or None for the engine's
    # generic deep copy. Bots clone a game for every move they try, and a
    # table knowing its x's shape copies it in a few steps.
    def copy_extra(self, x):
        return None

    # Checks extra state loaded by from_dict; return an error string or None.
    def check_player(self, game, p, x):
        return None

    # After tilt checks, before anyone chooses for this roll.
    def on_roll(self, game, effects):
        pass

    # A tilt happened; return True if the table handled it (Lower Decks style:
    # the player then uses the roll as usual unless the hook ended the game),
    # False to run the normal procedure (round ends, all balls lost).
    def on_tilt(self, game, p, effects):
        return False

    # Orientation id of player p's table (see "orientations" in the data);
    # None = the first (or only) one.
    def orientation(self, game, p):
        return None

    # A ball just filled an outlane (stars already scored): return True to
    # keep it in play on that outlane (its feature must be marked "rest").
    def keep_on_outlane(self, game, p, ball, fid, effects):
        return False

    # Could a ball filling box idx of feature fid be lost by it? A cheap,
    # never-too-small guess: the engine plays such a move out on a copy
    # before it offers it nudged (a Nudge may not lose the ball).
    def risky_fill(self, game, p, fid, idx):
        return game.table.fmap[fid].kind == "outlane"

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

    # Extra player actions offered with the ball moves (rarely needed).
    def extra_actions(self, game, p):
        return []

    # Applies any action the engine does not know itself (extra, ball or
    # pre-roll actions of the table).
    def apply_extra(self, game, p, action, effects):
        return False

    # Replace the engine's moves for ball b of player p this roll (a table
    # mode played elsewhere, e.g. the Borg battle on the backglass): return a
    # list of actions, or None for the normal moves. Applying one of them
    # (apply_extra) must take b out of players[p].todo (or lose the ball).
    def ball_actions(self, game, p, b):
        return None

    # Decisions before a roll ("before the start of any roll you may ..."):
    # actions offered to player p, who may also pass; [] = nothing to decide.
    def pre_roll_actions(self, game, p):
        return []

    # Questions a table asks a player: a queue entry ["ask", kind, ...] put on
    # players[p].queue. ask_actions lists the answers, each a tuple
    # ("choose", kind, ...); apply_ask applies the chosen one (the entry is
    # already off the queue). One answer is applied at once, none drops it.
    def ask_actions(self, game, p, entry):
        return []

    def apply_ask(self, game, p, entry, action, effects):
        pass

    # Sources that set a die to any value (Lower Decks: Mariner): names, each
    # offered as ("wild", ball, die, source, value, feature, box).
    def wild_sources(self, game, p):
        return []

    def use_wild(self, game, p, source, effects):
        pass
