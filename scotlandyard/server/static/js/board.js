// The London board drawn as SVG from GET /api/board: a vector London of our own (the Thames
// with its bridges, parks, districts), lines per transport, stations with their stop types,
// pieces (pawns with a letter), moves animated along their line with a trail, Mr X's ghost
// at his last reveal, highlights (legal destinations with their tickets, possible locations,
// heat map, Mr X's path), pan (drag), pinch and wheel zoom, keyboard focus by direction.

import { t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";

/** Colours of the pieces as in the box: detectives red, blue, green, yellow, purple. */
export const PIECE_COLOURS = {
  X: "#111111",
  D1: "#d62828", D2: "#1f5fbf", D3: "#2a9d3f", D4: "#f0c419", D5: "#7b3fa0",
  P1: "#37474f", P2: "#546e7a", P3: "#455a64", P4: "#607d8b",
};
/** Text colour on each pawn, chosen for contrast (AA) with the pawn's colour. */
const PIECE_INK = { D3: "#111111", D4: "#111111", P4: "#111111" };

// Line styles: colour AND pattern (width, dashes, a white core for the underground), so
// that the transports are told apart without colour too.
const LINE_ORDER = ["taxi", "bus", "underground", "ferry"];
const TICKET_LINE = { taxi: "taxi", bus: "bus", underground: "underground", black: null };

/** Station numbers: their size in board units, and the size on screen (px) they keep: when
 * the view is zoomed out so far that they would be drawn smaller, each station's number label
 * grows around its station (up to LABEL_MAX_K times) instead of shrinking. */
export const LABEL_UNITS = 14.2;
export const LABEL_PX = 12.5;
export const LABEL_MAX_K = 1.6;
/** The smallest zoom (screen px per board unit) at which the labels keep LABEL_PX. */
export const LEGIBLE_SCALE = LABEL_PX / (LABEL_UNITS * LABEL_MAX_K);
/** A tap this close (screen px) to a highlighted station plays it (nearest-target snapping). */
export const SNAP_PX = 26;

/** Milliseconds per step of an animated move (0 when the user prefers reduced motion). */
export const STEP_MS = 560;

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.append(node);
  return node;
}

/** The pawn silhouette, standing with its foot at (0, 0). */
const PAWN = "M-8.5 0 L8.5 0 L7 -3.4 L3.9 -5.6 L3 -13.5 A6.4 6.4 0 1 0 -3 -13.5 L-3.9 -5.6 L-7 -3.4 Z";

// London, drawn by us in board coordinates (1025 x 768): parks and districts placed where the
// printed board's neighbourhoods lie in spirit (no artwork copied), the river computed from
// the ferry stations. Kept light: a few paths and labels.
const PARKS = [
  { name: "Regent's Park", d: "M330 40 C380 20 450 30 470 70 C480 105 430 128 380 120 C335 112 310 75 330 40 Z" },
  { name: "Hyde Park", d: "M70 360 C120 330 215 338 240 372 C255 400 220 430 160 430 C100 432 55 400 70 360 Z" },
  { name: "Green Park", d: "M300 440 C330 425 372 432 378 452 C382 470 350 480 322 476 C298 472 288 455 300 440 Z" },
  { name: "Hampstead", d: "M640 18 C690 8 760 14 772 38 C780 58 735 70 690 66 C650 62 622 40 640 18 Z" },
  { name: "Victoria Park", d: "M900 200 C940 190 1000 198 1008 226 C1012 250 975 262 940 256 C905 250 885 222 900 200 Z" },
  { name: "Battersea Park", d: "M150 640 C190 625 250 630 262 655 C270 676 235 690 195 688 C160 686 135 662 150 640 Z" },
];
const DISTRICTS = [
  ["Marylebone", 250, 175], ["Camden", 560, 95], ["Islington", 800, 120], ["Hackney", 960, 150],
  ["Paddington", 95, 250], ["Mayfair", 300, 330], ["Soho", 470, 310], ["Holborn", 640, 300],
  ["The City", 820, 330], ["Whitechapel", 960, 420], ["Kensington", 70, 470],
  ["Westminster", 420, 500], ["Lambeth", 520, 640], ["Southwark", 760, 610],
  ["Chelsea", 210, 560], ["Bermondsey", 930, 690],
];

