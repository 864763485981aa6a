# The hooks of a table by its name: the one place that knows every table's
# module. Apart from hooks.py (which each table module imports for TableHooks),
# so the imports run one way: engine -> table_hooks -> each table -> hooks.

from rules.superskill.hooks import TableHooks


def load_hooks(name):
    # Explicit imports (no __import__ tricks) so this works the same on
    # MicroPython; a new table adds one branch here.
    if not name:
        return TableHooks()
    if name == "starfleet_academy":
        from rules.superskill import starfleet_academy
        return starfleet_academy.Hooks()
    if name == "tribbles":
        from rules.superskill import tribbles
        return tribbles.Hooks()
    if name == "lower_decks":
        from rules.superskill import lower_decks
        return lower_decks.Hooks()
    if name == "borg_attack":
        from rules.superskill import borg_attack
        return borg_attack.Hooks()
    raise ValueError("unknown table hooks %r" % (name,))
