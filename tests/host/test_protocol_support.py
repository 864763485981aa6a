"""Support for the protocol tests (no tests here): a simulated Roller Ghoster
board driven only through firmware/protocol.py's Protocol, without any I/O.

The board runs on the simulator's virtual-time loop; the simulated players are
unsubscribed, so every decision comes through `act`, as from a host.
"""
from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Callable

from hauntbox_sim.core.loop import VirtualTimeLoop
from hauntbox_sim.boards.roller import RollerSim

from protocol import Protocol


class ProtoBoard:
    def __init__(self, players: int = 2, seed: int = 1, settings: dict | None = None,
                 settle_ms: int | None = 200, die_ms: int | None = 50) -> None:
        self.sim = RollerSim(players=players, seed=seed, noise="none", settings=settings or {})
        self.app = self.sim.app
        # People act through the protocol only.
        self.app.bus.unsubscribe(self.sim.people.on_event)
        c = self.app.controller
        if settle_ms is not None:
            c.tower.settle_ms = settle_ms
        if die_ms is not None:
            c.die_show_ms = die_ms
        self.proto = Protocol(self.app)
        self.loop = VirtualTimeLoop()
        # Requests are handled outside the running loop here: tasks go onto it.
        self.proto.spawn = self.loop.create_task
        self.main: asyncio.Task | None = None
        self.players = players

    # ---- running ---------------------------------------------------------
    def start(self) -> None:
        async def go() -> None:
            self.main = asyncio.create_task(
                self.app.main_async(self.players, 0, False, exit_when_over=False))
            await asyncio.sleep(0)
        self.loop.run_until_complete(go())
        self.wait_for(lambda: self.prompt() is not None)

    def wait_for(self, cond: Callable[[], bool], ms: int = 120_000) -> None:
        async def w() -> None:
            t = 0
            while not cond():
                await asyncio.sleep(0.005)
                t += 5
                if t > ms:
                    raise TimeoutError("condition not met in %d ms of virtual time" % ms)
        self.loop.run_until_complete(w())

    def run_ms(self, ms: int) -> None:
        self.loop.run_until_complete(asyncio.sleep(ms / 1000))

    def close(self) -> None:
        async def stop() -> None:
            if self.main is not None:
                self.main.cancel()
                try:
                    await self.main
                except BaseException:  # noqa: BLE001
                    pass
            for t in asyncio.all_tasks():
                if t is not asyncio.current_task():
                    t.cancel()
        try:
            self.loop.run_until_complete(stop())
        finally:
            self.loop.close()
            self.proto.close()

    # ---- protocol ----------------------------------------------------------
    def prompt(self) -> Any:
        return self.app.controller.decider.current

    def send(self, msg: Any) -> list[dict]:
        line = msg if isinstance(msg, bytes) else json.dumps(msg).encode()
        return [json.loads(r) for r in self.proto.handle_line(line)]

    def ask(self, msg: dict) -> dict:
        (r,) = self.send(msg)
        return r

    def feed(self, data: bytes) -> list[bytes]:
        return self.proto.feed(data)

    def drain(self) -> list[dict]:
        out = []
        while True:
            line = self.proto.take_event()
            if line is None:
                return out
            assert line.endswith(b"\n") and line.count(b"\n") == 1
            out.append(json.loads(line))

    def snapshot(self) -> tuple:
        """Everything a bad message must leave untouched, as comparable bytes/values."""
        app = self.app
        c = app.controller
        d = c.decider
        files = {}
        root = app.store.root
        for name in sorted(os.listdir(root)):
            with open(os.path.join(root, name), "rb") as f:
                files[name] = f.read()
        cur = d.current
        return (json.dumps(c.game.to_dict(), sort_keys=True).encode(),
                json.dumps(app.settings.all(), sort_keys=True).encode(),
                json.dumps(app.settings.values, sort_keys=True).encode(),
                files, repr(cur), repr(getattr(d, "_remote", None)), app._request,
                self.proto.events_on, self.proto.busy, c.tower.servo.stop_ns,
                c.tower.servo.forward_ns, c.tower.servo.pulse_ns, c.tower.settle_ms)


class BareBus:
    """A minimal event bus: what Protocol and Link need of the app's."""

    def __init__(self) -> None:
        self.sinks: list[Callable] = []

    def subscribe(self, s: Callable) -> None:
        self.sinks.append(s)

    def unsubscribe(self, s: Callable) -> None:
        self.sinks.remove(s)

    def publish(self, ev: tuple) -> None:
        for s in list(self.sinks):
            s(ev)


def bare_app() -> Any:
    """An app with only what Protocol reads at start (no game, no files)."""
    class App:
        bus = BareBus()
        root = "/nonexistent/"
        game_name = "roller-ghoster"
        controller = None
    return App