export class BoardView {
  /**
   * container: an element to draw into; data: the /api/board object;
   * onStation(station, element): called when a station is clicked or activated
   * (any station: the page explains why a station that is not a target cannot be played).
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
    this.view = this.fullView();
    this.stationNodes = new Map();
    this.dragged = false;
    this.anim = 0; // generation of the running animation (a new one cancels the old)
    this.build();
  }

  fullView() {
    // the stations span the board with a margin above the top row for the pawns
    return { x: 4, y: -16, w: this.width - 4, h: this.height + 8 };
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
    svg.setAttribute("tabindex", "0");
    this.svg = svg;
    const defs = el("defs", {}, svg);
    const clip = el("clipPath", { id: "map-clip" }, defs);
    el("rect", { x: -40, y: -40, width: this.width + 80, height: this.height + 80 }, clip);
    const shadow = el("filter", { id: "shadow", x: "-50%", y: "-50%", width: "200%", height: "200%" }, defs);
    el("feDropShadow", { dx: 0.8, dy: 1.2, stdDeviation: 1.1, "flood-opacity": 0.45 }, shadow);
    const hatch = el("pattern", { id: "park-hatch", width: 8, height: 8, patternUnits: "userSpaceOnUse",
      patternTransform: "rotate(35)" }, defs);
    el("rect", { width: 8, height: 8, class: "park-fill" }, hatch);
    el("circle", { cx: 4, cy: 4, r: 1.1, class: "park-tree" }, hatch);

    this.root = el("g", { class: "board-root" }, svg);
    el("rect", { x: -600, y: -600, width: this.width + 1200, height: this.height + 1200, class: "paper" }, this.root);
    const frame = el("clipPath", { id: "london-clip" }, defs);
    el("rect", { x: 0, y: -30, width: this.width, height: this.height + 36, rx: 8 }, frame);
    this.london = el("g", { class: "london", "aria-hidden": "true", "clip-path": "url(#london-clip)" }, this.root);
    el("rect", { x: 0, y: -30, width: this.width, height: this.height + 36, rx: 8, class: "map-sheet" }, this.london);
    this.drawLondon();
    this.underlay = el("g", { class: "layer-underlay" }, this.root);
    this.lines = el("g", { class: "layer-lines" }, this.root);
    this.drawLines();
    this.drawBridges();
    const name = el("text", { x: this.width - 12, y: this.height - 8, class: "map-name" }, this.root);
    name.textContent = t("board.map_name");
    this.mapName = name;
    this.pathLayer = el("g", { class: "layer-path" }, this.root);
    this.trailLayer = el("g", { class: "layer-trails" }, this.root);
    this.stationsLayer = el("g", { class: "layer-stations" }, this.root);
    this.drawStations();
    this.badgeLayer = el("g", { class: "layer-badges", "aria-hidden": "true" }, this.root);
    this.piecesLayer = el("g", { class: "layer-pieces" }, this.root);
    this.arrowLayer = el("g", { class: "layer-arrows", "aria-hidden": "true" }, this.root);
    wrap.append(svg);
    const note = document.createElement("div");
    note.className = "board-note";
    note.setAttribute("role", "status");
    note.setAttribute("aria-live", "assertive");
    note.hidden = true;
    wrap.append(note);
    this.note = note;
    this.container.replaceChildren(wrap, this.controls());
    this.wrap = wrap;
    this.applyView();
    this.bindPanZoom();
    this.bindTaps();
    this.bindKeys();
  }

  // ---- London ----------------------------------------------------------------------------
  drawLondon() {
    const g = this.london;
    for (const p of PARKS) {
      el("path", { d: p.d, class: "park" }, g);
    }
    for (const [name, x, y] of DISTRICTS) {
      const tx = el("text", { x, y, class: "district" }, g);
      tx.textContent = name.toUpperCase();
    }
    this.drawRiver();
    for (const p of PARKS) {
      // the park's name along its lower edge, small and quiet
      const m = /M(\d+) (\d+)/.exec(p.d);
      const tx = el("text", { class: "park-name", x: Number(m[1]) + 20, y: Number(m[2]) + 18 }, g);
      tx.textContent = p.name;
    }
  }

  drawRiver() {
    // The Thames, drawn through the four ferry stations (it is where the boats run), from
    // the west edge to the east edge of the map.
    const ferry = (this.data.edges.ferry || []).flat();
    const order = [194, 157, 115, 108].filter((s) => ferry.includes(s) && this.pos[s]);
    if (order.length < 2) {
      this.river = [];
      return;
    }
    const pts = order.map((s) => this.pos[s]);
    const first = pts[0];
    const last = pts[pts.length - 1];
    const all = [[-60, first[1] - 10], [first[0] - 120, first[1] + 30], ...pts.map(([x, y]) => [x + 12, y + 16]),
      [last[0] + 90, last[1] + 70], [this.width + 60, last[1] + 40]];
    const d = catmullRom(all);
    const g = el("g", { class: "river" }, this.london);
    el("path", { d, class: "river-bank" }, g);
    el("path", { d, class: "river-water" }, g);
    el("path", { d, class: "river-ripple" }, g);
    const label = el("text", { class: "river-name", dy: -2 }, g);
    const id = "thames-path";
    el("path", { d, id, fill: "none", stroke: "none" }, defsOf(this.svg));
    const tp = el("textPath", { href: `#${id}`, startOffset: "13%" }, label);
    tp.textContent = t("board.river");
    const tp2 = el("text", { class: "river-name", dy: -2 }, g);
    const tp2p = el("textPath", { href: `#${id}`, startOffset: "80%" }, tp2);
    tp2p.textContent = t("board.river");
    this.riverLabels = [tp, tp2p];
    this.river = sampleCubic(all, 14);
  }

  drawBridges() {
    // A bridge wherever a line crosses the river (the lines are straight between stations).
    if (!this.river || this.river.length < 2) return;
    const g = el("g", { class: "bridges", "aria-hidden": "true" });
    this.lines.before(g);
    const seen = [];
    for (const kind of ["taxi", "bus", "underground"]) {
      for (const [a, b] of this.data.edges[kind] || []) {
        const p = this.pos[a];
        const q = this.pos[b];
        for (let i = 0; i < this.river.length - 1; i++) {
          const hit = intersect(p, q, this.river[i], this.river[i + 1]);
          if (!hit) continue;
          if (seen.some((s) => Math.hypot(s[0] - hit[0], s[1] - hit[1]) < 9)) break;
          seen.push(hit);
          const ang = (Math.atan2(q[1] - p[1], q[0] - p[0]) * 180) / Math.PI;
          const b2 = el("g", { transform: `translate(${hit[0].toFixed(1)} ${hit[1].toFixed(1)}) rotate(${ang.toFixed(1)})`,
            class: "bridge" }, g);
          el("rect", { x: -26, y: -6.5, width: 52, height: 13, rx: 2, class: "bridge-deck" }, b2);
          el("path", { d: "M-26 -6.5 H26 M-26 6.5 H26", class: "bridge-rail" }, b2);
          break;
        }
      }
    }
    this.bridgeCount = seen.length;
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
    this.pairs = pairs;
    const groups = {};
    for (const kind of LINE_ORDER) groups[kind] = el("g", { class: `lines lines-${kind}` }, this.lines);
    for (const [key, kinds] of pairs) {
      const [a, b] = key.split("-").map(Number);
      kinds.forEach((kind, i) => {
        const [p, q] = this.lane(a, b, kinds, i);
        const attrs = { x1: p[0], y1: p[1], x2: q[0], y2: q[1] };
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

  /** The two ends of transport number `i` of `kinds` between stations a and b. */
  lane(a, b, kinds, i) {
    const [x1, y1] = this.pos[a];
    const [x2, y2] = this.pos[b];
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    const nx = -(y2 - y1) / len;
    const ny = (x2 - x1) / len;
    const off = (i - (kinds.length - 1) / 2) * 3.6 * (a < b ? 1 : -1);
    return [[x1 + nx * off, y1 + ny * off], [x2 + nx * off, y2 + ny * off]];
  }

