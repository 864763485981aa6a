"""`make screenshots`: each game's page in headless Chromium, into docs/screenshots/.

Each page is served by `hauntbox web --port sim` and played for a few clicks
(the same flows as the browser tests), then photographed at 1100 x 760.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "host")]

from web.flows import PLAYS, browser, choose, ghosts, open_page, web_server, why_no_browser  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
SIZE = {"width": 1100, "height": 760}


def roller(page) -> None:
    for _ in range(12):
        choose(page)
        if sum(s != "start" for s in ghosts(page).values()) >= 2:
            break
    page.locator("#options button:enabled").first.wait_for()
    page.click("#stair-1")                      # a ball down staircase 1: its beam lights
    page.wait_for_selector("#stair-1 .beam[data-lit='1']")


def main() -> int:
    why = why_no_browser()
    if why:
        print(f"make screenshots: {why}", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    plays = {"roller-ghoster": roller, **PLAYS}
    with browser() as b:
        for game, play in plays.items():
            fast = [] if game == "haunted-house" else ["--fast"]
            with web_server("--port", "sim", "--game", game, "--players", "3",
                            *fast) as (_, url):
                page = open_page(b, url, **SIZE)
                play(page)
                time.sleep(0.2)
                path = OUT / f"{game}.png"
                page.screenshot(path=str(path))
                page.close()
                print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
