// The emulated Pico: the official MicroPython rp2 firmware (a UF2) running in
// rp2040js, driven in lockstep by a Python process over stdin/stdout.
//
// Python owns time and physics (sim/pico/emulator.py, the models in sim/models):
// it asks this process to run the chip up to an emulated instant and gets back
// what the chip did on the way (output edges on watched pins, servo pulse widths,
// WS2812 frames, USB bytes, flash writes, I2C transactions, resets). Nothing
// physical is modelled here: this file only fills in what rp2040js 1.4.1 lacks
// (shared/pico/README.md):
//   1. flash erase/program: the boot ROM's routines are replaced by breakpoints
//      and applied to the flash image (erase = 0xFF, program = AND, as NOR flash);
//   2. pad pull-ups/downs: an input nobody drives follows its configured pull;
//   3. the watchdog resets the chip (flash, watchdog scratch and reason kept);
//   4. host->board USB bytes wait in a queue until the board reads them
//      (back-pressure, no 512-byte drop), and an OUT transfer with nothing to
//      send waits instead of returning empty packets (the host NAKs on real USB).
//
// Wire protocol: one JSON object per line each way; every request gets exactly
// one reply. Binary data (USB, flash) travels as base64.

import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { RP2040, USBCDC, ConsoleLogger, LogLevel, I2CMode } from 'rp2040js';

// rp2040js reports what it does not model with console.warn/log: stdout is the
// protocol's, so those go to stderr only with PICO_DEBUG=1, and are counted.
const DEBUG = !!process.env.PICO_DEBUG;
const warnings = {};
const note = (...a) => {
  const text = a.map(String).join(' ');
  const key = text.replace(/[0-9a-fx, =]+$/i, '');
  warnings[key] = (warnings[key] || 0) + 1;
  if (DEBUG) process.stderr.write(text + '\n');
};
console.log = console.info = console.debug = console.warn = note;

const FLASH_BASE = 0x10000000;
const CYCLE_NS = 8; // 125 MHz

// ---- state --------------------------------------------------------------
let mcu = null;
let clock = null;
let cdc = null;
let baseNs = 0;          // emulated time before the current chip instance (reboots)
let cfg = {};
let uf2 = null;
let bootrom = null;
let flashImage = null;   // survives reboots
let hostQueue = [];      // host->board bytes not yet read by the board (Uint8Array chunks)
let pendingRead = null;  // an OUT transfer the board armed with nothing to send
let usbOut = [];         // board->host bytes since the last reply
let events = [];         // what happened since the last reply: [t_ns, kind, ...]
let stopNow = false;     // an event that Python must answer before the chip goes on
let resetWanted = null;  // 'watchdog' | 'force' (machine.reset) | null
let i2cWait = null;      // {bus, kind} while Python decides an I2C ack/byte
let breakHandlers = new Map();
let driven = new Map();  // gpio -> 0/1 driven from outside; absent = floating
let pulse = new Map();   // gpio -> {rise, width, timer}
let ws = new Map();      // gpio -> {rise, bits, bytes, last, alarm}
let outWatch = new Set();
let usbConnected = false;
let cycles = 0;          // executed instructions' cycles (speed figures)
let flashOps = 0;
let irqOffMax = 0;       // the longest flash stall, ns (interrupts off)
let stopOnFlash = false;
let boots = 0;

function now() { return baseNs + clock.nanos; }

function ev(kind, ...args) { events.push([now(), kind, ...args]); }

// ---- boot ROM: flash routines -------------------------------------------
function romFunc(code) {
  // The ROM's public function table: 16-bit pointer at 0x14, entries of
  // (two-character code, 16-bit address), ended by a zero code.
  const rd16 = (a) => mcu.readUint16(a);
  let p = rd16(0x14);
  for (;;) {
    const c = rd16(p);
    if (c === 0) return null;
    if (c === code) return rd16(p + 2);
    p += 4;
  }
}

