"""Reliability figures: power cuts at every flash operation and at random instants,
faults injected into the simulated build, fuzzed serial input, and damaged saves
(every game's save truncated at every byte and every byte flipped:
sim/reliability/saves.py). `python -m hauntbox_sim.reliability.figures` prints them; docs/reliability.md
records them with the command.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass, field

STATE_DIR = "/flash"
STATE_FILE = STATE_DIR + "/roller-ghoster.json"


@dataclass
class CutReport:
    games: int = 0
    cuts: int = 0
    resumed: int = 0
    fresh: int = 0
    corrupt: int = 0
    lost_turns: int = 0
    wrong_state: int = 0
    flash_writes: int = 0
    turns: int = 0
    problems: list[str] = field(default_factory=list)


def _record_game(seed: int, players: int, torn: bool, random_cuts: int, rng: random.Random):
    """Play one game on the flash model; return snapshots (files after a cut) with the
    number of completed, saved turns at that instant, and the saved states."""
    from hauntbox_sim.models.flash import FlashModel, attach
    from hauntbox_sim.boards.roller import RollerSim

    fs = FlashModel()
    s = RollerSim(players=players, seed=seed, state_dir=STATE_DIR)
    attach(fs)
    saved_states: list[dict] = []     # state content of every completed save, in order
    snaps: list[tuple[dict, int]] = []
    pending: dict[str, str] = {}

    def on_op(kind: str, path: str) -> None:
        # The snapshot is what a reboot finds if the power goes *before* this op.
        if pending:
            # The previous op was the rename of the state file: it is now committed.
            saved_states.append(json.loads(pending.pop("state")))
        snaps.append((fs.after_cut(torn), len(saved_states)))
        if kind == "rename" and path == STATE_FILE + ".tmp":
            pending["state"] = fs.files[path]

    fs.on_op = on_op
    # Random instants: cut at random virtual times as well (between operations).
    times = sorted(rng.uniform(0, 120) for _ in range(random_cuts))

    def random_cut() -> None:
        if pending:
            saved_states.append(json.loads(pending.pop("state")))
        snaps.append((fs.after_cut(torn), len(saved_states)))
    for t in times:
        s.clock.at(int(t * 1e6), random_cut)
    s.run()
    if pending:
        saved_states.append(json.loads(pending.pop("state")))
    fs.on_op = None
    turns = s.app.controller.turns
    return snaps, saved_states, fs.commits, turns


def _boot(files: dict, players: int):
    """Boot fresh firmware on a copy of the flash; return (resumed, game dict, faults)."""
    from hauntbox_sim.models.flash import FlashModel, attach
    from hauntbox_sim.boards.roller import RollerSim

    fs = FlashModel(files)
    s = RollerSim(players=players, seed=12345, state_dir=STATE_DIR)
    attach(fs)
    faults: list[tuple] = []
    s.app.bus.subscribe(lambda e: faults.append(e) if e[0] == "fault" else None)
    resumed = s.app.start_game(players, 0, resume=True)
    return resumed, s.app.controller.game.to_dict(), faults, s.app.controller.rng.state


def power_cuts(games: int = 3, seed: int = 1, torn: bool = False, random_cuts: int = 50,
               progress: bool = False) -> CutReport:
    from hauntbox_sim.models.flash import detach

    rep = CutReport()
    rng = random.Random(seed)
    try:
        for g in range(games):
            players = 2 + (seed + g) % 3
            snaps, states, commits, turns = _record_game(seed + g, players, torn, random_cuts, rng)
            rep.games += 1
            rep.flash_writes += commits
            rep.turns += turns
            for files, n_saved in snaps:
                rep.cuts += 1
                resumed, game, faults, _ = _boot(files, players)
                bad = [f for f in faults if f[1] == "state_bad"]
                if bad:
                    rep.corrupt += 1
                    rep.problems.append(f"game {g}: corrupt state after a cut: {bad[0]}")
                if n_saved == 0 or states[n_saved - 1]["game"]["phase"] == "over":
                    rep.fresh += 1
                    if resumed:
                        rep.wrong_state += 1
                    continue
                expect = states[n_saved - 1]["game"]
                if not resumed:
                    rep.lost_turns += 1
                    rep.problems.append(f"game {g}: saved turn {n_saved} not resumed")
                elif game != expect:
                    rep.wrong_state += 1
                    rep.problems.append(f"game {g}: resumed {game} expected {expect}")
                else:
                    rep.resumed += 1
            if progress:
                print(f"  game {g + 1}/{games}: {rep.cuts} cuts so far", file=sys.stderr)
    finally:
        detach()
    return rep


@dataclass
class FaultResult:
    name: str
    detected: bool
    fallback: bool
    finished: bool
    state_ok: bool

    @property
    def handled(self) -> bool:
        return self.detected and self.fallback and self.finished and self.state_ok


def _expander_game(seed: int) -> FaultResult:
    """Haunted House: an MCP23017 stops answering for a few launches, then recovers."""
    from hauntbox_sim.boards.haunted import HauntedSim, Outage
    s = HauntedSim(players=3, seed=seed, noise="all", outages=[Outage("exp_a", 3, 3)])
    events: list[tuple] = []
    s.app.bus.subscribe(events.append)
    try:
        s.run()
        finished = s.controller.game.is_over()
    except Exception:  # noqa: BLE001
        finished = False
    from rules.haunted_house import HauntedHouse
    g = s.controller.game
    cfg = getattr(g, "cfg", s.data)
    try:
        state_ok = HauntedHouse.from_dict(cfg, g.to_dict()).to_dict() == g.to_dict()
    except Exception:  # noqa: BLE001
        state_ok = False
    detected = any(e[0] == "fault" and e[1] == "expander" for e in events)
    fallback = any(e[0] == "prompt" and e[1] == "manual" for e in events)
    return FaultResult("I2C expander stops answering", detected, fallback, finished, state_ok)


def _fault_game(name: str, seed: int) -> FaultResult:
    if name == "I2C expander stops answering":
        return _expander_game(seed)
    from hauntbox_sim.models.tower import Faults, TowerConfig
    from hauntbox_sim.boards.roller import RollerSim

    faults = Faults()
    cfg = TowerConfig(release_p=0.5)
    settings: dict = {}
    expect_fault: str | None = None
    expect_prompt: str | None = None
    if name == "jammed servo":
        faults.jammed, expect_fault, expect_prompt = True, "jam", "manual_turn"
    elif name == "dead notch switch":
        faults.dead_notch, expect_fault, expect_prompt = True, "jam", "manual_turn"
    elif name == "stuck beam":
        faults.stuck_beams, expect_fault, expect_prompt = {2}, "beam_stuck", "ball_on_2"
    elif name == "dead beam":
        faults.dead_beams, expect_fault, expect_prompt = {3}, "beam_dead", "ball_on_3"
    elif name == "missing balls":
        faults.keep_missing_balls = True
        settings["reservoir"] = True
        expect_prompt = "refill"
    elif name == "chattering switches and beam glitches":
        cfg.bounce, cfg.chatter, cfg.glitches_per_s = True, True, 20.0
    s = RollerSim(players=3, seed=seed, faults=faults, tower_cfg=cfg, settings=settings,
                  noise="all" if name.startswith("chattering") else "none")
    events: list[tuple] = []
    s.app.bus.subscribe(events.append)
    try:
        winner = s.run()
    except Exception:  # noqa: BLE001 - a crash is what this measures
        winner = None
    from rules.roller_ghoster import RollerGhoster   # firmware is on sys.path once the sim runs
    g = s.app.controller.game
    detected = expect_fault is None or any(e[0] == "fault" and e[1] == expect_fault for e in events)
    if name.startswith("chattering"):
        seen = sum(sum(e[1]) for e in events if e[0] == "rotated")
        detected = seen == len(s.tower.released)      # filtered: no phantom, no miss
    fallback = expect_prompt is None or any(e[0] == "prompt" and e[1] == expect_prompt for e in events)
    try:
        state_ok = RollerGhoster.from_dict(s.app.controller.layout, g.to_dict()).to_dict() == g.to_dict()
    except Exception:  # noqa: BLE001
        state_ok = False
    return FaultResult(name, detected, fallback, winner is not None and g.is_over(), state_ok)


@dataclass
class FuzzReport:
    inputs: int = 0
    bytes: int = 0
    replies: int = 0
    error_replies: int = 0
    ok_replies: int = 0     # answers to harmless requests (read-only, or extra fields ignored)
    crashes: int = 0
    state_changes: int = 0
    by_kind: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


_COMMANDS = ("hello", "state", "legal", "act", "new", "config", "selftest", "calibrate", "events")
_READ_ONLY = (b'{"cmd":"hello"}', b'{"cmd":"state"}', b'{"cmd":"legal"}', b'{"cmd":"config","op":"get"}')
_WEIRD = [None, True, False, -1, 0, 2**40, 1.5, "", "x" * 300, [], [1, [2]], {}, {"a": {"b": []}}]


def _fuzz_input(rng: random.Random, kind: str) -> list[bytes]:
    """One generated input, as the chunks in which it arrives."""
    if kind == "random bytes":
        data = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 300)))
        return [data + (b"\n" if rng.random() < 0.7 else b"")]
    if kind == "truncated json":
        good = json.dumps({"cmd": rng.choice(_COMMANDS), "id": rng.randint(0, 99),
                           "players": 9, "key": "nope", "value": "x"}).encode()
        return [good[: rng.randint(1, len(good) - 1)] + b"\n"]
    if kind == "nested json":
        depth = rng.randint(1, 400)
        opener, closer = rng.choice([(b"[", b"]"), (b'{"a":', b"}")])
        body = opener * depth + b"1" + (closer * depth if rng.random() < 0.5 else b"")
        return [b'{"cmd":"act","action":' + body + b"}\n"]
    if kind == "huge line":
        n = rng.randint(1025, 8000)
        line = b'{"cmd":"new","pad":"' + b"A" * n + b'"}\n'
        size = rng.randint(1, 900)
        return [line[i:i + size] for i in range(0, len(line), size)]
    if kind == "wrong types":
        cmd = rng.choice(_COMMANDS)
        key = rng.choice(["id", "index", "action", "player", "game", "players", "start", "options",
                          "op", "key", "value", "on", "stop_ns", "forward_ns", "jog", "ns", "ms"])
        msg: dict = {"cmd": cmd, key: rng.choice(_WEIRD)}
        if cmd == "config":
            msg["op"] = rng.choice(["set", 5, "delete"])
            msg["key"] = rng.choice(["brightness", "nope", 3, "settle_ms", None])
            msg["value"] = rng.choice(["bright", -7, 99.5, [1], {"a": 1}])
        if cmd == "act":
            msg["index"] = rng.choice([-1, 99, "0", 1.5, [0]])
            msg.pop("action", None)
        if cmd == "new":
            # never a valid request: it would (rightly) start a new game
            msg["players"] = rng.choice([0, 9, "2", 2.5, -1, [2]])
        if cmd in ("selftest", "calibrate"):
            msg["cmd"] = "calibrate"
            msg["stop_ns"] = rng.choice([10, 9_000_000, "x", None])
        return [json.dumps(msg).encode() + b"\n"]
    if kind == "unknown command":
        name = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(0, 12)))
        return [json.dumps({"cmd": name if name not in _COMMANDS else name + "_", "id": 1}).encode() + b"\n"]
    if kind == "flood":
        line = rng.choice([b'{"cmd":"zap"}\n', b"garbage\n", b"{}\n", b"[1,2]\n", b'"str"\n'])
        return [line * rng.randint(50, 400)]
    # harmless requests mixed in: they must be answered and change nothing either
    return [rng.choice(_READ_ONLY) + b"\n"]


FUZZ_KINDS = ("random bytes", "truncated json", "nested json", "huge line", "wrong types",
              "unknown command", "flood", "read-only request")


def serial_fuzz(inputs: int = 100_000, seed: int = 1, progress: bool = False) -> FuzzReport:
    """Feed generated inputs through the firmware's Protocol on a simulated board with
    a decision pending; check every reply and that nothing changes, byte for byte."""
    import os

    from hauntbox_sim.boards.roller import RollerSim

    rep = FuzzReport()
    s = RollerSim(players=3, seed=seed)
    from protocol import Protocol   # firmware module (on sys.path once the sim is installed)
    app = s.app
    app.start_game(3, 0, resume=False)
    c = app.controller
    c.decider.current = ("roll", 0, [("roll",)])    # a prompt is pending, as in a live game
    proto = Protocol(app)

    def snapshot() -> tuple:
        files = {n: open(os.path.join(s.state_dir, n), "rb").read() for n in sorted(os.listdir(s.state_dir))}
        return (json.dumps(c.game.to_dict(), sort_keys=True), json.dumps(app.settings.all(), sort_keys=True),
                c.decider.pending(), c.rng.state, files)
    before = snapshot()
    rng = random.Random(seed)
    for i in range(inputs):
        kind = FUZZ_KINDS[i % len(FUZZ_KINDS)]
        rep.by_kind[kind] = rep.by_kind.get(kind, 0) + 1
        rep.inputs += 1
        for chunk in _fuzz_input(rng, kind):
            rep.bytes += len(chunk)
            try:
                lines = proto.feed(chunk)
            except Exception as e:  # noqa: BLE001 - a crash is what this counts
                rep.crashes += 1
                rep.problems.append(f"{kind}: {e!r}")
                continue
            for line in lines:
                rep.replies += 1
                msg = json.loads(line)          # every reply is one valid JSON object
                if msg.get("ok") is True:
                    rep.ok_replies += 1         # e.g. hello with an ignored extra field
                elif msg.get("ok") is False and isinstance(msg.get("error"), str):
                    rep.error_replies += 1
                else:
                    rep.problems.append(f"{kind}: malformed reply {line[:80]!r}")
        while proto.take_event() is not None:
            pass
        if i % 5000 == 0 or i == inputs - 1:
            if snapshot() != before:
                rep.state_changes += 1
                rep.problems.append(f"state changed by input {i} ({kind})")
                before = snapshot()
            if progress and i % 20000 == 0:
                print(f"  fuzz: {i}/{inputs}", file=sys.stderr)
    return rep


FAULTS = ("jammed servo", "dead notch switch", "stuck beam", "dead beam", "missing balls",
          "chattering switches and beam glitches",
          "I2C expander stops answering")


def fault_matrix(seeds: int = 3) -> list[FaultResult]:
    return [_fault_game(name, seed) for name in FAULTS for seed in range(1, seeds + 1)]


def main(argv: list[str] | None = None) -> int:
    from hauntbox_sim.pico import reliability as pico_rel
    p = argparse.ArgumentParser(prog="hauntbox reliability", description=__doc__)
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--random-cuts", type=int, default=100, help="random-instant cuts per game")
    p.add_argument("--fault-seeds", type=int, default=3, help="games per injected fault")
    p.add_argument("--fuzz", type=int, default=100_000, help="generated serial inputs")
    p.add_argument("--no-damaged-saves", action="store_true",
                   help="skip the damaged-save run (sim/reliability/saves.py)")
    p.add_argument("--hostile", type=int, default=10_000,
                   help="valid requests from a hostile host (sim/reliability/host.py)")
    p.add_argument("--json", default="build/reliability.json",
                   help="write the summary here (default build/reliability.json; '' for none)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--no-pico", action="store_true",
                       help="skip the emulated Pico's runs (sim/pico/reliability.py)")
    which.add_argument("--only-pico", action="store_true",
                       help="only the emulated Pico's runs")
    pico_rel.add_arguments(p)
    p.add_argument("--pico-flood", type=int, default=1000, metavar="N",
                   help="state requests in one write to the emulated Pico (0: skip)")
    args = p.parse_args(argv)
    t0 = time.monotonic()
    summary: dict = {}
    ok = True
    if not args.only_pico:
        ok = _simulator_figures(args, summary)
    if not args.no_pico:
        summary.update(pico_rel.from_args(args, args.seed))
        ok = ok and summary["pico_ok"]
        if args.pico_flood:
            from hauntbox_sim.pico.flood import flood
            f = flood(args.pico_flood, seed=args.seed)
            print(f"Flood on the emulated Pico: {f.requests} state requests in one write, "
                  f"mid-game: {f.replies} replies ({'in order' if f.in_order else 'OUT OF ORDER'}, "
                  f"{f.duplicates} duplicates), {f.turns_during} turns meanwhile; "
                  f"{f.emulated_s:.1f} s emulated, {f.wall_s:.0f} s wall")
            summary["pico_flood"] = {"requests": f.requests, "replies": f.replies,
                                     "in_order": f.in_order, "duplicates": f.duplicates}
            ok = ok and f.ok
    summary["wall_s"] = round(time.monotonic() - t0, 1)
    summary["ok"] = ok
    if args.json:
        import os
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
        print(f"summary written to {args.json}")
    print(f"took {time.monotonic() - t0:.1f} s")
    print("RESULT: " + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


def _simulator_figures(args: argparse.Namespace, summary: dict) -> bool:
    """The CPython simulator's runs, printed; their figures go into `summary`."""
    ok = True
    for torn in (False, True):
        label = "torn writes (no copy-on-write)" if torn else "littlefs (copy-on-write)"
        rep = power_cuts(args.games, args.seed, torn, args.random_cuts, progress=True)
        print(f"Power cuts, {label}: {rep.games} full games, {rep.turns} turns, "
              f"{rep.flash_writes} state files written")
        print(f"  cuts: {rep.cuts} (every flash operation + {args.random_cuts} random instants per game)")
        print(f"  resumed at the last completed turn: {rep.resumed}; fresh start (nothing saved yet / game over): {rep.fresh}")
        print(f"  corrupt files: {rep.corrupt}; lost completed turns: {rep.lost_turns}; wrong state: {rep.wrong_state}")
        for prob in rep.problems[:5]:
            print("   ", prob)
        summary["sim_power_cuts_torn" if torn else "sim_power_cuts"] = {
            k: getattr(rep, k) for k in ("games", "turns", "flash_writes", "cuts", "resumed",
                                         "fresh", "corrupt", "lost_turns", "wrong_state")}
        ok = ok and rep.corrupt == 0 and rep.lost_turns == 0 and rep.wrong_state == 0
    fz = serial_fuzz(args.fuzz, args.seed, progress=True)
    print(f"Serial input: {fz.inputs} generated inputs ({fz.bytes} bytes) through the firmware's protocol")
    print("  " + ", ".join(f"{k}: {n}" for k, n in fz.by_kind.items()))
    print(f"  replies: {fz.replies} ({fz.error_replies} errors, {fz.ok_replies} answers to harmless requests)")
    print(f"  crashes: {fz.crashes}; game state, settings or saved files changed: {fz.state_changes}")
    for prob in fz.problems[:5]:
        print("   ", prob)
    summary["serial_fuzz"] = {k: getattr(fz, k) for k in (
        "inputs", "bytes", "replies", "error_replies", "ok_replies", "crashes", "state_changes")}
    ok = ok and fz.crashes == 0 and fz.state_changes == 0 and not fz.problems
    from hauntbox_sim.reliability import host as reliability_host
    host: dict = {}
    ok = reliability_host.print_figures(args.hostile, args.seed, summary=host) and ok
    summary.update(host)
    results = fault_matrix(args.fault_seeds)
    handled = sum(r.handled for r in results)
    print(f"Faults injected into full games: {len(results)}; handled: {handled}")
    by_fault = {}
    for name in FAULTS:
        rs = [r for r in results if r.name == name]
        flags = "detected, fallback offered, game finished, state intact"
        print(f"  {name}: {sum(r.handled for r in rs)}/{len(rs)} ({flags})")
        by_fault[name] = [sum(r.handled for r in rs), len(rs)]
    summary["faults"] = {"injected": len(results), "handled": handled, "by_fault": by_fault}
    ok = ok and handled == len(results)
    if not args.no_damaged_saves:
        from hauntbox_sim.reliability.saves import damaged_saves, print_report
        sv = damaged_saves(progress=True)
        print_report(sv)
        summary["damaged_saves"] = {k: getattr(sv, k) for k in (
            "variants", "truncations", "flips", "exact", "refused", "silent_wrong",
            "unreported", "crashes", "save_bytes")}
        ok = ok and sv.ok
    return ok


if __name__ == "__main__":
    raise SystemExit(main())
