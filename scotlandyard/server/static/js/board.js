// The London board drawn as SVG from GET /api/board: lines per transport, stations with
// their stop types, pieces, highlights (legal destinations, possible locations, heat map,
// Mr X's path), pan (drag), zoom (wheel, buttons, keys) and keyboard focus on targets.

import { t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";

/** Colours of the pieces as in the box: detectives red, blue, green, yellow, purple. */
export const PIECE_COLOURS = {
  X: "#111111",
  D1: "#d62828", D2: "#1f5fbf", D3: "#2a9d3f", D4: "#f0c419", D5: "#7b3fa0",
  P1: "#37474f", P2: "#546e7a", P3: "#455a64", P4: "#607d8b",
};

// Line styles: colour AND pattern (width, dashes, a white core for the underground), so
// that the transports are told apart without colour too.
const LINE_ORDER = ["taxi", "bus", "underground", "ferry"];

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.append(node);
  return node;
}

/** The pawn silhouette, standing with its foot at (0, 0). */
const PAWN = "M-7.5 0 L7.5 0 L6 -3 L3.4 -5 L2.6 -12 A5.6 5.6 0 1 0 -2.6 -12 L-3.4 -5 L-6 -3 Z";

export class BoardView {
  /**
   * container: an element to draw into; data: the /api/board object;
   * onStation(station, element): called when a (target) station is clicked or activated.
   */
  constructor(container, data, { onStation = () => {} } = {}) {
    this.container = container;
    this.data = data;
    this.onStation = onStation;
    this.width = data.width;
    this.height = data.height;
    this.pos = {};
    for (const [s, xy] of Object.entries(data.positions)) this.pos[Number(s)] = xy;
    this.stopTypes = {};
    for (const [s, types] of Object.entries(data.stop_types || {})) this.stopTypes[Number(s)] = types;
    this.targets = [];
    this.view = { x: -14, y: -26, w: this.width + 28, h: this.height + 36 };
    this.stationNodes = new Map();
    this.dragged = false;
    this.build();
  }

  build() {
    const wrap = document.createElement("div");
    wrap.className = "board-wrap";
    const svg = el("svg", {
      class: "board-svg",
      role: "application",
      "aria-roledescription": "map",
      preserveAspectRatio: "xMidYMid meet",
    });
    svg.setAttribute("aria-label", t("board.label"));
    this.svg = svg;
    const defs = el("defs", {}, svg);
    const paper = el("pattern", { id: "paper", width: 24, height: 24, patternUnits: "userSpaceOnUse" }, defs);
    el("rect", { width: 24, height: 24, fill: "#efe6cf" }, paper);
    el("path", { d: "M0 12 H24 M12 0 V24", stroke: "#e6dbbf", "stroke-width": 1 }, paper);
    const clip = el("clipPath", { id: "map-clip" }, defs);
    el("rect", { x: 0, y: 0, width: this.width, height: this.height, rx: 6 }, clip);
    const shadow = el("filter", { id: "shadow", x: "-50%", y: "-50%", width: "200%", height: "200%" }, defs);
    el("feDropShadow", { dx: 0.8, dy: 1.2, stdDeviation: 1.1, "flood-opacity": 0.45 }, shadow);

    this.root = el("g", { class: "board-root" }, svg);
    el("rect", { x: -400, y: -400, width: this.width + 800, height: this.height + 800, fill: "url(#paper)", class: "paper" }, this.root);
    this.drawRiver();
    this.underlay = el("g", { class: "layer-underlay" }, this.root);
    this.lines = el("g", { class: "layer-lines" }, this.root);
    this.drawLines();
    const name = el("text", { x: this.width - 16, y: this.height - 14, class: "map-name" }, this.root);
    name.textContent = "LONDON";
    this.pathLayer = el("g", { class: "layer-path" }, this.root);
    this.stationsLayer = el("g", { class: "layer-stations" }, this.root);
    this.drawStations();
    this.piecesLayer = el("g", { class: "layer-pieces" }, this.root);
    el("rect", { x: 1, y: 1, width: this.width - 2, height: this.height - 2, fill: "none",
      stroke: "#6b5a3a", "stroke-width": 3, rx: 6 }, this.root);
    wrap.append(svg);
    wrap.append(this.controls());
    this.container.replaceChildren(wrap);
    this.wrap = wrap;
    this.applyView();
    this.bindPanZoom();
    this.bindKeys();
  }