function patchRom(code, id, handler) {
  const addr = romFunc(code.charCodeAt(0) | (code.charCodeAt(1) << 8));
  if (addr === null) throw new Error('boot ROM has no ' + code);
  const a = addr & ~1;
  const word = mcu.bootrom[a >> 2];
  const bkpt = 0xbe00 | id;
  mcu.bootrom[a >> 2] = (a & 2) ? ((word & 0xffff) | (bkpt << 16)) >>> 0
                                 : ((word & 0xffff0000) | bkpt) >>> 0;
  breakHandlers.set(id, handler);
}

function romReturn() {
  const core = mcu.core;
  core.breakRewind = 0;
  core.PC = core.registers[14] & ~1;   // return to LR
}

// How long the flash chip is busy (Winbond W25Q16JV, the Pico's, datasheet
// typical values): the ROM routine polls until it is done, and the rp2 port
// calls it with interrupts off, so the chip does nothing else meanwhile.
const SECTOR_ERASE_NS = 45e6;   // tSE, 4 KB sector
const PAGE_PROGRAM_NS = 0.4e6;  // tPP, 256 B page

function busyFlash(ns) {
  // Time passes (timers, PWM and the USB go on; their interrupts wait),
  // no instruction runs: then the routine returns.
  clock.tick(ns);
  irqOffMax = Math.max(irqOffMax, ns);
}

function installFlash() {
  const r = mcu.core.registers;
  patchRom('RE', 0x51, () => {        // flash_range_erase(addr, count, block_size, cmd)
    const addr = r[0] >>> 0, count = r[1] >>> 0;
    mcu.flash.fill(0xff, addr, addr + count);
    flashOps++;
    const ns = Math.ceil(count / 4096) * SECTOR_ERASE_NS;
    ev('flash', 'erase', addr, count, ns);
    busyFlash(ns);
    if (stopOnFlash) stopNow = true;
    romReturn();
  });
  patchRom('RP', 0x52, () => {        // flash_range_program(addr, data, count)
    const addr = r[0] >>> 0, src = r[1] >>> 0, count = r[2] >>> 0;
    for (let i = 0; i < count; i++) mcu.flash[addr + i] &= mcu.readUint8(src + i);
    flashOps++;
    const ns = Math.ceil(count / 256) * PAGE_PROGRAM_NS;
    ev('flash', 'program', addr, count, ns);
    busyFlash(ns);
    if (stopOnFlash) stopNow = true;
    romReturn();
  });
  // XIP on/off and cache flush do nothing in rp2040js (flash is always
  // readable), and its SSI stub could leave them spinning: return at once.
  for (const [code, id] of [['IF', 0x53], ['EX', 0x54], ['FC', 0x55], ['CX', 0x56]]) {
    try { patchRom(code, id, romReturn); } catch (e) { /* absent in this ROM */ }
  }
  mcu.onBreak = (code) => {
    const h = breakHandlers.get(code);
    if (h) h();
    else { ev('break', code); stopNow = true; }
  };
}

// ---- GPIO: pulls, watched outputs, servo pulses, WS2812 --------------------
function applyPull(pin) {
  const g = mcu.gpio[pin];
  if (driven.has(pin)) return;
  if (g.pullupEnabled && !g.pulldownEnabled) g.setInputValue(true);
  else if (g.pulldownEnabled && !g.pullupEnabled) g.setInputValue(false);
}

function drive(pin, level) {
  if (level === null || level === undefined) {
    driven.delete(pin);
    applyPull(pin);
  } else {
    driven.set(pin, level ? 1 : 0);
    mcu.gpio[pin].setInputValue(!!level);
  }
}

function watchPins() {
  for (let i = 0; i < mcu.gpio.length; i++) {
    const g = mcu.gpio[i];
    g.addListener((value) => {
      // Pads changed (pull set) or output changed.
      if (!g.outputEnable) applyPull(i);
      const level = g.outputEnable ? (g.outputValue ? 1 : 0) : null;
      if (pulse.has(i)) onPulseEdge(i, level);
      if (ws.has(i)) onWsEdge(i, level);
      if (outWatch.has(i)) {
        ev('out', i, level);
        stopNow = true;
      }
    });
    applyPull(i);
  }
}

