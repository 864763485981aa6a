# Haunted House (Boxtop Pinball) configuration: the parsed, checked view of
# firmware/data/haunted-house.json that the rule engine reads. Pure: no I/O.
# The parsing itself is in rules/haunted_house_load.py, loaded for it and
# dropped again (ram.py).

from rules.errors import RuleError
from ram import unload


class HHConfig:
    def __init__(self, d):
        if not isinstance(d, dict):
            raise RuleError("config must be a dict")
        from rules.haunted_house_load import parse
        err = None
        try:
            p = parse(d)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            err = e
        finally:
            unload("rules.haunted_house_load")
        if err is not None:
            # Raised outside the handler: no exception chaining on MicroPython.
            raise RuleError("bad haunted house config: %r" % (err,))
        self.colours = p["colours"]
        self.max_players = p["max_players"]
        self.min_players = p["min_players"]
        self.dice = p["dice"]
        self.limit = p["limit"]
        self.rounds = p["rounds"]
        self.faces = p["faces"]
        self.rotate = p["rotate"]
        self.levels = p["levels"]
        self.next_level = p["next_level"]       # level -> the level below (wraps)
        self.monsters = p["monsters"]
        self.home = p["home"]
        self.mspot = p["mspot"]                 # monster -> level -> spot
        self.mscores = p["mscores"]
        self.holes = p["holes"]
        self.realm_ids = p["realm_ids"]
        self.realms = p["realms"]               # realm -> multiplier
        self.clue_spots = p["clue_spots"]
        self.deck = p["deck"]
        self.deck_sorted = p["deck_sorted"]
        self.max_dice_points = p["max_dice_points"]