  drawRiver() {
    // The Thames, drawn through the four ferry stations (it is where the boats run).
    const ferry = (this.data.edges.ferry || []).flat();
    const order = [194, 157, 115, 108].filter((s) => ferry.includes(s) && this.pos[s]);
    if (order.length < 2) return;
    const pts = order.map((s) => this.pos[s]);
    const first = pts[0];
    const last = pts[pts.length - 1];
    const all = [[first[0] - 90, this.height + 20], ...pts.map(([x, y]) => [x + 14, y + 16]),
      [this.width + 20, last[1] + 30]];
    const d = catmullRom(all);
    const g = el("g", { class: "river", "clip-path": "url(#map-clip)" }, this.root);
    el("path", { d, fill: "none", stroke: "#8fbcd8", "stroke-width": 48, "stroke-linecap": "round",
      "stroke-linejoin": "round" }, g);
    el("path", { d, fill: "none", stroke: "#b5d6ea", "stroke-width": 40, "stroke-linecap": "round",
      "stroke-linejoin": "round" }, g);
  }

  drawLines() {
    // Pairs served by several transports get parallel lines side by side.
    const pairs = new Map();
    for (const kind of LINE_ORDER) {
      for (const [a, b] of this.data.edges[kind] || []) {
        const key = a < b ? `${a}-${b}` : `${b}-${a}`;
        if (!pairs.has(key)) pairs.set(key, []);
        pairs.get(key).push(kind);
      }
    }
    const groups = {};
    for (const kind of LINE_ORDER) groups[kind] = el("g", { class: `lines lines-${kind}` }, this.lines);
    for (const [key, kinds] of pairs) {
      const [a, b] = key.split("-").map(Number);
      const [x1, y1] = this.pos[a];
      const [x2, y2] = this.pos[b];
      const len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const nx = -(y2 - y1) / len;
      const ny = (x2 - x1) / len;
      const gap = 3.4;
      kinds.forEach((kind, i) => {
        const off = (i - (kinds.length - 1) / 2) * gap;
        const attrs = { x1: x1 + nx * off, y1: y1 + ny * off, x2: x2 + nx * off, y2: y2 + ny * off };
        const g = groups[kind];
        if (kind === "underground") {
          el("line", { ...attrs, class: "ln ln-underground" }, g);
          el("line", { ...attrs, class: "ln ln-underground-core" }, g);
        } else {
          el("line", { ...attrs, class: `ln ln-${kind}-casing` }, g);
          el("line", { ...attrs, class: `ln ln-${kind}` }, g);
        }
      });
    }
  }

  /** Re-read the stations' accessible names (after a language change). */
  relabel() {
    this.svg.setAttribute("aria-label", t("board.label"));
    for (const [s, g] of this.stationNodes) g.setAttribute("aria-label", this.stationLabel(s));
    for (const b of this.wrap.querySelectorAll(".board-controls button")) {
      b.title = t(b.dataset.i18nTitle);
      b.setAttribute("aria-label", t(b.dataset.i18nAria));
    }
  }

  stationLabel(s) {
    const types = this.stopTypes[s] || ["taxi"];
    return [t("board.station", { n: s }), ...types.map((k) => t(`ticket.${k}`))].join(", ");
  }

  drawStations() {
    for (const [sKey, [x, y]] of Object.entries(this.pos)) {
      const s = Number(sKey);
      const types = this.stopTypes[s] || ["taxi"];
      const g = el("g", { class: "station", transform: `translate(${x} ${y})`, "data-station": s }, this.stationsLayer);
      g.setAttribute("aria-label", this.stationLabel(s));
      el("circle", { r: 17, class: "st-target-ring" }, g);
      if (types.includes("ferry")) el("circle", { r: 13.2, class: "st-ferry" }, g);
      if (types.includes("underground")) el("circle", { r: 11.6, class: "st-underground" }, g);
      const r = 9.2;
      el("path", { d: `M${-r} 0 A${r} ${r} 0 0 1 ${r} 0 Z`,
        class: types.includes("bus") ? "st-top st-bus" : "st-top st-taxi" }, g);
      el("path", { d: `M${-r} 0 A${r} ${r} 0 0 0 ${r} 0 Z`, class: "st-bottom st-taxi" }, g);
      el("circle", { r, class: "st-edge" }, g);
      el("rect", { x: -8.6, y: -5, width: 17.2, height: 10, rx: 2.5, class: "st-label" }, g);
      const text = el("text", { class: "st-num", y: 3.4 }, g);
      text.textContent = String(s);
      g.addEventListener("click", (ev) => {
        if (this.dragged) return;
        ev.stopPropagation();
        this.onStation(s, g);
      });
      this.stationNodes.set(s, g);
    }
  }

