// Runs a Python script inside the official MicroPython WebAssembly VM.
// usage: node run_mp.mjs [--heap BYTES] [--mount DIR:/vmpath]... SCRIPT.py
// Each mounted host directory is copied (.py and .json files) into the VM's
// in-memory filesystem; the script runs with those VM paths on sys.path.
// Exit status: 0 on success, 1 if the script raised (traceback on stderr).
import fs from "node:fs";
import path from "node:path";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const args = process.argv.slice(2);
let heap = 4 * 1024 * 1024;
const mounts = [];
let script = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--heap") heap = parseInt(args[++i], 10);
  else if (args[i] === "--mount") mounts.push(args[++i]);
  else script = args[i];
}
if (!script) {
  process.stderr.write("usage: run_mp.mjs [--heap N] [--mount DIR:/vm]... SCRIPT\n");
  process.exit(2);
}

let out = "";
const mp = await loadMicroPython({
  heapsize: heap,
  linebuffer: false,
  stdout: (d) => process.stdout.write(d),
  stderr: (d) => process.stderr.write(d),
});

function mkdirs(p) {
  const parts = p.split("/").filter(Boolean);
  let cur = "";
  for (const part of parts) {
    cur += "/" + part;
    try { mp.FS.mkdir(cur); } catch (e) { /* exists */ }
  }
}

function copyTree(src, dst) {
  mkdirs(dst);
  for (const ent of fs.readdirSync(src, { withFileTypes: true })) {
    if (ent.name === "__pycache__" || ent.name.startsWith(".")) continue;
    const s = path.join(src, ent.name);
    const d = dst + "/" + ent.name;
    if (ent.isDirectory()) copyTree(s, d);
    else if (/\.(py|mpy|json|txt)$/.test(ent.name)) mp.FS.writeFile(d, fs.readFileSync(s));
  }
}

const vmPaths = [];
for (const m of mounts) {
  const idx = m.lastIndexOf(":");
  const host = m.slice(0, idx), vm = m.slice(idx + 1);
  copyTree(host, vm);
  // A mount at /t/scenarios puts /t on sys.path (import scenarios.x).
  const root = "/" + vm.split("/").filter(Boolean)[0];
  if (!vmPaths.includes(root)) vmPaths.push(root);
}

const code = fs.readFileSync(script, "utf8");
const prelude = "import sys\n" + vmPaths.map((p, i) => `sys.path.insert(${i}, ${JSON.stringify(p)})\n`).join("");
// A line "#--- step" splits the script into separate runPython calls: this
// VM's gc.collect() only reclaims memory between calls, so measurements that
// need a real collection put one at the start of a step.
try {
  mp.runPython(prelude);
  for (const step of code.split(/^#--- step.*$/m)) mp.runPython(step);
} catch (e) {
  process.stderr.write(String(e && e.message ? e.message : e) + "\n");
  process.exit(1);
}
// Done: exit now rather than when Node has no timers left. A script that
// started asyncio tasks (the bench's running board) leaves their timers behind,
// and they would keep the process alive for ever. (Writes to a pipe or file
// are synchronous on Linux: nothing printed is lost.)
process.exit(0);