  /** The on-board segment of one step (`ticket` from a to b): the line's lane where known. */
  stepSegment(a, b, ticket) {
    const key = a < b ? `${a}-${b}` : `${b}-${a}`;
    const kinds = this.pairs.get(key) || [];
    let kind = TICKET_LINE[ticket] ?? null;
    if (!kind || !kinds.includes(kind)) kind = kinds.includes("ferry") ? "ferry" : kinds[0];
    const i = kinds.indexOf(kind);
    if (i < 0) return [this.pos[a], this.pos[b]];
    return this.lane(a, b, kinds, i);
  }

  /** Re-read the stations' accessible names (after a language change). */
  relabel() {
    this.svg.setAttribute("aria-label", t("board.label"));
    this.mapName.textContent = t("board.map_name");
    for (const tp of this.riverLabels || []) tp.textContent = t("board.river");
    for (const [s, g] of this.stationNodes) g.setAttribute("aria-label", this.stationLabel(s));
    for (const b of this.container.querySelectorAll(".board-controls button")) {
      b.title = t(b.dataset.i18nTitle);
      b.setAttribute("aria-label", t(b.dataset.i18nAria));
    }
  }

  stationLabel(s) {
    const types = this.stopTypes[s] || ["taxi"];
    const parts = [t("board.station", { n: s }), ...types.map((k) => t(`ticket.${k}`))];
    const who = this.occupant?.get(s);
    if (who) parts.push(who);
    const opts = this.targetTickets?.get(s);
    if (opts) parts.push(t("board.target", { tickets: opts.map((k) => t(`ticket.${k}`)).join(", ") }));
    return parts.join(", ");
  }

  drawStations() {
    for (const [sKey, [x, y]] of Object.entries(this.pos)) {
      const s = Number(sKey);
      const types = this.stopTypes[s] || ["taxi"];
      const g = el("g", { class: "station", transform: `translate(${x} ${y})`, "data-station": s,
        role: "button", tabindex: "-1", "aria-disabled": "true" }, this.stationsLayer);
      g.setAttribute("aria-label", this.stationLabel(s));
      el("circle", { r: 19, class: "st-target-ring" }, g);
      if (types.includes("ferry")) el("circle", { r: 15.2, class: "st-ferry" }, g);
      if (types.includes("underground")) el("circle", { r: 13.4, class: "st-underground" }, g);
      const r = 10.8;
      el("path", { d: `M${-r} 0 A${r} ${r} 0 0 1 ${r} 0 Z`,
        class: types.includes("bus") ? "st-top st-bus" : "st-top st-taxi" }, g);
      el("path", { d: `M${-r} 0 A${r} ${r} 0 0 0 ${r} 0 Z`, class: "st-bottom st-taxi" }, g);
      el("circle", { r, class: "st-edge" }, g);
      const w = s >= 100 ? 24.5 : s >= 10 ? 18 : 12.5;
      const tag = el("g", { class: "st-tag" }, g); // scaled as one (LABEL_PX)
      el("rect", { x: -w / 2, y: -7.8, width: w, height: 15.6, rx: 3, class: "st-label" }, tag);
      const text = el("text", { class: "st-num", y: 5.2 }, tag);
      text.textContent = String(s);
      this.stationNodes.set(s, g);
    }
  }

  controls() {
    const box = document.createElement("div");
    box.className = "board-controls";
    box.setAttribute("role", "toolbar");
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
    this.toolbar = box;
    return box;
  }

  // ---- view box: pan and zoom ---------------------------------------------------------
  applyView() {
    const v = this.view;
    this.svg.setAttribute("viewBox", `${v.x.toFixed(2)} ${v.y.toFixed(2)} ${v.w.toFixed(2)} ${v.h.toFixed(2)}`);
    this.svg.dataset.zoom = (this.width / v.w).toFixed(3);
    this.scaleLabels();
  }

