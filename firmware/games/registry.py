# The games the firmware can run: name -> controller module. Each module has
# create(app) returning a controller with: name, game (the rules object),
# new_game(players, start, options), resume(saved), async play(), tasks(),
# public_state(), save_name.
#
# PLAYERS: how many players each game takes (the controllers' min_players /
# max_players, which come from the rules and their data files; a test keeps
# both the same). Settings (games/settings_schema.py) and the host's `new`
# (protocol_commands.py) check a player count against the game it is for
# without loading that game.

GAMES = {
    "roller-ghoster": "games.roller",
    "beetlejuice": "games.beetlejuice",
    "superskill": "games.superskill",
}
GAMES["haunted-house"] = "games.haunted"

PLAYERS = {
    "roller-ghoster": (2, 4),
    "haunted-house": (1, 4),
    "beetlejuice": (1, 6),
    "superskill": (1, 4),
}


def players_error(game, players):
    # An error string if `players` is not a player count `game` takes, or None.
    lo, hi = PLAYERS[game]
    if not isinstance(players, int) or isinstance(players, bool) or not lo <= players <= hi:
        return "players must be %d..%d for %s" % (lo, hi, game)
    return None


def create(name, app):
    mod_name = GAMES.get(name)
    if mod_name is None:
        raise ValueError("unknown game %r" % (name,))
    mod = __import__(mod_name, None, None, ["create"])
    return mod.create(app)
