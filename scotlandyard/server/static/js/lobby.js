// The lobby: one-click games against the computer, "My games", the open public games, and
// "Play with friends" (rules, seats, clock; create a game, share the invite links).

import { createGame, getPresets } from "./api.js";
import { forgetGame, gameStatus, myGames, showGame } from "./mygames.js";
import { pieceName } from "./board.js";
import { applyI18n, has, onLanguageChange, t } from "./i18n.js";
import { h } from "./dom.js";

/**
 * The pieces of a preset with `detectives` detectives, as the server's /api/presets lists them
 * (`pieces[preset][n]`): the police rule lives in the engine, not in the page.
 */
export function piecesFor(presets, preset, detectives) {
  const listed = presets.pieces?.[preset]?.[String(detectives)];
  if (!Array.isArray(listed)) throw new Error(`no pieces for ${preset} with ${detectives} detectives`);
  return listed;
}


async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (_) {
    // not a secure context or no permission: select the text and use the old command
    input.select();
    try { return document.execCommand("copy"); } catch (__) { return false; }
  }
}

export class Lobby {
  constructor(app) {
    this.root = document.getElementById("tpl-lobby").content.firstElementChild.cloneNode(true);
    app.replaceChildren(this.root);
    applyI18n(this.root);
    this.seatChoice = {};
    this.created = null;
    this.form = this.root.querySelector("#new-game");
    this.load();
    onLanguageChange(() => this.redraw());
    this.renderMyGames();
    this.loadOpenGames();
    this.openTimer = setInterval(() => {
      if (!this.root.isConnected) clearInterval(this.openTimer);
      else this.loadOpenGames();
    }, 5000);
  }

  // ---- one click against the computer -----------------------------------------------------------
  quickLevels() {
    const sel = this.root.querySelector("#quick-level");
    const keep = sel.value || this.presets.default_level || "medium";
    sel.replaceChildren(...this.levels().map((lv) => h("option", { value: lv, text: has(`level.${lv}`) ? t(`level.${lv}`) : lv })));
    sel.value = keep;
    this.quickHint();
  }

  /** What the chosen level plays like, under the level's select. */
  quickHint() {
    const lv = this.root.querySelector("#quick-level").value;
    this.root.querySelector("#quick-level-hint").textContent = has(`quick.hint.${lv}`) ? t(`quick.hint.${lv}`) : "";
  }

  async quick(side) {
    const level = this.root.querySelector("#quick-level").value || "medium";
    const pieces = piecesFor(this.presets, "classic", this.presets.detectives?.classic?.default ?? 5);
    const seats = {};
    for (const p of pieces) {
      const computer = side === "detectives" ? p === "X" : p !== "X";
      seats[p] = computer ? { kind: "ai", agent: level } : { kind: "human" };
    }
    const box = this.root.querySelector("#quick-error");
    box.hidden = true;
    try {
      const res = await createGame({ preset: "classic", seats, play_as: side === "detectives" ? "detectives" : "X" });
      location.assign(res.links[res.you]); // straight into the game, with this seat's token only
    } catch (e) {
      box.hidden = false;
      box.textContent = t("lobby.error", { message: e.message });
    }
  }

  // ---- my games ---------------------------------------------------------------------------------------
  async renderMyGames() {
    this.myStates ??= new Map(); // game id -> state body, to word again in another language
    const games = myGames();
    const card = this.root.querySelector("#my-games");
    const list = card.querySelector("#my-games-list");
    card.hidden = games.length === 0;
    list.replaceChildren(...games.map((g) => h("li", { class: "mygame", dataset: { game: g.id }, title: g.id },
      h("div", { class: "mygame-main" }, h("strong", { class: "mygame-vs", text: "…" }),
        h("span", { class: "mygame-status", text: "…" }), h("span", { class: "mygame-when" })),
      h("a", { href: `/game/${encodeURIComponent(g.id)}`, class: "btn btn-small", text: t("mygames.resume") }))));
    await Promise.all(games.map(async (g) => {
      const li = list.querySelector(`li[data-game="${CSS.escape(g.id)}"]`);
      const st = await gameStatus(g);
      if (!li) return;
      if (st?.gone) {
        forgetGame(g.id);
        li.remove();
        return;
      }
      if (st) showGame(li, st); // opponents, whose turn or the result, time since the last move
      if (st) this.myStates.set(g.id, st);
      else li.querySelector(".mygame-status").textContent = "";
    }));
    card.hidden = list.children.length === 0;
  }