  controls() {
    const box = document.createElement("div");
    box.className = "board-controls";
    const mk = (cls, text, key, fn) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = `btn-icon ${cls}`;
      b.textContent = text;
      b.dataset.i18nTitle = key;
      b.dataset.i18nAria = key;
      b.title = t(key);
      b.setAttribute("aria-label", t(key));
      b.addEventListener("click", fn);
      box.append(b);
      return b;
    };
    mk("zoom-in", "+", "board.zoom_in", () => this.zoomBy(1.4));
    mk("zoom-out", "−", "board.zoom_out", () => this.zoomBy(1 / 1.4));
    mk("zoom-fit", "⤢", "board.zoom_fit", () => this.fit());
    return box;
  }

  // ---- view box: pan and zoom ---------------------------------------------------------
  applyView() {
    const v = this.view;
    this.svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
    this.svg.dataset.zoom = (this.width / v.w).toFixed(3);
  }

  fit() {
    // a margin above the top row, where the pawns of the first stations stand
    this.view = { x: -14, y: -26, w: this.width + 28, h: this.height + 36 };
    this.applyView();
  }

  /** Zoom by `factor` (>1 zooms in) around the board point (cx, cy), default the centre. */
  zoomBy(factor, cx = null, cy = null) {
    const v = this.view;
    const w = Math.min(this.width * 1.5, Math.max(this.width / 8, v.w / factor));
    const k = w / v.w;
    const px = cx ?? v.x + v.w / 2;
    const py = cy ?? v.y + v.h / 2;
    this.view = { x: px - (px - v.x) * k, y: py - (py - v.y) * k, w, h: v.h * k };
    this.clampView();
    this.applyView();
  }

  clampView() {
    const v = this.view;
    const mx = v.w * 0.5;
    const my = v.h * 0.5;
    v.x = Math.min(this.width - v.w + mx, Math.max(-mx, v.x));
    v.y = Math.min(this.height - v.h + my, Math.max(-my, v.y));
  }

  /** Board coordinates of a client (screen) point. */
  toBoard(clientX, clientY) {
    const ctm = this.svg.getScreenCTM();
    if (!ctm) return [this.view.x, this.view.y];
    const p = new DOMPoint(clientX, clientY).matrixTransform(ctm.inverse());
    return [p.x, p.y];
  }

  bindPanZoom() {
    const svg = this.svg;
    svg.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const [x, y] = this.toBoard(ev.clientX, ev.clientY);
      this.zoomBy(Math.exp(-ev.deltaY * 0.0015), x, y);
    }, { passive: false });
    let start = null;
    svg.addEventListener("pointerdown", (ev) => {
      if (ev.button !== 0) return;
      start = { x: ev.clientX, y: ev.clientY, view: { ...this.view }, id: ev.pointerId };
      this.dragged = false;
    });
    svg.addEventListener("pointermove", (ev) => {
      if (!start || ev.pointerId !== start.id) return;
      const dx = ev.clientX - start.x;
      const dy = ev.clientY - start.y;
      if (!this.dragged && Math.hypot(dx, dy) < 5) return;
      if (!this.dragged) {
        this.dragged = true;
        svg.setPointerCapture(ev.pointerId);
        svg.classList.add("panning");
      }
      const ctm = svg.getScreenCTM();
      const scale = ctm ? ctm.a : 1;
      this.view = { ...start.view, x: start.view.x - dx / scale, y: start.view.y - dy / scale };
      this.clampView();
      this.applyView();
    });
    const end = (ev) => {
      if (!start || ev.pointerId !== start.id) return;
      start = null;
      svg.classList.remove("panning");
      // the click that follows a drag must not play a move; clear the flag after it
      setTimeout(() => { this.dragged = false; }, 0);
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
  }

  bindKeys() {
    this.svg.addEventListener("keydown", (ev) => {
      const focused = document.activeElement?.closest?.(".station");
      const idx = focused ? this.targets.indexOf(Number(focused.dataset.station)) : -1;
      if (["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"].includes(ev.key) && this.targets.length) {
        ev.preventDefault();
        const step = ev.key === "ArrowRight" || ev.key === "ArrowDown" ? 1 : -1;
        const n = this.targets.length;
        const next = idx < 0 ? (step > 0 ? 0 : n - 1) : (idx + step + n) % n;
        this.focusStation(this.targets[next]);
      } else if ((ev.key === "Enter" || ev.key === " ") && idx >= 0) {
        ev.preventDefault();
        this.onStation(this.targets[idx], focused);
      } else if (ev.key === "+" || ev.key === "=") {
        this.zoomBy(1.4);
      } else if (ev.key === "-") {
        this.zoomBy(1 / 1.4);
      }
    });
  }

  /** Move keyboard focus to a station (scrolling it into view). */
  focusStation(s) {
    const node = this.stationNodes.get(s);
    if (!node) return;
    this.ensureVisible(s);
    node.focus();
  }

  ensureVisible(s) {
    const [x, y] = this.pos[s];
    const v = this.view;
    const m = 30;
    if (x < v.x + m || x > v.x + v.w - m || y < v.y + m || y > v.y + v.h - m) {
      this.view = { ...v, x: x - v.w / 2, y: y - v.h / 2 };
      this.clampView();
      this.applyView();
    }
  }

  /** The on-screen centre of a station (for placing popups). */
  screenPoint(s) {
    const [x, y] = this.pos[s];
    const ctm = this.svg.getScreenCTM();
    if (!ctm) return { x: 0, y: 0 };
    const p = new DOMPoint(x, y).matrixTransform(ctm);
    return { x: p.x, y: p.y };
  }

  // ---- what is shown on the board --------------------------------------------------------
  /** Legal destinations: highlighted, clickable and focusable (Tab / arrow keys). */
  setTargets(stations, kind = "move") {
    for (const s of this.targets) {
      const node = this.stationNodes.get(s);
      if (!node) continue;
      node.classList.remove("target", "target-second");
      node.removeAttribute("tabindex");
      node.removeAttribute("role");
    }
    this.targets = [...stations];
    for (const s of this.targets) {
      const node = this.stationNodes.get(s);
      if (!node) continue;
      node.classList.add("target");
      if (kind === "second") node.classList.add("target-second");
      node.setAttribute("tabindex", "0");
      node.setAttribute("role", "button");
    }
    this.svg.dataset.targets = this.targets.join(" ");
  }

  /** Mark one station as chosen (the first step of a double move). */
  setChosen(station) {
    for (const n of this.stationsLayer.querySelectorAll(".chosen")) n.classList.remove("chosen");
    if (station != null) this.stationNodes.get(station)?.classList.add("chosen");
  }

  /**
   * Shade stations: `possible` (a list) in one colour, or `heat` ({station: p}) graded by
   * probability. Either may be null.
   */
  setShading(possible, heat) {
    this.underlay.replaceChildren();
    if (heat) {
      const values = Object.values(heat);
      const max = Math.max(...values, 1e-9);
      for (const [s, p] of Object.entries(heat)) {
        const xy = this.pos[Number(s)];
        if (!xy || p <= 0) continue;
        const k = Math.sqrt(p / max);
        el("circle", { cx: xy[0], cy: xy[1], r: 13 + 9 * k, class: "heat",
          fill: heatColour(k), "fill-opacity": (0.35 + 0.5 * k).toFixed(3),
          "data-station": s, "data-p": p.toFixed(4) }, this.underlay);
      }
    } else if (possible) {
      for (const s of possible) {
        const xy = this.pos[s];
        if (!xy) continue;
        el("circle", { cx: xy[0], cy: xy[1], r: 16, class: "possible", "data-station": s }, this.underlay);
      }
    }
  }

  /** Draw Mr X's path (a list of stations, the first his start) with slot numbers. */
  setPath(stations, labels = []) {
    this.pathLayer.replaceChildren();
    const pts = stations.filter((s) => s != null && this.pos[s]).map((s) => this.pos[s]);
    if (pts.length < 1) return;
    if (pts.length > 1) {
      el("polyline", { points: pts.map((p) => p.join(",")).join(" "), class: "mrx-path-casing" }, this.pathLayer);
      el("polyline", { points: pts.map((p) => p.join(",")).join(" "), class: "mrx-path" }, this.pathLayer);
    }
    stations.forEach((s, i) => {
      const xy = this.pos[s];
      if (!xy || !labels[i]) return;
      const g = el("g", { class: "mrx-path-label", transform: `translate(${xy[0] + 12} ${xy[1] - 12})` }, this.pathLayer);
      el("circle", { r: 6.5 }, g);
      const tx = el("text", { y: 2.6 }, g);
      tx.textContent = labels[i];
    });
  }

  /**
   * Place the pieces: `stations` {piece: station}; Mr X (key "X") drawn when not null;
   * `ghost`: Mr X's last revealed station, drawn faded, or null.
   */
  setPieces(stations, { active = null, ghost = null, lastSeen = null } = {}) {
    this.piecesLayer.replaceChildren();
    if (lastSeen && this.pos[lastSeen.station] && stations.X == null && ghost == null) {
      // where Mr X was last seen (a public reveal), for the detectives
      const [x, y] = this.pos[lastSeen.station];
      const g = el("g", { class: "last-seen", transform: `translate(${x} ${y})`,
        "data-station": lastSeen.station }, this.piecesLayer);
      el("circle", { r: 15 }, g);
      const tx = el("text", { y: -17.5 }, g);
      tx.textContent = `X ${lastSeen.slot}`;
      const title = el("title", {}, g);
      title.textContent = t("board.last_seen", { station: lastSeen.station, slot: lastSeen.slot });
    }
    const entries = Object.entries(stations).filter(([, s]) => s != null && this.pos[s]);
    if (ghost != null && this.pos[ghost] && stations.X == null) entries.push(["X", ghost, true]);
    for (const [piece, s, faded] of entries) {
      const [x, y] = this.pos[s];
      const police = piece.startsWith("P");
      const g = el("g", {
        class: `piece piece-${piece}${faded ? " ghost" : ""}${piece === active ? " active" : ""}`,
        transform: `translate(${x} ${y})`, "data-piece": piece, "data-station": s,
      }, this.piecesLayer);
      const colour = PIECE_COLOURS[piece] || "#444";
      el("circle", { r: 11.5, class: "piece-base", stroke: colour }, g);
      const pawn = el("g", { transform: "translate(0 -6)", filter: "url(#shadow)" }, g);
      el("path", { d: PAWN, fill: piece === "X" ? "#ffffff" : colour, stroke: piece === "X" ? "#111" : "#222",
        "stroke-width": piece === "X" ? 1.6 : 0.8 }, pawn);
      if (police) el("ellipse", { cx: 0, cy: -4, rx: 4.6, ry: 1.6, fill: "none", stroke: "#fff", "stroke-width": 1.4 }, pawn);
      if (piece === "X") {
        const tx = el("text", { class: "piece-x", y: -13.5 }, pawn);
        tx.textContent = "X";
      }
      const title = el("title", {}, g);
      title.textContent = `${pieceName(piece)} — ${s}`;
    }
  }
}

