// Boxtop Pinball: Haunted House: the three levels of the table (Attic on top),
// the monster standees where they stand now, the clue spots (gold while a clue
// lies there), the holes, realms and the Summoning Circle; under it the
// scoreboard by player and round. On a simulated board a click on a standee
// or a clue spot is a hit there (the same sensor injection as the console's).
import { el, table, who } from "./svg.js";

const MONSTER = { medusa: "#6fdc8c", frank: "#7fb2ff", bob: "#d9a066" };

export function drawHaunted(svg, extra, v, page) {
  const s = v.state;
  const L = v.layout || {};
  const levels = L.levels || [];
  const H = 190, W = 600, top = 12;
  const band = {};
  levels.forEach((lv, i) => { band[lv.id] = top + i * (H + 8); });
  const xy = (lv, p) => [20 + p[0] * (W - 40), band[lv] + 24 + p[1] * (H - 34)];
  const click = v.sim && page.canPlay();
  const kids = [];
  levels.forEach((lv) => {
    kids.push(el("rect", { x: 4, y: band[lv.id], width: W - 8, height: H, rx: 12,
      fill: lv.id === "top" ? "#2a2140" : lv.id === "middle" ? "#2b1f2a" : "#1d2a22", stroke: "#3b3150" }));
    kids.push(el("text", { x: 16, y: band[lv.id] + 20, fill: "#a79cba", "font-size": 14, "font-weight": 600 }, lv.name));
  });
  const target = (node, name) => {
    if (click) {
      node.setAttribute("class", "click");
      node.addEventListener("click", () => page.send({ t: "inject", target: name }));
    }
    return node;
  };
  for (const h of L.holes || []) {
    const [x, y] = xy(h.level, h.pos);
    kids.push(target(el("circle", { id: h.id, cx: x, cy: y, r: 13, fill: "#050308", stroke: "#55476f" }), h.id));
  }
  for (const r of L.realms || []) {
    const [x, y] = xy(r.level, r.pos);
    kids.push(el("text", { x, y, "text-anchor": "middle", fill: "#c9b8ea", "font-size": 12 }, `${r.name} ×${r.multiplier}`));
  }
  if (L.summoning_circle) {
    const c = L.summoning_circle;
    const [x, y] = xy(c.level, c.pos);
    kids.push(target(el("circle", { id: "circle", cx: x, cy: y, r: 20, fill: "#ff5dd122", stroke: "#ff5dd1",
      "stroke-width": 2, "stroke-dasharray": "4 3" }), "circle"));
  }
  const spots = s.spots || {};
  for (const c of L.clue_spots || []) {
    const [x, y] = xy(c.level, c.pos);
    const has = !!spots[c.id];
    const g = el("g", { id: c.id, class: "clue" + (click ? " click" : ""), "data-clue": has ? 1 : 0 });
    g.append(el("path", { d: `M${x},${y - 12} L${x + 11},${y} L${x},${y + 12} L${x - 11},${y}Z`,
      fill: has ? "#ffd166" : "#2a2338", stroke: has ? "#7a5b00" : "#55476f" }));
    if (click) g.addEventListener("click", () => page.send({ t: "inject", target: c.id }));
    kids.push(g);
  }
  const spotPos = {};
  for (const m of L.monster_spots || []) spotPos[m.id] = m;
  for (const m of L.monster_spots || []) {
    const [x, y] = xy(m.level, m.pos);
    kids.push(el("circle", { cx: x, cy: y, r: 6, fill: "none", stroke: "#55476f" }));
  }
  for (const m of L.monsters || []) {
    const level = (s.monsters || {})[m.id];
    const sid = m.spots && m.spots[level];
    const sp = spotPos[sid];
    if (!sp) continue;
    const [x, y] = xy(sp.level, sp.pos);
    const g = el("g", { id: `monster-${m.id}`, "data-level": level, class: click ? "click" : "" });
    g.append(el("rect", { x: x - 30, y: y - 17, width: 60, height: 34, rx: 8, fill: MONSTER[m.id] || "#aaa", stroke: "#111" }));
    g.append(el("text", { x, y: y + 5, "text-anchor": "middle", "font-size": 14, "font-weight": 700, fill: "#111" }, m.name));
    if (click) g.addEventListener("click", () => page.send({ t: "inject", target: m.id }));
    kids.push(g);
  }
  svg.setAttribute("viewBox", `0 0 ${W} ${top + levels.length * (H + 8)}`);
  svg.replaceChildren(...kids);
  // the scoreboard: each round's dice + monster points, then the total
  const cols = v.colours;
  const rounds = L.rounds || 3;
  const head = ["player"];
  for (let r = 1; r <= rounds; r++) head.push(`round ${r}`);
  head.push("clues", "dice left", "total");
  const rows = cols.map((c, p) => {
    const row = [who(c, page.colourOf)];
    for (let r = 0; r < rounds; r++) {
      const done = (s.rounds || [])[r];
      const hits = ((s.hits || [])[r] || [])[p] || [];
      if (done) row.push(`${done[p][0]} + ${done[p][1]}`);
      else if (r === s.round - 1) row.push(hits.length ? `hit ${hits.join(", ")}` : "…");
      else row.push("");
    }
    row.push(String((s.clue_counts || [])[p] ?? ""), String((s.dice_left || [])[p] ?? ""),
      String((s.scores || [])[p] ?? 0));
    return row;
  });
  const info = document.createElement("p");
  const active = s.active >= 0 ? cols[s.active] : "nobody";
  info.textContent = `round ${s.round} of ${rounds} · ${s.phase === "round_end" ? "round-end entry" : s.phase}` +
    ` · active: ${active}` + (s.winners && s.winners.length ? ` · winner: ${s.winners.map((w) => cols[w]).join(" and ")}` : "") +
    (click ? " · click a monster, a clue, a hole or the circle: a die hits it" : "");
  info.id = "hh-info";
  extra.replaceChildren(info, table(head, rows, s.active));
}