  /** Screen pixels per board unit that the view box `v` gets in the board's box (meet). */
  viewScale(v = this.view) {
    const rect = this.svg.getBoundingClientRect();
    if (!rect.width || !rect.height) return 0;
    return Math.min(rect.width / v.w, rect.height / v.h);
  }

  /** Grow the station numbers where the zoom would draw them under LABEL_PX (one CSS variable). */
  scaleLabels() {
    const s = this.viewScale();
    const k = s ? Math.max(1, Math.min(LABEL_MAX_K, LABEL_PX / (LABEL_UNITS * s))) : 1;
    this.svg.style.setProperty("--tag-k", k.toFixed(3));
    this.svg.dataset.labelPx = (LABEL_UNITS * s * k).toFixed(1);
  }

  fit() {
    this.view = this.fullView();
    this.applyView();
  }

  /** Zoom by `factor` (>1 zooms in) around the board point (cx, cy), default the centre. */
  zoomBy(factor, cx = null, cy = null) {
    const v = this.view;
    const w = Math.min(this.width * 1.5, Math.max(this.width / 10, v.w / factor));
    const k = w / v.w;
    const px = cx ?? v.x + v.w / 2;
    const py = cy ?? v.y + v.h / 2;
    this.view = { x: px - (px - v.x) * k, y: py - (py - v.y) * k, w, h: v.h * k };
    this.clampView();
    this.applyView();
  }

  /**
   * Show every station of `list` (with a margin for its ring and ticket chips), as large as
   * possible up to `maxScale` screen pixels per board unit. When they do not all fit at
   * `minScale`, the view is drawn at `minScale` around the first station of the list.
   */
  zoomTo(list, minScale = 0, maxScale = 2) {
    const pts = list.map((s) => this.pos[s]).filter(Boolean);
    if (!pts.length) return;
    const rect = this.svg.getBoundingClientRect();
    if (!rect.width || !rect.height) return;
    const aspect = rect.height / rect.width;
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const pad = 42;
    let w = Math.max(Math.max(...xs) - Math.min(...xs) + 2 * pad, (Math.max(...ys) - Math.min(...ys) + 2 * pad) / aspect);
    let cx = (Math.max(...xs) + Math.min(...xs)) / 2;
    let cy = (Math.max(...ys) + Math.min(...ys)) / 2;
    if (minScale && w > rect.width / minScale) {
      w = rect.width / minScale;
      [cx, cy] = pts[0];
    }
    w = Math.max(w, rect.width / maxScale); // not closer than needed
    w = Math.min(w, this.fullView().w * (rect.height / rect.width > 1 ? 1 : 1.2));
    const h = w * aspect;
    this.view = { x: cx - w / 2, y: cy - h / 2, w, h };
    this.clampView();
    this.applyView();
  }

  /** True when every station of `list` lies inside the board's box on screen. */
  inView(list) {
    const rect = this.svg.getBoundingClientRect();
    return list.every((s) => {
      const p = this.screenPoint(s);
      return p && p.x >= rect.left && p.x <= rect.right && p.y >= rect.top && p.y <= rect.bottom;
    });
  }

  /** True when the stations `list` fit on screen at `minScale` pixels per board unit. */
  fits(list, minScale) {
    const pts = list.map((s) => this.pos[s]).filter(Boolean);
    const rect = this.svg.getBoundingClientRect();
    if (!pts.length || !rect.width) return false;
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    return (Math.max(...xs) - Math.min(...xs) + 100) * minScale <= rect.width
      && (Math.max(...ys) - Math.min(...ys) + 100) * minScale <= rect.height;
  }

  /** Screen pixels per board unit at the current zoom. */
  scale() {
    const ctm = this.svg.getScreenCTM();
    return ctm ? ctm.a : 1;
  }

  clampView() {
    const v = this.view;
    // zoomed in, at most a small margin beyond the map; zoomed out, the map may be centred
    const mx = Math.max(40, (v.w - this.width) / 2 + 40);
    const my = Math.max(40, (v.h - this.height) / 2 + 40);
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
    // One pointer pans, two pinch-zoom (touch); a move of under 8 px is a tap.
    const pointers = new Map();
    let start = null;
    let pinch = null;
    svg.addEventListener("pointerdown", (ev) => {
      if (ev.pointerType === "mouse" && ev.button !== 0) return;
      pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
      if (pointers.size === 1) {
        start = { x: ev.clientX, y: ev.clientY, view: { ...this.view }, id: ev.pointerId };
        this.dragged = false;
      } else if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const mid = this.toBoard((a.x + b.x) / 2, (a.y + b.y) / 2);
        pinch = { dist: Math.hypot(a.x - b.x, a.y - b.y) || 1, view: { ...this.view }, mid };
        this.dragged = true;
        start = null;
      }
    });
    svg.addEventListener("pointermove", (ev) => {
      if (!pointers.has(ev.pointerId)) return;
      pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
      if (pinch && pointers.size >= 2) {
        const [a, b] = [...pointers.values()];
        const dist = Math.hypot(a.x - b.x, a.y - b.y) || 1;
        const k = pinch.dist / dist;
        const v = pinch.view;
        const w = Math.min(this.width * 1.5, Math.max(this.width / 10, v.w * k));
        const f = w / v.w;
        // keep the board point under the fingers' midpoint where it was, then follow it
        const rect = svg.getBoundingClientRect();
        const mx = ((a.x + b.x) / 2 - rect.left) / rect.width;
        const my = ((a.y + b.y) / 2 - rect.top) / rect.height;
        this.view = { x: pinch.mid[0] - mx * w, y: pinch.mid[1] - my * v.h * f, w, h: v.h * f };
        this.clampView();
        this.applyView();
        return;
      }
      if (!start || ev.pointerId !== start.id) return;
      const dx = ev.clientX - start.x;
      const dy = ev.clientY - start.y;
      if (!this.dragged && Math.hypot(dx, dy) < 8) return;
      if (!this.dragged) {
        this.dragged = true;
        try { svg.setPointerCapture(ev.pointerId); } catch (_) { /* touch may refuse */ }
        svg.classList.add("panning");
      }
      const scale = this.scale();
      this.view = { ...start.view, x: start.view.x - dx / scale, y: start.view.y - dy / scale };
      this.clampView();
      this.applyView();
    });
    const end = (ev) => {
      if (!pointers.has(ev.pointerId)) return;
      pointers.delete(ev.pointerId);
      if (pointers.size < 2) pinch = null;
      if (pointers.size === 0) {
        start = null;
        svg.classList.remove("panning");
        // the click that follows a drag must not play a move; clear the flag after it
        setTimeout(() => { this.dragged = false; }, 0);
      }
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
  }