function onPulseEdge(pin, level) {
  // A servo signal: report the high time of each pulse when it changes, and
  // 0 when no pulse has started for 1.5 periods (the servo is off).
  const p = pulse.get(pin);
  const t = now();
  if (level === 1) {
    p.rise = t;
    p.lastRise = t;
    p.alarm.schedule(p.timeoutNs);
  } else if (p.rise !== null) {
    const width = t - p.rise;
    p.rise = null;
    if (Math.abs(width - p.width) > 1000) {   // 1 us: duty registers, not jitter
      p.width = width;
      ev('pulse', pin, Math.round(width));
      stopNow = true;
    }
  }
}

function pulseTimeout(pin) {
  // Reported with the instant the last pulse began, so a check can tell when
  // the pin really went quiet (the report itself comes 1.5 periods later).
  const p = pulse.get(pin);
  if (p.width !== 0) {
    p.width = 0;
    ev('pulse', pin, 0, p.lastRise);
    stopNow = true;
  }
}

function onWsEdge(pin, level) {
  // WS2812: a bit is a high time of ~0.4 us (0) or ~0.8 us (1); a low time over
  // 50 us latches the frame. The data pin's edges are decoded into bytes here.
  const w = ws.get(pin);
  const t = now();
  if (level === 1) {
    if (w.bytes.length === 0 && w.nbits === 0) w.first = t;
    w.rise = t;
  } else if (level === 0 && w.rise !== null) {
    const high = t - w.rise;
    w.rise = null;
    w.acc = (w.acc << 1) | (high > 600 ? 1 : 0);
    w.nbits++;
    if (w.nbits === 8) { w.bytes.push(w.acc & 0xff); w.acc = 0; w.nbits = 0; }
    w.alarm.schedule(50000);
  }
}

function wsLatch(pin) {
  const w = ws.get(pin);
  if (w.bytes.length) {
    ev('leds', pin, Buffer.from(w.bytes).toString('hex'), w.first);
    if (w.stop) stopNow = true;
  }
  w.bytes = []; w.acc = 0; w.nbits = 0;
}

// ---- USB CDC ---------------------------------------------------------------
function feedHost() {
  if (!pendingRead || hostQueue.length === 0) return;
  const { endpoint, size } = pendingRead;
  const out = new Uint8Array(size);
  let n = 0;
  while (n < size && hostQueue.length) {
    const chunk = hostQueue[0];
    const take = Math.min(size - n, chunk.length);
    out.set(chunk.subarray(0, take), n);
    n += take;
    if (take === chunk.length) hostQueue.shift();
    else hostQueue[0] = chunk.subarray(take);
  }
  pendingRead = null;
  mcu.usbCtrl.endpointReadDone(endpoint, out.subarray(0, n));
}

function installUsb() {
  cdc = new USBCDC(mcu.usbCtrl);
  cdc.onDeviceConnected = () => { usbConnected = true; ev('usb', 'connected'); };
  // The host reads what the board sends as it arrives: Python sees it (and
  // may answer) at the emulated instant it was sent.
  cdc.onSerialData = (buf) => { usbOut.push(Buffer.from(buf)); stopNow = true; };
  const usb = mcu.usbCtrl;
  const original = usb.onEndpointRead;
  usb.onEndpointRead = (endpoint, size) => {
    if (endpoint !== cdc.outEndpoint) return original(endpoint, size);
    pendingRead = { endpoint, size };
    feedHost();
  };
}

function hostBytes() {
  let n = 0;
  for (const c of hostQueue) n += c.length;
  return n;
}

