// Roller Ghoster: the tower seen from above. The four staircases wind round
// it, each a quarter turn: the wall path on the inside (safe), the outer path
// on the outside (a ball coming down that staircase knocks its ghosts into the
// trench at its foot). The ring in the middle turns one notch per arrow roll.
import { el, polar, table, who } from "./svg.js";

const C = 300;                         // centre of the 600 x 600 drawing
const FACE = { "1": "1", "2": "2", "3": "3", "1a": "1 ↻", "2a": "2 ↻", ghost: "ghost" };
let lastRoll = null;
let turning = 0;                       // extra degrees while the tower is turning

export function rollerEvent(msg) {
  const d = Array.isArray(msg.data) ? msg.data : [];
  if (msg.ev === "roll") lastRoll = d[1];
  if (msg.ev === "rotating") turning = performance.now();
  if (msg.ev === "rotated") turning = 0;
}

// Where each space is: staircase k spans 90 degrees, climbing inward.
function spaces(layout) {
  const pos = { start: [C - 250, C - 250], top: [C, C] };
  const stairs = layout.staircases || [];
  const n = stairs.length || 4;
  const span = 360 / n;
  stairs.forEach((st, i) => {
    const k = i + 1;
    const a0 = -90 + i * span;
    const shrink = 1 - 0.09 * i;       // a spiral: each staircase a little higher (inner)
    pos[`${k}*`] = polar(C, C, 185 * shrink, a0 + 4);
    for (let w = 1; w <= st.wall; w++)
      pos[`${k}w${w}`] = polar(C, C, 150 * shrink, a0 + 4 + (w * (span - 8)) / (st.wall + 1));
    for (let o = 1; o <= st.outer; o++)
      pos[`${k}o${o}`] = polar(C, C, 222 * shrink, a0 + 4 + (o * (span - 8)) / (st.outer + 1));
    pos[`${k}T`] = polar(C, C, 268 * shrink, a0 + span / 2);
  });
  pos.last = polar(C, C, 92, -84);
  return { pos, n, span };
}

