# Runs in the MicroPython VM (tests/sim/vm/test_ram_vm.py): ram.unload() frees a
# module and ram.interned() shares its strings. Each "#--- step" is a separate
# runPython call: this VM reclaims memory only between calls.
import gc
import json
import sys
from ram import interned, unload
import rules.roller_layout  # noqa: F401  (loaded, to be unloaded)
#--- step
gc.collect()
loaded = gc.mem_alloc()
unload("rules.roller_layout")
#--- step
gc.collect()
freed = loaded - gc.mem_alloc()
gone = "rules.roller_layout" not in sys.modules and not hasattr(sys.modules["rules"], "roller_layout")
raw = json.loads(json.dumps({"ids": ["zq%02d" % i for i in range(40)],
                             "name": "A long description for people only, not kept"}))
data = interned(raw, ("name",))
ids_text = json.dumps(data["ids"])
name_text = json.dumps(data["name"])
#--- step
gc.collect()
a = gc.mem_alloc()
ids = json.loads(ids_text)
#--- step
gc.collect()
b = gc.mem_alloc()
name = json.loads(name_text)
#--- step
gc.collect()
c = gc.mem_alloc()
print(json.dumps({"freed": freed, "gone": gone, "same": data == raw,
                  "ids": b - a, "name": c - b}))
