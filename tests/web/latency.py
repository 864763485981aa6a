"""How quickly the page answers a click (not a test: `python tests/web/latency.py`).

Serves `hauntbox web --port sim --fast`, clicks the prompt's first button N
times inside the page (a MutationObserver times it with performance.now()),
and prints the medians and 90th percentiles: click -> the board's reply shown,
click -> the event it caused drawn in the log. Then times the scan of /proc
for other programs on a port.
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "host")]

from web.flows import browser, open_page, web_server, why_no_browser  # noqa: E402

CLICK = """() => new Promise((resolve) => {
  const reply = document.getElementById('reply');
  const log = document.getElementById('log');
  const n0 = log.children.length;
  reply.textContent = '';
  const t0 = performance.now();
  let tr = null;
  const obs = new MutationObserver(() => {
    if (tr === null && reply.textContent) tr = performance.now();
    if (tr !== null && log.children.length > n0) { obs.disconnect(); resolve([tr - t0, performance.now() - t0]); }
  });
  obs.observe(reply, {childList: true, characterData: true, subtree: true});
  obs.observe(log, {childList: true});
  document.querySelector('#options button:enabled').click();
})"""


def p90(xs: list[float]) -> float:
    return sorted(xs)[int(0.9 * len(xs))]


def main(n: int = 30) -> int:
    why = why_no_browser()
    if why:
        print(why, file=sys.stderr)
        return 1
    reply, drawn = [], []
    with web_server("--port", "sim", "--fast") as (_, url), browser() as b:
        page = open_page(b, url)
        while len(reply) < n:
            page.locator("#options button:enabled").first.wait_for()
            r, d = page.evaluate(CLICK)
            reply.append(r)
            drawn.append(d)
    print(f"{n} clicks: click -> reply shown: median {statistics.median(reply):.1f} ms, "
          f"p90 {p90(reply):.1f} ms; click -> event drawn: median {statistics.median(drawn):.1f} ms, "
          f"p90 {p90(drawn):.1f} ms")
    from hauntbox.web.holders import port_holders

    t = time.perf_counter()
    for _ in range(20):
        port_holders("/dev/null")
    procs = sum(1 for p in os.listdir("/proc") if p.isdigit())
    print(f"/proc scan for other programs on a port: {(time.perf_counter() - t) / 20 * 1000:.1f} ms "
          f"over {procs} processes; load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 30))