export function drawRoller(svg, extra, v, page) {
  const s = v.state;
  const layout = v.layout || { staircases: [] };
  const { pos, n, span } = spaces(layout);
  const cols = v.colours;
  const now = performance.now();
  const kids = [];
  // the tower's turning ring (one tick per notch; the marker turns with each arrow roll)
  const notches = layout.notches_per_rev || 8;
  let angle = (v.notches % notches) * (360 / notches);
  if (turning) angle += Math.min(1, (now - turning) / 1500) * (360 / notches);
  const ring = el("g", { id: "ring", transform: `rotate(${angle} ${C} ${C})`, "data-notch": v.notches });
  ring.append(el("circle", { cx: C, cy: C, r: 74, fill: "#2c2340", stroke: "#6b5a92", "stroke-width": 3 }));
  for (let i = 0; i < notches; i++) {
    const [x1, y1] = polar(C, C, 64, i * (360 / notches) - 90);
    const [x2, y2] = polar(C, C, 74, i * (360 / notches) - 90);
    ring.append(el("line", { x1, y1, x2, y2, stroke: "#6b5a92", "stroke-width": 3 }));
  }
  const [mx, my] = polar(C, C, 56, -90);
  ring.append(el("circle", { cx: mx, cy: my, r: 7, fill: "#ff9d3c" }));
  kids.push(ring);
  // the staircases
  (layout.staircases || []).forEach((st, i) => {
    const k = i + 1;
    const a0 = -90 + i * span;
    const shrink = 1 - 0.09 * i;
    const lit = page.local.ball[k] && now - page.local.ball[k] < 1500;
    const g = el("g", { id: `stair-${k}`, "data-stair": k, class: page.canPlay() && v.sim ? "click" : "" });
    // a wedge behind the staircase: click to drop a ball down it (simulated boards)
    const [ax, ay] = polar(C, C, 120 * shrink, a0 + 2);
    const [bx, by] = polar(C, C, 250 * shrink, a0 + 2);
    const [cx2, cy2] = polar(C, C, 250 * shrink, a0 + span - 2);
    const [dx, dy] = polar(C, C, 120 * shrink, a0 + span - 2);
    g.append(el("path", {
      d: `M${ax},${ay} L${bx},${by} A${250 * shrink},${250 * shrink} 0 0 1 ${cx2},${cy2} L${dx},${dy} A${120 * shrink},${120 * shrink} 0 0 0 ${ax},${ay}Z`,
      fill: lit ? "#4d3d16" : "#241d33", stroke: "#3b3150" }));
    // the beam across the outer path, lit when a ball crosses it
    const [b1x, b1y] = polar(C, C, 200 * shrink, a0 + span / 2);
    const [b2x, b2y] = polar(C, C, 245 * shrink, a0 + span / 2);
    g.append(el("line", { x1: b1x, y1: b1y, x2: b2x, y2: b2y, class: "beam", "data-lit": lit ? 1 : 0,
      stroke: lit ? "#ffe066" : "#5a4b75", "stroke-width": lit ? 7 : 3, "stroke-linecap": "round" }));
    const [lx, ly] = polar(C, C, 112 * shrink, a0 + span / 2);
    g.append(el("text", { x: lx, y: ly + 5, "text-anchor": "middle", fill: "#a79cba", "font-size": 14 }, `${k}`));
    const step = (id, r, fill, stroke) =>
      g.append(el("circle", { cx: pos[id][0], cy: pos[id][1], r, fill, stroke, "stroke-width": 2 }));
    step(`${k}*`, 13, "#3e3358", "#ffd166");
    for (let w = 1; w <= st.wall; w++)
      step(`${k}w${w}`, 11, w === st.broken ? "#1a1524" : "#3e3358", w === st.broken ? "#ff5d6c" : "#7b6aa3");
    for (let o = 1; o <= st.outer; o++) step(`${k}o${o}`, 11, "#3e3358", "#c77dff");
    const [tx, ty] = pos[`${k}T`];
    g.append(el("rect", { x: tx - 20, y: ty - 11, width: 40, height: 22, rx: 5, fill: "#0d0a12", stroke: "#55476f" }));
    g.append(el("text", { x: tx, y: ty + 4, "text-anchor": "middle", fill: "#6f628a", "font-size": 11 }, "trench"));
    if (st.broken) {
      const [bx2, by2] = pos[`${k}w${st.broken}`];
      g.append(el("text", { x: bx2, y: by2 + 4, "text-anchor": "middle", fill: "#ff5d6c", "font-size": 12 }, "x"));
    }
    if (page.canPlay() && v.sim) g.addEventListener("click", () => page.send({ t: "inject", stair: k }));
    kids.push(g);
  });
  if (layout.last_step_exposed !== false)
    kids.push(el("circle", { cx: pos.last[0], cy: pos.last[1], r: 11, fill: "#3e3358", stroke: "#c77dff", "stroke-width": 2 }));
  kids.push(el("circle", { cx: C, cy: C, r: 30, fill: "#3a2d14", stroke: "#ffd166", "stroke-width": 2 }));
  kids.push(el("text", { x: C, y: C + 5, "text-anchor": "middle", fill: "#ffd166", "font-size": 13 }, "top"));
  kids.push(el("text", { x: pos.start[0], y: pos.start[1] - 24, "text-anchor": "middle", fill: "#a79cba", "font-size": 13 }, "start"));
  // the ghosts (several on one space sit side by side)
  const at = {};
  (s.pos || []).forEach((space, p) => { (at[space] = at[space] || []).push(p); });
  for (const [space, ps] of Object.entries(at)) {
    const xy = pos[space];
    if (!xy) continue;
    ps.forEach((p, j) => {
      const dx = (j - (ps.length - 1) / 2) * 16;
      const turn = p === s.turn && !s.winner && s.winner !== 0;
      kids.push(el("circle", { cx: xy[0] + dx, cy: xy[1] - 2, r: 9, class: "ghost", "data-player": p,
        "data-space": space, fill: page.colourOf(cols[p]), stroke: turn ? "#fff" : "#111", "stroke-width": turn ? 3 : 1.5 }));
    });
  }
  // the die
  const face = s.face != null ? s.face : lastRoll;
  kids.push(el("rect", { x: 510, y: 20, width: 70, height: 70, rx: 12, fill: "#f4efe6", stroke: "#111" }));
  kids.push(el("text", { id: "die", x: 545, y: 66, "text-anchor": "middle", "font-size": face === "ghost" ? 18 : 28, fill: "#111",
    "data-face": face || "" }, face ? FACE[face] || face : "–"));
  kids.push(el("text", { x: 545, y: 108, "text-anchor": "middle", "font-size": 12, fill: "#a79cba" }, "die"));
  if (s.winner !== null && s.winner !== undefined) {
    kids.push(el("rect", { x: 120, y: 262, width: 360, height: 76, rx: 14, fill: "#000c", stroke: "#ffd166", "stroke-width": 3 }));
    kids.push(el("text", { id: "winner", x: C, y: 312, "text-anchor": "middle", "font-size": 34, "font-weight": 700,
      fill: page.colourOf(cols[s.winner]) }, `${cols[s.winner]} wins!`));
  }
  svg.setAttribute("viewBox", "0 0 600 600");
  svg.replaceChildren(...kids);
  const rows = (s.pos || []).map((space, p) => [who(cols[p], page.colourOf), space]);
  const info = document.createElement("p");
  info.textContent = `turn: ${cols[s.turn] || "?"} · phase ${s.phase} · tower turned ${v.notches} notch(es)` +
    (v.rotating ? " · turning…" : "") + (v.sim && page.canPlay() ? " · click a staircase to drop a ball" : "");
  const key = document.createElement("p");
  key.className = "key";
  key.textContent = "inner ring of steps: the wall path (safe) · outer ring (purple): the outer path, " +
    "knocked into the trench by a ball down that staircase · gold: star steps · x: broken step";
  extra.replaceChildren(info, key, table(["ghost", "space"], rows, s.turn));
}