// ---- I2C: transactions answered by Python's device models ----------------
function installI2c() {
  mcu.i2c.forEach((bus, b) => {
    bus.onStart = (repeated) => { ev('i2c', b, 'start', repeated ? 1 : 0); bus.completeStart(); };
    bus.onStop = () => { ev('i2c', b, 'stop'); bus.completeStop(); };
    bus.onConnect = (address, mode) => {
      ev('i2c', b, 'connect', address, mode === I2CMode.Read ? 1 : 0);
      i2cWait = { bus, kind: 'connect' }; stopNow = true;
    };
    bus.onWriteByte = (value) => {
      ev('i2c', b, 'write', value);
      i2cWait = { bus, kind: 'write' }; stopNow = true;
    };
    bus.onReadByte = (ack) => {
      ev('i2c', b, 'read', ack ? 1 : 0);
      i2cWait = { bus, kind: 'read' }; stopNow = true;
    };
  });
}

function i2cAnswer(value) {
  const w = i2cWait;
  i2cWait = null;
  if (!w) return;
  if (w.kind === 'connect') w.bus.completeConnect(!!value);
  else if (w.kind === 'write') w.bus.completeWrite(!!value);
  else w.bus.completeRead(value & 0xff);
}

// ---- the chip -------------------------------------------------------------
function loadUf2(buf) {
  for (let off = 0; off + 512 <= buf.length; off += 512) {
    const b = buf.subarray(off, off + 512);
    const dv = new DataView(b.buffer, b.byteOffset, 512);
    if (dv.getUint32(0, true) !== 0x0a324655 || dv.getUint32(4, true) !== 0x9e5d5157) continue;
    const addr = dv.getUint32(12, true), size = dv.getUint32(16, true);
    mcu.flash.set(b.subarray(32, 32 + size), addr - FLASH_BASE);
  }
}

function boot(reason) {
  // A fresh chip on the same flash: what a power cycle or a watchdog reset does.
  // The watchdog's reason and scratch registers survive a watchdog reset.
  let scratch = null, why = 0;
  if (mcu) {
    baseNs = now();
    flashImage = mcu.flash.slice();
    const wd = mcu.peripherals[0x40058];
    scratch = wd.scratchData.slice();
    why = reason === 'watchdog' ? 1 : reason === 'force' ? 2 : 0;
  }
  mcu = new RP2040();
  clock = mcu.clock;
  mcu.logger = new ConsoleLogger(LogLevel.Error, true);
  mcu.loadBootrom(bootrom);
  if (flashImage) mcu.flash.set(flashImage);
  else loadUf2(uf2);
  flashImage = null;
  if (scratch && why) {
    const wd = mcu.peripherals[0x40058];
    wd.scratchData.set(scratch);
    wd.reason = why;
  }
  const wd = mcu.peripherals[0x40058];
  wd.onWatchdogTrigger = () => {
    // The chip resets: stop its watchdog timer here, or rp2040js re-arms the
    // alarm with zero delay and fires it for ever inside one clock tick.
    wd.alarm.enable = false;
    wd.timer.enable = false;
    resetWanted = wd.reason === 2 ? 'force' : 'watchdog';
    stopNow = true;
  };
  breakHandlers = new Map();
  installFlash();
  installUsb();
  installI2c();
  pendingRead = null;
  usbConnected = false;
  for (const [pin, p] of pulse) { p.rise = null; p.width = 0; p.alarm = clock.createAlarm(() => pulseTimeout(pin)); }
  for (const [pin, w] of ws) { w.rise = null; w.bytes = []; w.acc = 0; w.nbits = 0; w.alarm = clock.createAlarm(() => wsLatch(pin)); }
  watchPins();
  for (const [pin, level] of driven) mcu.gpio[pin].setInputValue(!!level);
  mcu.core.PC = FLASH_BASE;     // boot stage 2 at the start of flash
  boots++;
  ev('boot', reason || 'power');
}

function run(untilNs, maxEvents) {
  // Execute until the emulated instant untilNs, or earlier when something
  // needs Python (an I2C byte, a watched output, a reset...).
  const core = mcu.core;
  stopNow = false;
  const limit = untilNs - baseNs;
  while (clock.nanos < limit && !stopNow && !i2cWait) {
    if (core.waiting) {
      const dt = clock.nanosToNextAlarm;
      const room = limit - clock.nanos;
      clock.tick(dt > 0 && dt < room ? dt : room);
    } else {
      const c = core.executeInstruction();
      cycles += c;
      clock.tick(c * CYCLE_NS);
    }
    if (resetWanted) {
      const why = resetWanted;
      resetWanted = null;
      boot(why);
      stopNow = true;
    }
    if (events.length >= maxEvents) break;
  }
}

