"""A whole simulated Roller Ghoster build: firmware + tower model + players."""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hauntbox_sim.fakes import install as sim_install
from hauntbox_sim.core import runtime
from hauntbox_sim.core.clock import VirtualClock
from hauntbox_sim.models.tower import Faults, TowerConfig, TowerModel
from hauntbox_sim.players.buttons import ButtonPlayers

FIRMWARE = sim_install.FIRMWARE


def noise_config(noise: str) -> TowerConfig:
    cfg = TowerConfig()
    if noise in ("bounce", "all"):
        cfg.bounce = True
    if noise in ("glitch", "all"):
        cfg.glitches_per_s = 10.0          # the envelope's most (hardware/sensing-envelope.md)
        cfg.chatter = True
    return cfg


@dataclass
class RollerSim:
    players: int = 4
    seed: int = 1
    noise: str = "none"
    policies: list[str] = field(default_factory=lambda: ["bold", "safe", "random", "bold"])
    faults: Faults = field(default_factory=Faults)
    state_dir: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    tower_cfg: TowerConfig | None = None
    # A host console on the serial link (sim/models/host_link.py): events on and a
    # "state" request every host_period_ms, over a USB link that takes time.
    host_link: Any = None
    host_period_ms: int = 100

    def __post_init__(self) -> None:
        self.clock = sim_install.install(VirtualClock())
        if self.state_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="hauntbox-state-")
            self.state_dir = self._tmp.name
        Path(self.state_dir).mkdir(parents=True, exist_ok=True)
        import app as firmware_app  # the unmodified firmware module
        self.pinmap = json.loads((FIRMWARE / "boards/roller-ghoster.json").read_text())
        self.app = firmware_app.App(root=str(FIRMWARE) + "/", state_root=self.state_dir,
                                    settings=self.settings, seed=self.seed, game="roller-ghoster")
        pins = {name: p["gpio"] for name, p in self.pinmap["pins"].items()}
        cfg = self.tower_cfg or noise_config(self.noise)
        self.tower = TowerModel(pins, cfg, seed=self.seed, faults=self.faults)
        self.people = ButtonPlayers(self.app, self.tower, self.pinmap, self.policies, seed=self.seed,
                                    bounce=self.noise in ("bounce", "all"))

    @property
    def colours(self) -> list[str]:
        return self.app.controller.colours

    def run(self, resume: bool = True) -> int | None:
        from hauntbox_sim.models.host_link import host_tasks
        extra = host_tasks(self.app, self.host_link, self.host_period_ms)
        return sim_install.run(self.app.main_async(self.players, 0, resume, extra_tasks=extra))

    def sim_seconds(self) -> float:
        return runtime.clock().now_us / 1e6
