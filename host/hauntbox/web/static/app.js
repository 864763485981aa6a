// The page: one WebSocket to the hauntbox web server, a drawing per game.
// The server sends "view" (the whole picture) and "ev" (each board event, for
// the animations); the page sends only the few requests of messages.py.
import { drawRoller, rollerEvent } from "./roller.js";
import { drawHaunted } from "./haunted.js";
import { drawBeetlejuice, drawSuperskill, companionEvent } from "./companion.js";

const $ = (id) => document.getElementById(id);
const COLOURS = { red: "#e8434f", blue: "#4a8cff", green: "#43c466", yellow: "#f2d031",
  orange: "#ff8c2e", purple: "#a66cff", white: "#f2f2f2", pink: "#ff79c6" };
export const colourOf = (name) => COLOURS[name] || "#999";

let ws = null;
let view = null;
let tries = 0;
const local = { ball: {}, tilts: {} };   // what the events add to the view: beams lit, tilts
const page = { send, colourOf, local, canPlay: () => !!view && view.role === "controller" };

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}/ws`);
  ws.onopen = () => { tries = 0; };
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.t === "view") { view = m; render(); }
    else if (m.t === "ev") onEvent(m.msg);
    else if (m.t === "reply") showReply(m);
  };
  ws.onclose = () => {
    setConn("server gone", "the hauntbox web server is not answering: retrying");
    // Nothing can be sent now: no button may look as if it would do something.
    for (const b of document.querySelectorAll("#options button, #new-form button, #take"))
      b.disabled = true;
    tries += 1;
    setTimeout(connect, Math.min(3000, 300 * tries));
  };
}

function onEvent(msg) {
  const d = Array.isArray(msg.data) ? msg.data : [];
  if (msg.ev === "ball") local.ball[d[0]] = performance.now();
  if (msg.ev === "tilt") local.tilts[d[0]] = d;
  if (msg.ev === "nudge") delete local.tilts[d[0]];
  if (msg.ev === "game") { local.tilts = {}; local.ball = {}; }
  rollerEvent(msg, page);
  companionEvent(msg, page);
  if (view) drawBoard();
}

function showReply(m) {
  const r = $("reply");
  r.textContent = m.text || "";
  r.classList.toggle("bad", !m.ok);
}

function setConn(status, text) {
  const c = $("conn");
  c.dataset.status = status;
  c.textContent = text;
}

const STATUS_WORDS = {
  connected: "connected", reconnecting: "reconnecting…", lost: "lost: reconnecting…",
  gone: "gone: the board did not come back", closed: "closed", "resync failed": "resync failed",
  connecting: "connecting…", "in use": "another program holds the port",
};

function render() {
  const v = view;
  const holders = v.holders || [];
  setConn(v.status, `${STATUS_WORDS[v.status] || v.status} · ${v.port}`);
  $("conn").title = v.detail || "";
  $("game").textContent = v.game || "no game";
  const warn = [];
  if (holders.length)
    warn.push("another program holds the port: " +
      holders.map(([pid, name]) => `${name} (pid ${pid})`).join(", ") +
      " — it takes bytes meant for this page; close it");
  if (v.status !== "connected" && v.detail) warn.push(`${v.status}: ${v.detail}`);
  if (v.health) warn.push(v.health);
  $("warn").hidden = warn.length === 0;
  $("warn").textContent = warn.join(" · ");
  const mine = v.role === "controller";
  $("role").textContent = mine ? "you have the controls" :
    (v.controller ? "read-only: another page has the controls" : "read-only");
  $("take").hidden = mine;
  $("take").disabled = false;
  renderPrompt(v, mine);
  renderLog(v.log || []);
  renderNewForm(v, mine);
  drawBoard();
}

function renderPrompt(v, mine) {
  const p = v.prompt;
  $("prompt-title").textContent = p ? p.title : (v.over ? "game over" : "(waiting for the board)");
  const box = $("options");
  box.replaceChildren();
  if (!p) return;
  p.options.forEach((label, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.dataset.index = i;
    if (i === p.highlight) b.classList.add("hl");
    b.disabled = !mine || v.status !== "connected";
    b.onclick = () => send({ t: "act", index: i, player: p.player });
    box.append(b);
  });
}

let logKey = "";
function renderLog(lines) {
  const key = lines.length + ":" + (lines[lines.length - 1] || "");
  if (key === logKey) return;
  logKey = key;
  const ol = $("log");
  const atEnd = ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 8;
  ol.replaceChildren(...lines.map((t) => {
    const li = document.createElement("li");
    li.textContent = t;
    if (t.startsWith("FAULT")) li.className = "fault";
    else if (t.startsWith("--")) li.className = "sys";
    return li;
  }));
  if (atEnd) ol.scrollTop = ol.scrollHeight;
}

function renderNewForm(v, mine) {
  const sel = $("new-game");
  const games = (v.hello && v.hello.games) || [];
  if (sel.dataset.games !== games.join()) {
    sel.dataset.games = games.join();
    sel.replaceChildren(...games.map((g) => new Option(g, g)));
  }
  // Filled from the board when its game changes, then left to the player's choice.
  const players = v.state && (v.state.players || (v.state.game && (v.state.game.names || v.state.game.players || []).length)
    || (v.state.scores && v.state.scores.length));
  const shown = `${v.game}/${players}`;
  if (sel.dataset.shown !== shown && v.game) {
    sel.dataset.shown = shown;
    sel.value = v.game;
    if (players) $("new-players").value = players;
  }
  for (const el of $("new-form").elements) el.disabled = !mine;
}

function drawBoard() {
  const v = view;
  const svg = $("board");
  const extra = $("extra");
  if (!v || !v.state) {
    svg.replaceChildren();
    extra.replaceChildren();
    return;
  }
  if (v.game === "roller-ghoster") drawRoller(svg, extra, v, page);
  else if (v.game === "haunted-house") drawHaunted(svg, extra, v, page);
  else if (v.game === "beetlejuice") drawBeetlejuice(svg, extra, v, page);
  else if (v.game === "superskill") drawSuperskill(svg, extra, v, page);
}

$("take").onclick = () => send({ t: "take" });
$("new-form").onsubmit = (e) => {
  e.preventDefault();
  send({ t: "new", game: $("new-game").value, players: Number($("new-players").value) });
};
setInterval(() => { if (view && view.game === "roller-ghoster") drawBoard(); }, 250);
connect();
