# Star Trek: Super-Skill Pinball rules: a general engine; each table is a data
# file (firmware/data/superskill/*.json) plus an optional hooks module.
from rules.superskill.engine import SuperSkillGame, MAX_PLAYERS  # noqa: F401
from rules.superskill.table import Table, START  # noqa: F401
from rules.superskill.hooks import TableHooks  # noqa: F401
from rules.superskill.table_hooks import load_hooks  # noqa: F401