  /**
   * One listener for the clicks and taps on stations. A tap plays the highlighted station
   * nearest to it when that one lies within SNAP_PX on screen and nearer than the station
   * under the finger (a finger is wider than a zoomed-out ring, and rings overlap).
   */
  bindTaps() {
    this.svg.addEventListener("click", (ev) => {
      if (this.dragged || ev.target.closest?.(".piece.selectable")) return;
      const hit = ev.target.closest?.(".station");
      const tapped = hit ? Number(hit.dataset.station) : null;
      const s = this.nearestTarget(ev.clientX, ev.clientY, tapped);
      if (s === null) return;
      this.svg.dataset.lastTap = String(s);
      this.onStation(s, this.stationNodes.get(s));
    });
  }

  /** The station a tap at (clientX, clientY) means: see bindTaps. */
  nearestTarget(clientX, clientY, tapped = null) {
    const dist = (s) => {
      const p = this.screenPoint(s);
      return p ? Math.hypot(p.x - clientX, p.y - clientY) : Infinity;
    };
    let best = null;
    let bestD = SNAP_PX;
    for (const s of this.targets) {
      const d = dist(s);
      if (d <= bestD) { best = s; bestD = d; }
    }
    if (best !== null && (tapped === null || bestD < dist(tapped))) return best;
    return tapped;
  }

  bindKeys() {
    this.svg.addEventListener("keydown", (ev) => {
      const focused = document.activeElement?.closest?.(".station");
      const current = focused ? Number(focused.dataset.station) : null;
      const dirs = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
      if (dirs[ev.key]) {
        ev.preventDefault();
        const from = current ?? this.home ?? this.targets[0] ?? 1;
        const next = current === null ? from : this.nearestInDirection(from, dirs[ev.key]);
        if (next != null) this.focusStation(next);
      } else if ((ev.key === "Enter" || ev.key === " ") && current !== null) {
        ev.preventDefault();
        this.onStation(current, focused);
      } else if (ev.key === "+" || ev.key === "=") {
        this.zoomBy(1.4);
      } else if (ev.key === "-") {
        this.zoomBy(1 / 1.4);
      } else if (ev.key === "0") {
        this.fit();
      }
    });
  }

  /** The station nearest to `from` in direction (dx, dy) on the map (within ±60°). */
  nearestInDirection(from, [dx, dy]) {
    const [x0, y0] = this.pos[from];
    let best = null;
    let bestScore = Infinity;
    for (const [sKey, [x, y]] of Object.entries(this.pos)) {
      const s = Number(sKey);
      if (s === from) continue;
      const vx = x - x0;
      const vy = y - y0;
      const along = vx * dx + vy * dy;
      if (along <= 0) continue;
      const across = Math.abs(vx * dy - vy * dx);
      if (across > along * 1.73) continue;
      // distance, with sideways offset counted double; targets are preferred a little
      const score = along + 2 * across - (this.targets.includes(s) ? 12 : 0);
      if (score < bestScore) {
        bestScore = score;
        best = s;
      }
    }
    return best;
  }