  // ---- open public games ------------------------------------------------------------------------------
  async loadOpenGames() {
    let games = [];
    const err = this.root.querySelector("#open-error");
    try {
      const res = await fetch("/api/lobby");
      games = (await res.json()).games || [];
      err.hidden = true;
    } catch (e) {
      err.hidden = false;
      err.textContent = e.message;
      return;
    }
    this.root.querySelector("#open-empty").hidden = games.length > 0;
    const list = this.root.querySelector("#open-list");
    list.replaceChildren(...games.map((g) => {
      const buttons = [];
      if (g.open.includes("X")) buttons.push(this.joinButton(g, { side: "mr_x" }, t("open.join_mr_x")));
      const hunters = g.open.filter((p) => p !== "X");
      if (hunters.length) buttons.push(this.joinButton(g, { side: "detectives" }, t("open.join_detectives")));
      if (hunters.length > 1) for (const p of hunters) buttons.push(this.joinButton(g, { seat: p }, pieceName(p)));
      const waiting = g.waiting.length ? t("open.waiting", { pieces: g.waiting.map(pieceName).join(", ") }) : "";
      return h("li", { class: "open-game", dataset: { game: g.game_id } },
        h("span", { class: "open-rules", text: `${has(`preset.${g.preset}`) ? t(`preset.${g.preset}`) : g.preset} · ${t("lobby.detectives")}: ${g.detectives}${g.clock ? ` · ${t("friends.clock")}` : ""}` }),
        " ", h("span", { class: "hint", text: waiting }), " ", ...buttons);
    }));
  }

