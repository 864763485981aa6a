# Board scenarios for Roller Ghoster: the controller on the simulated board
# (sim/boards/roller.py), driven through its buttons and the host's `act`, one
# command per line, '#' comments. CPython only (the simulated board).
#
#   setting roller-ghoster.die physical   a board setting (before the first press)
#   players 2                             seats (default 2)
#   press left | press right | press roll a button pressed and let go
#   act roll 2a                           the host answers the pending prompt
#   expect prompt die red                 the pending prompt's kind and player
#   expect led die 2a | expect led die none   the die row of LEDs shows that face alone
#   expect roll red 2a | expect roll red any  the last roll (any: some face)
#   expect phase move | expect at red 1w1
#   restart                               power cut: a new board on the same flash
# Returns the transcript: the rule effects, one line each.

import asyncio
import tempfile

DIE = ("1", "2", "3", "1a", "2a", "ghost")
COLOURS = ("red", "blue", "green", "yellow")


class ScenarioError(Exception):
    pass


def run(text):
    from hauntbox_sim.fakes import install as sim_install
    from hauntbox_sim.boards.roller import RollerSim

    segments = [[]]
    lineno = 0
    for raw in text.split("\n"):
        lineno += 1
        line = raw.split("#")[0].strip()
        if line == "restart":
            segments.append([])
        elif line:
            segments[-1].append((lineno, line.split()))
    settings = {}
    players = 2
    for _n, w in segments[0]:
        if w[0] == "setting":
            settings[w[1]] = w[2]
        elif w[0] == "players":
            players = int(w[1])
    transcript = []
    with tempfile.TemporaryDirectory(prefix="hauntbox-scenario-") as state:
        for seg in segments:
            s = RollerSim(players=players, seed=1, settings=dict(settings), state_dir=state)
            s.app.bus.unsubscribe(s.people.on_event)    # the script's hands only
            sim_install.run(_segment(s, seg, transcript))
    return transcript


async def _segment(s, seg, transcript):
    events = []

    def sink(ev):
        events.append(ev)
        if ev[0] in ("roll", "move", "skip", "slide", "climb", "stay", "rotate", "hit", "turn",
                     "win", "game", "resumed"):
            transcript.append(" ".join(str(x) for x in ev))

    s.app.bus.subscribe(sink)
    main = asyncio.create_task(s.app.main_async(None, 0, True))
    await asyncio.sleep_ms(100)
    try:
        for lineno, w in seg:
            try:
                await _command(s, w, events)
            except (ScenarioError, AssertionError) as e:
                raise ScenarioError("line %d: %s" % (lineno, e)) from None
    finally:
        main.cancel()
        try:
            await main
        except BaseException:  # noqa: BLE001 - the board stops here
            pass


def _who(name):
    if name not in COLOURS:
        raise ScenarioError("unknown player %r" % name)
    return COLOURS.index(name)


async def _command(s, w, events):
    c = s.app.controller
    cmd = w[0]
    if cmd in ("setting", "players"):
        return
    if cmd == "press":
        from hauntbox_sim.core import runtime
        s.people.press(w[1], runtime.clock().now_us)
        await asyncio.sleep_ms(400)
    elif cmd == "act":
        err = c.decider.offer([w[1]] + w[2:] if len(w) > 2 else [w[1]])
        if err is not None:
            raise ScenarioError("act refused: %s" % err)
        await asyncio.sleep_ms(400)
    elif cmd == "expect":
        _expect(s, c, w[1:], events)
    else:
        raise ScenarioError("unknown command %r" % cmd)


def _expect(s, c, w, events):
    what = w[0]
    g = c.game
    if what == "prompt":
        cur = c.decider.current
        got = None if cur is None else (cur[0], COLOURS[cur[1]] if cur[1] >= 0 else str(cur[1]))
        assert got == (w[1], w[2]), "prompt is %r, expected %s %s" % (got, w[1], w[2])
    elif what == "led" and w[1] == "die":
        frame = c.build.strip.np.decoded()
        first = s.pinmap["pixels"]["die_from"]
        lit = [DIE[i] for i in range(6) if frame[first + i] != (0, 0, 0)]
        want = [] if w[2] == "none" else [w[2]]
        assert lit == want, "the die row shows %r, expected %r" % (lit, want)
    elif what == "roll":
        rolls = [e for e in events if e[0] == "roll"]
        assert rolls, "no roll yet"
        p, face = rolls[-1][1], rolls[-1][2]
        assert COLOURS[p] == w[1], "the last roll was %s's" % COLOURS[p]
        assert w[2] == "any" or face == w[2], "the last roll was %s, expected %s" % (face, w[2])
    elif what == "phase":
        assert g.phase == w[1], "phase is %s, expected %s" % (g.phase, w[1])
    elif what == "at":
        pos = g.pos[_who(w[1])]
        assert pos == w[2], "%s is at %s, expected %s" % (w[1], pos, w[2])
    else:
        raise ScenarioError("unknown expectation %r" % what)
