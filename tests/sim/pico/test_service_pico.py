"""The service mode on the emulated Pico (the official rp2 firmware): MENU held
at power-up enters it, two steps are walked with the board's own buttons (a
beam broken; the servo jogged), MENU leaves, the servo is off, the game starts.
Then, at the REPL: the mode's module is not in RAM during play, and what it
costs while loaded (docs/service-mode.md, "RAM")."""
from hauntbox_sim.fakes import machine
from hauntbox_sim.pico.session import RollerPico


def test_menu_at_power_up_two_steps_then_out_with_the_servo_off():
    with RollerPico(players=2, seed=1, noise="none") as s:
        s.bots_off()
        texts = []
        s.host.on_text = texts.append
        events = []
        s.host.subscribe(events.append)
        pins = s.pinmap["pins"]
        btn = {n: machine.pin(pins["btn_" + n]["gpio"]) for n in ("roll", "left", "right", "menu")}

        def press(name, gap_ms=250):
            btn[name].sim_drive(0)
            s.board.run(80)
            btn[name].sim_drive(None)
            s.board.run(gap_ms)

        def result(step):
            got = [e[2] for e in events if e[0] == "service" and e[1] == step]
            return got[-1] if got else None

        btn["menu"].sim_drive(0)                # held while the board powers up
        s.board.run(5000, until=lambda: any(t.startswith("hauntbox: service mode") for t in texts))
        assert any(t.startswith("hauntbox: service mode (MENU held)") for t in texts), texts
        btn["menu"].sim_drive(None)
        s.connect()
        assert s.host.request("service")["steps"][:2] == ["beam1", "beam2"]

        press("roll")                           # step 1, beam1: break it
        s.tower._beam(0, True)
        s.board.run(150)
        s.tower._beam(0, False)
        s.board.run(2000, until=lambda: result("beam1") is not None)
        assert result("beam1") == "ok"
        s.board.run(800)

        for _ in range(6):                      # to the jog step
            press("right")
        assert s.host.request("service")["step"] == "jog"
        press("roll")
        pulses = len(s.board.pulses)
        press("right", gap_ms=100)              # a forward jog: the chip's pin pulses
        jog = [w for _t, w in s.board.pulses[pulses:] if w]
        s.board.run(600)
        press("roll")
        s.board.run(2000, until=lambda: result("jog") is not None)
        assert result("jog") == "ok" and jog and abs(max(jog) - 1300000) < 1000   # PWM steps

        press("menu")                           # leave
        s.board.run(3000, until=lambda: any(e[0] == "prompt" for e in events))
        leave = [e for e in events if e[0] == "service" and e[1] == "leave"]
        assert leave and sorted(leave[0][2]["ok"]) == ["beam1", "jog"]
        assert not s.board.servo_on()           # no pulses on the servo pin
        assert [e for e in events if e[0] == "prompt"][0][1] == "roll"   # the game is on

        # At the REPL (Ctrl-C, as mpremote does): the mode's module is gone.
        s.board.pico.write(b"\x03")
        s.board.run(1000)
        s.board.pico.write(b"import sys, gc; print('svc', [m for m in ('games.service_mode', "
                           b"'games.service') if m in sys.modules])\r\n")
        s.board.run(1000)
        assert "svc []" in texts, texts[-5:]
        s.board.pico.write(b"gc.collect(); a = gc.mem_alloc(); import games.service_mode; "
                           b"gc.collect(); print('svc_bytes', gc.mem_alloc() - a)\r\n")
        s.board.run(3000, until=lambda: any(t.startswith("svc_bytes") for t in texts))
        cost = [int(t.split()[1]) for t in texts if t.startswith("svc_bytes")]
        print("service mode module, loaded:", cost, "bytes")
        assert cost and 0 < cost[0] < 16 * 1024
