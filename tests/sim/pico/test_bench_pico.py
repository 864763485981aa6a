"""`make bench` on the emulated Pico (sim/pico/bench.py), in short: one build,
one turn of the heap run and a few injected balls. The figures must be
there and be plausible measurements; whether they meet the budgets is the
bench's report, not a test."""
import json
import math

from hauntbox_sim.pico import bench

KEYS = {"heap_rest_kib", "heap_peak_kib", "largest_free_kib", "alloc_turn_mean_b",
        "alloc_turn_p95_b", "alloc_turn_max_b", "latency_p50_ms", "latency_p99_ms",
        "latency_max_ms", "latency_floor_ms", "irq_off_max_ms", "image_bytes", "image_blocks",
        "runtime"}


def test_one_build_measured_on_the_emulated_pico_writes_every_key(tmp_path):
    out = tmp_path / "bench.json"
    assert bench.main(["--only", "roller-ghoster", "--turns", "1", "--events", "6",
                       "--out", str(out)]) == 0
    f = json.loads(out.read_text())["builds"]["roller-ghoster"]
    assert KEYS <= set(f)
    for k in KEYS - {"runtime"}:
        assert isinstance(f[k], (int, float)) and math.isfinite(f[k]) and f[k] > 0, k
    # The heap of a Pico (about 240 KB) holds the firmware, the game and the link.
    assert 20 <= f["heap_rest_kib"] <= f["heap_peak_kib"] < 200
    assert f["largest_free_kib"] < f["heap_total_kib"] - f["heap_rest_kib"] + 1
    assert f["probe_alloc_b"] == 0 and f["heap_samples"] > 10 and f["request_samples"] > 0
    assert f["alloc_turn_p95_b"] <= f["alloc_turn_max_b"]
    # Every injected ball was shown, no sooner than the design allows: the
    # glitch filter, then the chain's bits on the pin.
    assert f["latency_events"] == 6 and f["latency_missed"] == 0
    assert f["latency_floor_ms"] <= f["latency_p50_ms"] <= f["latency_p99_ms"] <= f["latency_max_ms"]
    # A 51-LED write is 51 x 24 bits x 1.25 us on the pin.
    assert 1.4 < f["irq_off_led_max_ms"] < 1.7
    # Saves program flash pages (0.4 ms each, W25Q16JV typical) with interrupts
    # off; littlefs erases a 4 KB sector (45 ms) only when it needs a fresh
    # block, which a one-turn run may never do.
    assert f["flash_ops"] > 0 and 0 <= f["flash_erases"] <= f["flash_ops"]
    if f["flash_erases"]:
        assert f["irq_off_flash_max_ms"] == 45.0
    else:
        assert 0.4 <= f["irq_off_flash_max_ms"] <= 16 * 0.4
    assert f["irq_off_max_ms"] == max(f["irq_off_led_max_ms"], f["irq_off_flash_max_ms"])
    assert f["image_blocks"] * 4096 >= f["image_bytes"]
    assert "v1.28.0" in f["runtime"] and "rp2040js" in f["runtime"]
