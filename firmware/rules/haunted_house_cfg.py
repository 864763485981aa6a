# Haunted House (Boxtop Pinball) configuration: the parsed, checked view of
# firmware/data/haunted-house.json that the rule engine reads. Pure: no I/O.
# The parsing itself is in rules/haunted_house_load.py, loaded for it and
# dropped again (ram.py).

from ram import unload


class HHConfig:
    # The fields, set from the loader's dict (annotations for the type
    # checker: MicroPython compiles them to nothing).
    colours: list
    max_players: int
    min_players: int
    dice: int
    limit: int
    rounds: int
    faces: int
    rotate: bool
    levels: list
    next_level: dict        # level -> the level below (wraps)
    monsters: list
    home: dict
    mspot: dict             # monster -> level -> spot
    mscores: list
    holes: list
    realm_ids: list
    realms: dict            # realm -> multiplier
    clue_spots: list
    deck: list

    def __init__(self, d):
        # Parsed and checked by the loader, loaded for it and dropped again.
        from rules.haunted_house_load import fill
        try:
            fill(self, d)
        finally:
            unload("rules.haunted_house_load")