  /** Move keyboard focus to a station (scrolling it into view); one station is tabbable. */
  focusStation(s) {
    const node = this.stationNodes.get(s);
    if (!node) return;
    if (this.focusable != null && this.focusable !== s) {
      this.stationNodes.get(this.focusable)?.setAttribute("tabindex", this.targets.includes(this.focusable) ? "0" : "-1");
    }
    this.focusable = s;
    node.setAttribute("tabindex", "0");
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

  /** A short message next to a station (why it cannot be played), read by screen readers. */
  showNote(station, text, kind = "why") {
    const note = this.note;
    note.textContent = text;
    note.dataset.kind = kind;
    note.dataset.station = station ?? "";
    note.hidden = false;
    const area = this.wrap.getBoundingClientRect();
    if (station != null && this.pos[station]) {
      const pt = this.screenPoint(station);
      note.style.left = `${Math.max(4, Math.min(area.width - 220, pt.x - area.left - 40))}px`;
      note.style.top = `${Math.max(4, Math.min(area.height - 60, pt.y - area.top + 22))}px`;
    } else {
      note.style.left = "8px";
      note.style.top = "8px";
    }
    clearTimeout(this.noteTimer);
    this.noteTimer = setTimeout(() => { note.hidden = true; }, 4000);
  }

  hideNote() {
    this.note.hidden = true;
  }

  // ---- what is shown on the board --------------------------------------------------------
  /**
   * Legal destinations: highlighted, clickable and tabbable, each with small chips of the
   * tickets that reach it (`tickets`: Map station -> [ticket, ...]).
   */
  setTargets(stations, kind = "move", tickets = null) {
    for (const s of this.targets) {
      const node = this.stationNodes.get(s);
      if (!node) continue;
      node.classList.remove("target", "target-second");
      node.setAttribute("tabindex", s === this.focusable ? "0" : "-1");
      node.setAttribute("aria-disabled", "true");
    }
    this.targets = [...stations];
    this.targetTickets = tickets;
    this.badgeLayer.replaceChildren();
    for (const s of this.targets) {
      const node = this.stationNodes.get(s);
      if (!node) continue;
      node.classList.add("target");
      if (kind === "second") node.classList.add("target-second");
      node.setAttribute("tabindex", "0");
      node.removeAttribute("aria-disabled");
      node.setAttribute("aria-label", this.stationLabel(s));
      const list = tickets?.get(s);
      if (list?.length) this.drawBadge(s, list);
    }
    this.svg.dataset.targets = this.targets.join(" ");
  }

  drawBadge(s, list) {
    const [x, y] = this.pos[s];
    const g = el("g", { class: "ticket-badge", transform: `translate(${x + 13} ${y + 9})`, "data-station": s,
      "data-tickets": list.join(" ") }, this.badgeLayer);
    list.forEach((k, i) => {
      el("rect", { x: i * 11, y: 0, width: 10.5, height: 10.5, rx: 2.5, class: `chip chip-${k}` }, g);
      const tx = el("text", { x: i * 11 + 5.25, y: 8.3, class: `chip-t chip-t-${k}` }, g);
      tx.textContent = t(`ticket_short.${k}`);
    });
  }

  /**
   * Arrows on the board: [{from, to, kind}] (kind "played" or "best": the move played and the
   * computer's move of the analysis), or [] to clear.
   */
  setArrows(arrows) {
    this.arrowLayer.replaceChildren();
    for (const { from, to, kind } of arrows || []) {
      const a = this.pos[from];
      const b = this.pos[to];
      if (!a || !b || from === to) continue;
      const dx = b[0] - a[0];
      const dy = b[1] - a[1];
      const len = Math.hypot(dx, dy);
      const ux = dx / len;
      const uy = dy / len;
      const x1 = a[0] + ux * 14;
      const y1 = a[1] + uy * 14;
      const x2 = b[0] - ux * 16;
      const y2 = b[1] - uy * 16;
      const g = el("g", { class: `arrow arrow-${kind}`, "data-from": from, "data-to": to, "data-kind": kind }, this.arrowLayer);
      el("line", { x1, y1, x2, y2, class: "arrow-shaft" }, g);
      const hx = x2 + ux * 10;
      const hy = y2 + uy * 10;
      const px = -uy * 7;
      const py = ux * 7;
      el("polygon", { points: `${hx},${hy} ${x2 + px},${y2 + py} ${x2 - px},${y2 - py}`, class: "arrow-head" }, g);
    }
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
        el("circle", { cx: xy[0], cy: xy[1], r: 15 + 10 * k, class: "heat",
          fill: heatColour(k), "fill-opacity": (0.35 + 0.5 * k).toFixed(3),
          "data-station": s, "data-p": p.toFixed(4) }, this.underlay);
      }
    } else if (possible) {
      for (const s of possible) {
        const xy = this.pos[s];
        if (!xy) continue;
        el("circle", { cx: xy[0], cy: xy[1], r: 18, class: "possible", "data-station": s }, this.underlay);
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
      const g = el("g", { class: "mrx-path-label", transform: `translate(${xy[0] + 13} ${xy[1] - 13})` }, this.pathLayer);
      el("circle", { r: 7.5 }, g);
      const tx = el("text", { y: 3.2 }, g);
      tx.textContent = labels[i];
    });
  }

  /**
   * The last move of every piece as a trail along its line(s): `trails` is a list of
   * {piece, path: [from, to, (to2)], tickets: [...]}; steps with an unknown end are skipped.
   */
  setTrails(trails) {
    this.trailLayer.replaceChildren();
    for (const tr of trails) {
      const g = el("g", { class: `trail trail-${tr.piece}`, "data-piece": tr.piece,
        "data-path": tr.path.join(" ") }, this.trailLayer);
      const colour = PIECE_COLOURS[tr.piece] || "#444";
      for (let i = 0; i < tr.path.length - 1; i++) {
        const a = tr.path[i];
        const b = tr.path[i + 1];
        if (a == null || b == null || !this.pos[a] || !this.pos[b]) continue;
        const [p, q] = this.stepSegment(a, b, tr.tickets[i]);
        el("line", { x1: p[0], y1: p[1], x2: q[0], y2: q[1], class: "trail-casing" }, g);
        el("line", { x1: p[0], y1: p[1], x2: q[0], y2: q[1], class: `trail-line trail-${tr.tickets[i] || "taxi"}`, stroke: colour }, g);
        // an arrowhead just before the arrival station
        const ang = Math.atan2(q[1] - p[1], q[0] - p[0]);
        const len = Math.hypot(q[0] - p[0], q[1] - p[1]);
        const back = Math.min(len / 2, 22);
        const hx = q[0] - Math.cos(ang) * back;
        const hy = q[1] - Math.sin(ang) * back;
        el("path", { d: "M0 0 L-9 -5.5 L-9 5.5 Z", class: "trail-head", fill: colour,
          transform: `translate(${hx.toFixed(1)} ${hy.toFixed(1)}) rotate(${(ang * 180 / Math.PI).toFixed(1)})` }, g);
      }
      const from = tr.path[0];
      if (from != null && this.pos[from]) {
        const [x, y] = this.pos[from];
        el("circle", { cx: x, cy: y, r: 13.5, class: "trail-from", stroke: colour }, g);
      }
    }
  }

  /**
   * Place the pieces: `stations` {piece: station}; Mr X (key "X") drawn when not null;
   * `ghost`: Mr X's station at a reveal of this round (drawn as a pawn with a dashed rim);
   * `lastSeen`: {station, round, tickets} where he was last seen, drawn as a ghost pawn with
   * "seen in round N" and the tickets he used since; `moves`: {piece: {path, tickets}} to
   * animate from the path's start to its end along the lines.
   */
  setPieces(stations, { active = null, ghost = null, lastSeen = null, moves = null } = {}) {
    this.anim += 1; // cancels a running animation: its pawns are redrawn at their stations
    delete this.svg.dataset.animating;
    const gen = this.anim;
    this.piecesLayer.replaceChildren();
    this.occupant = new Map();
    if (lastSeen && this.pos[lastSeen.station] && stations.X == null && ghost == null) this.drawLastSeen(lastSeen);
    const entries = Object.entries(stations).filter(([, s]) => s != null && this.pos[s]);
    if (ghost != null && this.pos[ghost] && stations.X == null) entries.push(["X", ghost, true]);
    const nodes = {};
    for (const [piece, s, faded] of entries) {
      const [x, y] = this.pos[s];
      const police = piece.startsWith("P");
      const g = el("g", {
        class: `piece piece-${piece}${faded ? " ghost" : ""}${piece === active ? " active" : ""}`,
        transform: `translate(${x} ${y})`, "data-piece": piece, "data-station": s,
      }, this.piecesLayer);
      const colour = PIECE_COLOURS[piece] || "#444";
      el("circle", { r: 13, class: "piece-base", stroke: colour }, g);
      const pawn = el("g", { transform: "translate(0 -8) scale(1.3)", filter: "url(#shadow)" }, g);
      el("path", { d: PAWN, fill: piece === "X" ? "#ffffff" : colour, stroke: piece === "X" ? "#111" : "#222",
        "stroke-width": piece === "X" ? 1.6 : 0.8, class: "pawn-body" }, pawn);
      if (police) el("ellipse", { cx: 0, cy: -4.6, rx: 5.2, ry: 1.8, fill: "none", stroke: "#fff", "stroke-width": 1.5 }, pawn);
      // a letter on every pawn (colour-blind safe): X, 1–5 for detectives, P1–P4 for police
      const tx = el("text", { class: "piece-letter", y: -12.2, fill: piece === "X" ? "#111" : (PIECE_INK[piece] || "#fff") }, pawn);
      tx.textContent = piece === "X" ? "X" : police ? `P${piece.slice(1)}` : piece.slice(1);
      if (police) tx.classList.add("police");
      const title = el("title", {}, g);
      title.textContent = `${pieceName(piece)} — ${s}`;
      this.occupant.set(s, pieceName(piece));
      nodes[piece] = g;
    }
    // screen readers hear who stands on a station: relabel the stations that changed
    for (const s of new Set([...(this.labelled || []), ...this.occupant.keys()])) {
      this.stationNodes.get(s)?.setAttribute("aria-label", this.stationLabel(s));
    }
    this.labelled = [...this.occupant.keys()];
    if (moves) this.animate(nodes, moves, gen);
  }

  drawLastSeen(seen) {
    const [x, y] = this.pos[seen.station];
    const g = el("g", { class: "last-seen", transform: `translate(${x} ${y})`,
      "data-station": seen.station, "data-round": seen.round }, this.piecesLayer);
    el("circle", { r: 14, class: "last-seen-ring" }, g);
    const pawn = el("g", { transform: "translate(0 -8) scale(1.3)" }, g);
    el("path", { d: PAWN, class: "ghost-pawn" }, pawn);
    const tx = el("text", { class: "piece-letter ghost-letter", y: -12.2 }, pawn);
    tx.textContent = "X";
    // the callout: "seen in round N" and the tickets since
    const label = t("board.seen_round", { round: seen.round });
    const chips = seen.tickets || [];
    const w = Math.max(label.length * 6.4 + 14, chips.length * 13 + 14);
    const hBox = chips.length ? 34 : 19;
    const below = y < 90; // near the top edge the label hangs below the station
    const box = el("g", { class: "seen-callout", transform: `translate(${-w / 2} ${below ? 18 : -44 - hBox})` }, g);
    el("rect", { width: w, height: hBox, rx: 4, class: "seen-box" }, box);
    const lt = el("text", { x: w / 2, y: 13.5, class: "seen-text" }, box);
    lt.textContent = label;
    chips.forEach((k, i) => {
      const cx = w / 2 - (chips.length * 13) / 2 + i * 13;
      el("rect", { x: cx + 0.5, y: 19, width: 12, height: 12, rx: 2.5, class: `chip chip-${k}` }, box);
      const ct = el("text", { x: cx + 6.5, y: 28.3, class: `chip-t chip-t-${k}` }, box);
      ct.textContent = t(`ticket_short.${k}`);
    });
    const title = el("title", {}, g);
    title.textContent = t("board.last_seen_since", {
      station: seen.station, round: seen.round,
      tickets: chips.length ? chips.map((k) => t(`ticket.${k}`)).join(", ") : "–",
    });
  }

  /** Move pawn nodes along their paths (straight along the line of each step). */
  animate(nodes, moves, gen) {
    const reduce = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
    const jobs = [];
    for (const [piece, mv] of Object.entries(moves)) {
      const node = nodes[piece];
      const path = mv.path.filter((s) => s != null && this.pos[s]);
      if (!node || path.length < 2 || reduce) continue;
      const segs = [];
      for (let i = 0; i < path.length - 1; i++) segs.push(this.stepSegment(path[i], path[i + 1], mv.tickets[i]));
      jobs.push({ node, segs, end: this.pos[path[path.length - 1]] });
    }
    if (!jobs.length) return;
    this.svg.dataset.animating = "1";
    const t0 = performance.now();
    const total = Math.max(...jobs.map((j) => j.segs.length)) * STEP_MS;
    const frame = (now) => {
      if (gen !== this.anim) return;
      const el2 = Math.max(0, now - t0);
      for (const j of jobs) {
        const f = Math.min(1, el2 / (j.segs.length * STEP_MS)) * j.segs.length;
        const i = Math.min(j.segs.length - 1, Math.floor(f));
        const u = ease(f - i);
        const [p, q] = j.segs[i];
        const x = f >= j.segs.length ? j.end[0] : p[0] + (q[0] - p[0]) * u;
        const y = f >= j.segs.length ? j.end[1] : p[1] + (q[1] - p[1]) * u;
        const hop = Math.sin(Math.PI * u) * 6 * (f >= j.segs.length ? 0 : 1);
        j.node.setAttribute("transform", `translate(${x.toFixed(2)} ${(y - hop).toFixed(2)})`);
      }
      if (el2 < total) requestAnimationFrame(frame);
      else {
        for (const j of jobs) j.node.setAttribute("transform", `translate(${j.end[0]} ${j.end[1]})`);
        delete this.svg.dataset.animating;
        this.svg.dataset.animated = String(Number(this.svg.dataset.animated || 0) + 1);
      }
    };
    for (const j of jobs) j.node.setAttribute("transform", `translate(${j.segs[0][0][0]} ${j.segs[0][0][1]})`);
    requestAnimationFrame(frame);
  }
}