  joinButton(game, body, text) {
    return h("button", { type: "button", class: "btn btn-small join-btn", dataset: { join: body.seat || body.side }, text,
      onclick: async () => {
        const err = this.root.querySelector("#open-error");
        const res = await fetch(`/api/games/${encodeURIComponent(game.game_id)}/join`, {
          method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
        const out = await res.json().catch(() => ({}));
        if (res.status === 201) {
          location.assign(out.link);
          return;
        }
        err.hidden = false;
        err.textContent = t("open.join_failed", { message: out.detail || `HTTP ${res.status}` });
        this.loadOpenGames();
      } });
  }

  async load() {
    try {
      this.presets = await getPresets();
    } catch (e) {
      this.showError(e.message);
      return;
    }
    const f = this.form;
    const sel = f.elements.preset;
    sel.replaceChildren(...Object.keys(this.presets.presets).map((name) => h("option", { value: name })));
    sel.value = "classic";
    sel.addEventListener("change", () => this.onPreset(true));
    f.elements.detectives.addEventListener("change", () => this.renderSeats());
    f.elements.all_hunters.addEventListener("change", (e) => {
      for (const p of this.pieces().slice(1)) this.seatChoice[p] = e.target.value;
      this.renderSeats();
    });
    f.addEventListener("submit", (e) => {
      e.preventDefault();
      this.submit();
    });
    f.elements.hotseat.addEventListener("change", () => this.renderChoices());
    this.root.querySelector("#quick-level").addEventListener("change", () => this.quickHint());
    this.root.querySelector("#quick-detectives").addEventListener("click", () => this.quick("detectives"));
    this.root.querySelector("#quick-mr-x").addEventListener("click", () => this.quick("mr_x"));
    this.root.querySelector("#quick-friends").addEventListener("click", (e) => {
      e.preventDefault();
      this.form.scrollIntoView({ block: "start" });
      this.form.elements.preset.focus();
    });
    this.root.querySelector("#reveal-x").addEventListener("click", () => {
      const row = this.root.querySelector(".link-row[data-link='X']");
      if (row) row.hidden = false;
      this.root.querySelector("#secret-box").hidden = true;
    });
    this.onPreset(true);
    this.root.dataset.ready = "1";
  }

  levels() {
    return this.presets.levels || ["random"];
  }

  pieces() {
    const f = this.form;
    return piecesFor(this.presets, f.elements.preset.value, Number(f.elements.detectives.value));
  }

  onPreset(resetCount) {
    const f = this.form;
    const range = this.presets.detectives?.[f.elements.preset.value] || { min: 1, max: 5, default: 5 };
    const det = f.elements.detectives;
    det.replaceChildren();
    for (let n = range.min; n <= range.max; n++) det.append(h("option", { value: n, text: String(n) }));
    if (resetCount || Number(det.value) < range.min || Number(det.value) > range.max) det.value = String(range.default);
    det.disabled = range.min === range.max;
    this.redraw();
  }

  choiceOptions(select) {
    select.replaceChildren(h("option", { value: "human", text: t("seat.human") }),
      ...this.levels().map((lv) => h("option", { value: `ai:${lv}`, text: `${t("seat.ai")}: ${has(`level.${lv}`) ? t(`level.${lv}`) : lv}` })));
  }

  redraw() {
    if (!this.presets) return;
    const f = this.form;
    for (const opt of f.elements.preset.options) opt.textContent = t(`preset.${opt.value}`);
    const all = f.elements.all_hunters;
    const keep = all.value;
    this.choiceOptions(all);
    all.value = keep || "human";
    this.renderSeats();
    this.renderPresetInfo();
    this.quickLevels();
    this.renderChoices();
    if (this.created) this.renderLinks();
    for (const [id, st] of this.myStates ?? []) {
      const li = this.root.querySelector(`#my-games-list li[data-game="${CSS.escape(id)}"]`);
      if (li) showGame(li, st);
    }
  }

  /** The "I play" and clock choices. */
  renderChoices() {
    const f = this.form;
    const play = f.elements.play_as;
    const keep = play.value;
    const names = [["", t("friends.play_nobody")], ["X", t("link.X")], ["detectives", t("link.detectives")]];
    if (f.elements.hotseat.checked) names.push(["all", t("link.all")]);
    play.replaceChildren(...names.map(([v, text]) => h("option", { value: v, text })));
    play.value = names.some(([v]) => v === keep) ? keep : "";
    const clock = f.elements.clock;
    const keepClock = clock.value;
    const clocks = [["", t("friends.clock_none")], ["move60", t("clock.per_move", { s: 60 })],
      ["move20", t("clock.per_move", { s: 20 })], ["f300", t("clock.fischer", { m: "5:00", s: 5 })],
      ["f900", t("clock.fischer", { m: "15:00", s: 10 })]];
    clock.replaceChildren(...clocks.map(([v, text]) => h("option", { value: v, text })));
    clock.value = keepClock || "";
  }

  clockBody() {
    const f = this.form;
    const choice = {
      move60: { per_move: 60 }, move20: { per_move: 20 },
      f300: { initial: 300, increment: 5 }, f900: { initial: 900, increment: 10 },
    }[f.elements.clock.value];
    if (!choice) return null;
    return { ...choice, on_timeout: f.elements.clock_lose.checked ? "lose" : "ai" };
  }

  renderPresetInfo() {
    const rules = this.presets.presets[this.form.elements.preset.value];
    this.root.querySelector("#preset-info").textContent = t(`preset_info.${this.form.elements.preset.value}`, {
      taxi: rules.detective_tickets[0], bus: rules.detective_tickets[1], underground: rules.detective_tickets[2],
    });
  }

  renderSeats() {
    const box = this.root.querySelector("#seats");
    box.replaceChildren();
    for (const piece of this.pieces()) {
      const select = h("select", { name: `seat-${piece}`, id: `seat-${piece}`, dataset: { piece } });
      this.choiceOptions(select);
      select.value = this.seatChoice[piece] || (piece === "X" ? "human" : "human");
      select.addEventListener("change", () => { this.seatChoice[piece] = select.value; });
      box.append(h("div", { class: "seat-row" },
        h("label", { for: `seat-${piece}`, text: pieceName(piece) }), select));
    }
    this.renderPresetInfo();
  }

  body() {
    const f = this.form;
    const seats = {};
    for (const piece of this.pieces()) {
      const v = f.elements[`seat-${piece}`].value;
      seats[piece] = v === "human" ? { kind: "human" } : { kind: "ai", agent: v.slice(3) };
    }
    const seedText = f.elements.seed.value.trim();
    return {
      preset: f.elements.preset.value,
      detectives: Number(f.elements.detectives.value),
      extra_reveal: f.elements.extra_reveal.checked,
      hotseat: f.elements.hotseat.checked,
      seed: seedText === "" ? null : Number(seedText),
      seats,
      play_as: f.elements.play_as.value || null,
      public: f.elements.public.checked,
      clock: this.clockBody(),
      on_absent: f.elements.on_absent.value === "wait" ? "wait" : "ai",
    };
  }

  async submit() {
    const button = this.form.querySelector("button[type=submit]");
    button.disabled = true;
    this.showError("");
    try {
      this.created = await createGame(this.body());
      this.renderLinks();
    } catch (e) {
      this.showError(e.message);
    } finally {
      button.disabled = false;
    }
  }

  showError(text) {
    const box = this.root.querySelector("#lobby-error");
    box.hidden = !text;
    box.textContent = text ? t("lobby.error", { message: text }) : "";
  }

  renderLinks() {
    const res = this.created;
    const box = this.root.querySelector("#links");
    box.hidden = false;
    const list = box.querySelector("#link-list");
    list.replaceChildren();
    box.querySelector("#game-id").textContent = res.game_id;
    const others = ["all", "X", "detectives", ...Object.keys(res.links).filter((k) => /^[DP]\d$/.test(k)), "spectator"];
    const names = res.you ? [res.you, ...others.filter((n) => n !== res.you)] : others;
    // Mr X's link is secret: whoever opens it sees where he is. Someone who does not play him
    // sees it only after asking for it (to pass it on).
    const hideX = "X" in res.links && res.you !== "X";
    this.root.querySelector("#secret-box").hidden = !hideX;
    for (const name of names) {
      const path = res.links[name];
      if (!path) continue;
      const url = new URL(path, location.origin).href;
      const input = h("input", { type: "text", readonly: true, value: url, class: "link-input", id: `link-${name}`,
        "aria-label": t(`link.${name.match(/^[DP]\d$/) ? "piece" : name}`, { piece: pieceName(name) }) });
      const status = h("span", { class: "copy-status", role: "status" });
      const copy = h("button", { type: "button", class: "btn btn-small", text: t("link.copy"), dataset: { link: name },
        onclick: async () => {
          const ok = await copyText(url, input);
          status.textContent = ok ? t("link.copied") : t("link.copy_failed");
        } });
      const open = h("a", { href: path, class: "btn btn-small", text: t("link.open"), dataset: { link: name } });
      const label = t(`link.${name.match(/^[DP]\d$/) ? "piece" : name}`, { piece: pieceName(name) });
      const mine = name === res.you;
      const row = h("div", { class: `link-row link-${name}${mine ? " link-mine" : ""}`, dataset: { link: name } },
        h("div", { class: "link-label", text: mine ? t("friends.your_seat", { seat: label }) : label }), input, copy, open, status);
      if (name === "X" && hideX) {
        row.hidden = true;
        row.classList.add("secret");
      }
      if (name === "X") row.append(h("p", { class: "hint secret-note", text: t("friends.secret_hint") }));
      list.append(row);
    }
    box.scrollIntoView({ block: "nearest" });
  }
}