// ---- requests -------------------------------------------------------------
function reply(obj) { process.stdout.write(JSON.stringify(obj) + '\n'); }

function status() {
  const usb = usbOut.length ? Buffer.concat(usbOut).toString('base64') : '';
  usbOut = [];
  const out = { t: now(), events, usb, pending: hostBytes(), cycles, boots };
  events = [];
  return out;
}

const handlers = {
  init(m) {
    cfg = m;
    uf2 = readFileSync(m.uf2);
    const rom = readFileSync(m.bootrom);
    bootrom = new Uint32Array(rom.buffer, rom.byteOffset, rom.length / 4);
    if (m.flash) flashImage = new Uint8Array(readFileSync(m.flash));
    for (const pin of m.pulse || []) pulse.set(pin, { rise: null, width: 0, timeoutNs: 30e6 });
    for (const pin of m.ws2812 || []) ws.set(pin, { rise: null, bytes: [], acc: 0, nbits: 0, stop: false });
    for (const pin of m.outputs || []) outWatch.add(pin);
    for (const [pin, level] of m.inputs || []) if (level !== null) driven.set(pin, level);
    stopOnFlash = !!m.stop_on_flash;
    if (flashImage) {
      // A filesystem image goes to its place; the firmware from the UF2.
      const fs = flashImage;
      flashImage = null;
      boot(null);
      if (fs.length === 16 * 1024 * 1024) mcu.flash.set(fs);
      else mcu.flash.set(fs, m.fs_offset);
    } else {
      boot(null);
    }
    return status();
  },
  run(m) {
    if (m.usb) hostQueue.push(new Uint8Array(Buffer.from(m.usb, 'base64')));
    for (const [pin, level] of m.inputs || []) drive(pin, level);
    if (m.i2c !== undefined) i2cAnswer(m.i2c);
    feedHost();
    run(m.until, m.max_events || 1000);
    return status();
  },
  reset(m) {
    // m.flash (base64): a power cut, then power-up on this flash image (the
    // filesystem region at m.offset, or the whole flash); host bytes not yet
    // read are lost with the USB connection. One Node process serves many
    // boots (its JIT stays warm).
    if (m.flash) {
      const data = Buffer.from(m.flash, 'base64');
      mcu.flash.set(data, data.length === mcu.flash.length ? 0 : m.offset);
      hostQueue = [];
    }
    boot(m.reason || 'power');
    return status();
  },
  flash(m) {
    // The flash contents, or the filesystem region alone.
    const f = mcu.flash;
    const part = m.offset !== undefined ? f.subarray(m.offset, m.offset + m.length) : f;
    if (m.path) { writeFileSync(m.path, part); return status(); }
    return { ...status(), data: Buffer.from(part).toString('base64') };
  },
  sram() {
    // The SRAM as it is now (0x20000000, 264 KB): the heap census reads the
    // objects in it (sim/pico/heap_census.py).
    return { ...status(), data: Buffer.from(mcu.sram).toString('base64') };
  },
  stats() {
    return { ...status(), flash_ops: flashOps, flash_stall_max_ns: irqOffMax, usb_connected: usbConnected, warnings };
  },
  quit() { setImmediate(() => process.exit(0)); return status(); },
};

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (!line.trim()) return;
  let m;
  try { m = JSON.parse(line); } catch (e) { reply({ error: 'bad request: ' + e.message }); return; }
  const h = handlers[m.op];
  if (!h) { reply({ error: 'unknown op ' + m.op }); return; }
  try { reply(h(m)); } catch (e) { reply({ error: String(e && e.stack || e) }); }
});
rl.on('close', () => process.exit(0));
