"""What the browser tests and `make screenshots` share: starting `hauntbox web`,
a headless Chromium (Debian's, never a downloaded one), and one short game on
each game's page, played by clicking."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from typing import Any

CHROMIUM = "/usr/bin/chromium"


def why_no_browser() -> str | None:
    """None when the browser tests can run, else the one-line reason they cannot."""
    if not os.path.exists(CHROMIUM):
        return f"Chromium is not installed ({CHROMIUM}; `apt-get install chromium`, or make deps as root)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[dev]')"
    return None


@contextmanager
def web_server(*args: str, timeout: float = 30.0):
    """`hauntbox web ARGS --http-port 0 --no-browser`; yields (process, url)."""
    cmd = [sys.executable, "-m", "hauntbox.cli", "web", *args, "--http-port", "0", "--no-browser"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         stdin=subprocess.DEVNULL)
    url = None
    lines = []
    deadline = time.monotonic() + timeout
    assert p.stdout is not None
    while time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"serving (http://\S+)", line)
        if m:
            url = m.group(1)
            break
    if url is None:
        p.kill()
        raise RuntimeError("hauntbox web did not start:\n" + "".join(lines))
    try:
        yield p, url
    finally:
        stop(p)


def stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


@contextmanager
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


def open_page(b: Any, url: str, width: int = 1200, height: int = 820) -> Any:
    page = b.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(url)
    page.wait_for_selector("#conn[data-status=connected]", timeout=15000)
    return page


def choose(page: Any, text: str | None = None, timeout: float = 10000) -> str:
    """Click a prompt button (the one whose label starts with `text`, else the first);
    wait for the board's answer in the reply line. Returns the label clicked."""
    sel = "#options button:enabled"
    page.wait_for_selector(sel, timeout=timeout)
    buttons = page.locator(sel)
    target = buttons.first
    if text is not None:
        target = buttons.filter(has_text=re.compile("^" + re.escape(text))).first
    label = target.inner_text()
    page.evaluate("document.getElementById('reply').textContent = ''")
    target.click()
    # Locators only: the page's CSP (no eval) refuses wait_for_function's predicates.
    page.locator("#reply:not(:empty)").wait_for(timeout=timeout)
    reply = page.inner_text("#reply")
    assert reply.startswith("chose"), f"{label!r}: {reply}"
    return label


def ghosts(page: Any) -> dict[int, str]:
    return {int(p): s for p, s in page.eval_on_selector_all(
        ".ghost", "els => els.map(e => [e.dataset.player, e.dataset.space])")}


def log_text(page: Any) -> str:
    return page.inner_text("#log")


def wait_log(page: Any, text: str, timeout: float = 10000) -> None:
    page.locator("#log li", has_text=text).first.wait_for(timeout=timeout)


# ---- one short game per page (the browser tests check them; make screenshots keeps them) ----

def play_haunted(page: Any) -> None:
    # The simulated people set the pieces where the LEDs say (the board sees each placed).
    page.locator("#options button:enabled", has_text="launched").wait_for()
    page.click("#monster-medusa")                   # the die knocks Medusa: the turn starts
    wait_log(page, "HIT medusa")
    page.wait_for_selector("#monster-medusa[data-level=middle]", timeout=10000)
    page.click("#clue_top_left")
    wait_log(page, "CLUE at clue_top_left")


def play_beetlejuice(page: Any) -> None:
    choose(page, "roll the die")
    page.wait_for_selector("#die-0:not([data-face=''])")
    choose(page, "roll dice")                       # keep the first die, roll the others
    page.locator("#log li", has_text="dice ").nth(1).wait_for()   # the reroll's dice came


def play_superskill(page: Any) -> None:
    choose(page, "roll the die")
    page.wait_for_selector("#die-0:not([data-face=''])")
    choose(page, "red nudged 5")                    # a big nudge: the next roll tilts
    for _ in range(6):
        if page.locator("#tilt").count():
            return
        choose(page, "next roll")
        time.sleep(0.2)


PLAYS = {"haunted-house": play_haunted, "beetlejuice": play_beetlejuice,
         "superskill": play_superskill}


def have_python_tools() -> bool:
    return shutil.which("node") is not None
