// The lobby: choose the rules and the seats, create a game, share the invite links.

import { createGame, getPresets } from "./api.js";
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
    if (this.created) this.renderLinks();
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
    const names = ["all", "X", "detectives", "spectator", ...Object.keys(res.links).filter((k) => /^[DP]\d$/.test(k))];
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
      list.append(h("div", { class: `link-row link-${name}`, dataset: { link: name } },
        h("div", { class: "link-label", text: label }), input, copy, open, status));
    }
    box.scrollIntoView({ block: "nearest" });
  }
}
