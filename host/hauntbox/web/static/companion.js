// The dice companions: Watch Out Beetlejuice (8 dice, keeps, the cards won)
// and Star Trek Super-Skill Pinball (two shared dice, rounds, nudges, tilts).
import { el, table, who } from "./svg.js";

const BJ_FACE = { bj: ["BJ", "#43c466"], adam: ["Adam", "#7fb2ff"], barbara: ["Barbara", "#ff79c6"],
  corpse: ["Corpse", "#d9a066"], ghost: ["Ghost", "#e6e6f0"], roach: ["Roach", "#c77dff"] };
let tilt = null;                        // the last tilt event: [player, amount, over]

export function companionEvent(msg, page) {
  const d = Array.isArray(msg.data) ? msg.data : [];
  if (msg.ev === "tilt") tilt = d;
  if (msg.ev === "nudge" || msg.ev === "game") tilt = null;
}

function die(x, y, size, label, fill, kept, id) {
  const g = el("g", { id, "data-kept": kept ? 1 : 0, "data-face": label });
  g.append(el("rect", { x, y, width: size, height: size, rx: size / 6, fill: fill || "#2a2338",
    stroke: kept ? "#ff9d3c" : "#111", "stroke-width": kept ? 5 : 2 }));
  return g;
}

function pips(g, x, y, size, n) {
  const P = { 1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [1, 3], [3, 1], [3, 3]],
    5: [[1, 1], [1, 3], [2, 2], [3, 1], [3, 3]], 6: [[1, 1], [1, 2], [1, 3], [3, 1], [3, 2], [3, 3]] }[n] || [];
  for (const [i, j] of P)
    g.append(el("circle", { cx: x + (j * size) / 4, cy: y + (i * size) / 4, r: size / 11, fill: "#111" }));
}

export function drawBeetlejuice(svg, extra, v, page) {
  const g = (v.state || {}).game || {};
  const keep = (v.state || {}).keep || 0;       // the controller's bit i: die i kept
  const cols = v.colours;
  const kids = [];
  kids.push(el("text", { x: 300, y: 34, "text-anchor": "middle", "font-size": 20, fill: "#ece6f5", "font-weight": 600 },
    `${cols[g.cur] || "?"} · turn ${g.turn} · ${g.phase}`));
  (g.dice || []).forEach((f, i) => {
    const x = 28 + (i % 4) * 142, y = 60 + Math.floor(i / 4) * 142;
    const [word, fill] = BJ_FACE[f] || ["", "#2a2338"];
    const kept = !!f && ((keep >> i) & 1) === 1;
    const d = die(x, y, 120, f || "", f ? fill : "#2a2338", kept, `die-${i}`);
    d.append(el("text", { x: x + 60, y: y + 68, "text-anchor": "middle", "font-size": 22, "font-weight": 700,
      fill: "#111" }, word || "·"));
    d.append(el("text", { x: x + 10, y: y + 20, "font-size": 13, fill: "#111" }, String(i + 1)));
    if (kept) d.append(el("text", { x: x + 60, y: y + 108, "text-anchor": "middle", "font-size": 13, fill: "#111" }, "kept"));
    kids.push(d);
  });
  const slots = g.slots || [];
  kids.push(el("text", { x: 28, y: 372, "font-size": 14, fill: "#a79cba" }, "rooms face up: " + (slots.join("  ") || "–")));
  kids.push(el("text", { x: 28, y: 396, "font-size": 14, fill: "#a79cba" },
    `Beetlejuice's pile: ${(g.bj_pile || []).length} card(s)` + (v.summary ? `, ${v.summary.bj_points} pts` : "")));
  if (g.result) {
    const text = g.result === "bj" ? "Beetlejuice wins!" : `${(g.winners || []).map((w) => cols[w]).join(" and ")} win!`;
    kids.push(el("text", { id: "winner", x: 300, y: 440, "text-anchor": "middle", "font-size": 30, "font-weight": 700, fill: "#ffd166" }, text));
  }
  svg.setAttribute("viewBox", "0 0 600 460");
  svg.replaceChildren(...kids);
  const pts = (v.summary && v.summary.points) || [];
  const rows = cols.slice(0, (g.won || []).length).map((c, p) => [who(c, page.colourOf),
    String((g.held || [])[p]?.length ?? 0), String((g.won || [])[p]?.length ?? 0), String(pts[p] ?? "?")]);
  extra.replaceChildren(table(["player", "cards held", "cards won", "points"], rows, g.cur));
}

export function drawSuperskill(svg, extra, v, page) {
  const g = (v.state || {}).game || {};
  const cols = v.colours;
  const kids = [];
  kids.push(el("text", { x: 300, y: 40, "text-anchor": "middle", "font-size": 20, fill: "#ece6f5", "font-weight": 600 },
    `roll ${g.roll_no} · ${g.phase}`));
  (g.dice || [null, null]).forEach((n, i) => {
    const x = 150 + i * 170, y = 80;
    const d = die(x, y, 130, n ? String(n) : "", n ? "#f4efe6" : "#2a2338", false, `die-${i}`);
    if (n) pips(d, x, y, 130, n);
    kids.push(d);
  });
  if (tilt) kids.push(el("text", { id: "tilt", x: 300, y: 270, "text-anchor": "middle", "font-size": 20,
    "font-weight": 700, fill: "#ffd166" }, `TILT! ${cols[tilt[0]]} nudged ${tilt[1]}, the dice differ by ${tilt[2]}`));
  if ((g.winners || []).length)
    kids.push(el("text", { id: "winner", x: 300, y: 310, "text-anchor": "middle", "font-size": 30, "font-weight": 700,
      fill: "#ffd166" }, `${g.winners.map((w) => cols[w]).join(" and ")} win!`));
  svg.setAttribute("viewBox", "0 0 600 330");
  svg.replaceChildren(...kids);
  // the score card: each player's round, nudges used of the boxes, finished
  const rows = (g.players || []).map((seat, p) => {
    const [round, done, fin, namt, nudges] = seat;   // firmware/games/superskill.py Seat
    const t = page.local.tilts[p];
    // After a nudge the next roll decides: a difference below the nudge is a tilt.
    const warn = namt ? `TILT WARNING: nudge ${namt}, the next roll decides` : t ? `tilted (nudge ${t[1]}, difference ${t[2]})` : "";
    return [who(cols[p], page.colourOf), done ? "done" : `${round} of ${g.rounds}`,
      `${nudges} of ${g.nudge_boxes}`, done && fin >= 0 ? `roll ${fin}` : "", warn];
  });
  extra.replaceChildren(table(["player", "round", "nudges", "finished", "tilt"], rows));
}
