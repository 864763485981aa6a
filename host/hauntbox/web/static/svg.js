// Small helpers to build SVG without a library.
const NS = "http://www.w3.org/2000/svg";

export function el(name, attrs = {}, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

export function polar(cx, cy, r, deg) {
  const a = (deg * Math.PI) / 180;
  return [cx + r * Math.cos(a), cy + r * Math.sin(a)];
}

export function table(head, rows, activeRow = -1) {
  const t = document.createElement("table");
  t.className = "card";
  const tr = document.createElement("tr");
  for (const h of head) {
    const th = document.createElement("th");
    th.append(h);
    tr.append(th);
  }
  t.append(tr);
  rows.forEach((r, i) => {
    const row = document.createElement("tr");
    if (i === activeRow) row.className = "active";
    for (const c of r) {
      const td = document.createElement("td");
      td.append(c);
      row.append(td);
    }
    t.append(row);
  });
  return t;
}

export function who(name, colourOf) {
  const s = document.createElement("span");
  const dot = document.createElement("span");
  dot.className = "swatch";
  dot.style.background = colourOf(name);
  s.append(dot, name);
  return s;
}