/** A readable name of a piece in the current language. */
export function pieceName(piece) {
  if (piece === "X") return t("piece.mr_x");
  if (piece.startsWith("D")) return t("piece.detective", { n: piece.slice(1) });
  if (piece.startsWith("P")) return t("piece.police", { n: piece.slice(1) });
  return piece;
}

function ease(u) {
  return u < 0.5 ? 2 * u * u : 1 - (2 - 2 * u) ** 2 / 2;
}

function defsOf(svg) {
  return svg.querySelector("defs");
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

/** Intersection point of segments p-q and a-b, or null. */
function intersect(p, q, a, b) {
  const r = [q[0] - p[0], q[1] - p[1]];
  const s = [b[0] - a[0], b[1] - a[1]];
  const den = r[0] * s[1] - r[1] * s[0];
  if (Math.abs(den) < 1e-9) return null;
  const u = ((a[0] - p[0]) * s[1] - (a[1] - p[1]) * s[0]) / den;
  const v = ((a[0] - p[0]) * r[1] - (a[1] - p[1]) * r[0]) / den;
  if (u < 0.08 || u > 0.92 || v < 0 || v > 1) return null;
  return [p[0] + r[0] * u, p[1] + r[1] * u];
}

function controlPoints(points, i) {
  const p0 = points[Math.max(0, i - 1)];
  const p1 = points[i];
  const p2 = points[i + 1];
  const p3 = points[Math.min(points.length - 1, i + 2)];
  const c1 = [p1[0] + (p2[0] - p0[0]) / 6, p1[1] + (p2[1] - p0[1]) / 6];
  const c2 = [p2[0] - (p3[0] - p1[0]) / 6, p2[1] - (p3[1] - p1[1]) / 6];
  return [p1, c1, c2, p2];
}

function catmullRom(points) {
  let d = `M${points[0][0]} ${points[0][1]}`;
  for (let i = 0; i < points.length - 1; i++) {
    const [, c1, c2, p2] = controlPoints(points, i);
    d += ` C${c1[0].toFixed(1)} ${c1[1].toFixed(1)} ${c2[0].toFixed(1)} ${c2[1].toFixed(1)} ${p2[0]} ${p2[1]}`;
  }
  return d;
}

/** The same curve as catmullRom(points), as a polyline of `n` points per piece. */
function sampleCubic(points, n) {
  const out = [];
  for (let i = 0; i < points.length - 1; i++) {
    const [p0, c1, c2, p3] = controlPoints(points, i);
    for (let k = 0; k < n; k++) {
      const u = k / n;
      const a = (1 - u) ** 3;
      const b = 3 * u * (1 - u) ** 2;
      const c = 3 * u * u * (1 - u);
      const d = u ** 3;
      out.push([a * p0[0] + b * c1[0] + c * c2[0] + d * p3[0], a * p0[1] + b * c1[1] + c * c2[1] + d * p3[1]]);
    }
  }
  out.push(points[points.length - 1]);
  return out;
}
