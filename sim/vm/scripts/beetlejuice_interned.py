# Runs in the MicroPython VM (tests/rules/test_beetlejuice_vm.py): what a json
# copy of the card ids costs on the heap (a saved game read at a resume). The
# ids are interned, so the copy should be its list only. The "#--- step" line
# splits this into two runPython calls: this VM reclaims memory only between
# calls.
import gc
import json

from rules.beetlejuice_cards import Config

with open("/fw/data/beetlejuice.json") as _f:
    cfg = Config(json.load(_f))
text = json.dumps(list(cfg.house_ids))
#--- step
gc.collect()
before = gc.mem_alloc()
again = json.loads(text)
gc.collect()
print(json.dumps({"n": len(again), "bytes": gc.mem_alloc() - before,
                  "same": again == list(cfg.house_ids)}))