/** A readable name of a piece in the current language. */
export function pieceName(piece) {
  if (piece === "X") return t("piece.mr_x");
  if (piece.startsWith("D")) return t("piece.detective", { n: piece.slice(1) });
  if (piece.startsWith("P")) return t("piece.police", { n: piece.slice(1) });
  return piece;
}

function heatColour(k) {
  // pale yellow (unlikely) -> orange -> deep red (likely)
  const stops = [[255, 224, 130], [245, 140, 40], [190, 20, 30]];
  const f = k * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(f));
  const u = f - i;
  const c = stops[i].map((v, j) => Math.round(v + (stops[i + 1][j] - v) * u));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

function catmullRom(points) {
  let d = `M${points[0][0]} ${points[0][1]}`;
  for (let i = 0; i < points.length - 1; i++) {
    const p0 = points[Math.max(0, i - 1)];
    const p1 = points[i];
    const p2 = points[i + 1];
    const p3 = points[Math.min(points.length - 1, i + 2)];
    const c1 = [p1[0] + (p2[0] - p0[0]) / 6, p1[1] + (p2[1] - p0[1]) / 6];
    const c2 = [p2[0] - (p3[0] - p1[0]) / 6, p2[1] - (p3[1] - p1[1]) / 6];
    d += ` C${c1[0].toFixed(1)} ${c1[1].toFixed(1)} ${c2[0].toFixed(1)} ${c2[1].toFixed(1)} ${p2[0]} ${p2[1]}`;
  }
  return d;
}
