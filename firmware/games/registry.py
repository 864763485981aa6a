# The games the firmware can run: name -> controller module. Each module has
# create(app) returning a controller with: name, game (the rules object),
# new_game(players, start, options), resume(saved), async play(), tasks(),
# public_state(), save_name.

GAMES = {
    "roller-ghoster": "games.roller",
    "beetlejuice": "games.beetlejuice",
    "superskill": "games.superskill",
}
GAMES["haunted-house"] = "games.haunted"


def create(name, app):
    mod_name = GAMES.get(name)
    if mod_name is None:
        raise ValueError("unknown game %r" % (name,))
    mod = __import__(mod_name, None, None, ["create"])
    return mod.create(app)
