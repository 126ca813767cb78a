// The game page's chat, a panel right under the move box: the table chat (every player;
// spectators read it) and the detectives' team chat (only detective tokens ever receive it: the
// server decides, docs/protocol.md), with a clear switch between the two for the detectives.
// Beside the board the panel opens and folds with a "Chat" button on the "You play" line, whose
// badge counts the messages not seen yet (the panel folded, or out of sight); on a phone it is
// the bottom sheet's chat tab (game.js bindSheet, with the tab's own badge). Messages are drawn
// with textContent, never as HTML.

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { pieceName } from "./board.js";
import { tp } from "./plural.js";

const OPEN_KEY = "sy.chat.open";

const PHONE = "(max-width: 600px)"; // app.css: the phone layout, chat in its own tab

function readOpen() {
  try { return localStorage.getItem(OPEN_KEY) === "1"; } catch (_) { return false; }
}

export class ChatPanel {
  constructor(page, anchor, header) {
    this.page = page;
    this.messages = new Map(); // "channel:n" -> message (each channel is numbered on its own)
    this.unread = 0;
    this.me = null;
    this.channelValue = "table";
    this.open = readOpen();
    this.inSight = false;
    // the count, in the panel's heading (game.js mirrors it on a phone's chat tab) and on the button
    this.badge = h("span", { class: "chat-badge", id: "chat-unread", hidden: true });
    this.buttonBadge = h("span", { class: "chat-badge", id: "chat-toggle-badge", hidden: true });
    this.toggle = h("button", { type: "button", class: "chat-head btn btn-small", id: "chat-toggle", "aria-controls": "chat",
      onclick: () => this.setOpen(!this.open) },
    h("span", { class: "chat-title", text: t("chat.title") }), this.buttonBadge);
    this.channel = h("div", { class: "chat-switch", id: "chat-channel", role: "group", "aria-label": t("chat.channel") });
    this.log = h("ol", { id: "chat-log", class: "chat-log", "aria-live": "polite" });
    this.empty = h("p", { class: "chat-empty hint", text: t("chat.empty") });
    this.input = h("input", { id: "chat-input", type: "text", maxlength: "300", "aria-label": t("chat.message"),
      placeholder: t("chat.placeholder") });
    this.send = h("button", { id: "chat-send", type: "submit", class: "btn btn-small", text: t("chat.send") });
    this.form = h("form", { id: "chat-form", class: "chat-form", autocomplete: "off" }, this.input, this.send);
    this.agree = h("label", { class: "toggle chat-agree" },
      h("input", { type: "checkbox", id: "chat-agree" }), h("span", { text: t("chat.record") }));
    this.body = h("div", { class: "chat-body", id: "chat-body" }, this.channel, this.log, this.empty, this.form, this.agree);
    this.card = h("section", { class: "card chat", id: "chat", "aria-labelledby": "chat-title", dataset: { sheet: "chat" } },
      h("h2", { class: "chat-heading" }, h("span", { id: "chat-title", text: t("chat.title") }), " ", this.badge), this.body);
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      if (this.page.socket.send({ type: "chat", channel: this.channelValue, text })) this.input.value = "";
    });
    this.agree.querySelector("input").addEventListener("change", (e) => {
      this.page.socket.send({ type: "chat_record", agree: e.target.checked });
    });
    anchor.after(this.card);
    header.append(this.toggle);
    if (typeof IntersectionObserver !== "undefined") {
      new IntersectionObserver((entries) => {
        this.inSight = entries.some((e) => e.isIntersecting);
        if (this.seen()) this.markRead();
      }).observe(this.log);
    }
    document.addEventListener("visibilitychange", () => { if (this.seen()) this.markRead(); });
    this.setOpen(this.open, false);
  }

  /** Whether the player can see the messages now. */
  seen() {
    return (this.open || matchMedia(PHONE).matches) && this.inSight && !document.hidden;
  }

  setOpen(open, remember = true) {
    this.open = open;
    this.toggle.setAttribute("aria-expanded", open ? "true" : "false");
    this.card.dataset.open = open ? "1" : "0";
    if (remember) {
      try { localStorage.setItem(OPEN_KEY, open ? "1" : "0"); } catch (_) { /* ignore */ }
    }
    if (open) {
      this.log.scrollTop = this.log.scrollHeight;
      if (this.seen()) this.markRead();
    }
  }

  markRead() {
    this.unread = 0;
    this.showBadge();
  }

  showBadge() {
    for (const badge of [this.badge, this.buttonBadge]) {
      badge.hidden = this.unread === 0;
      badge.textContent = String(this.unread);
      badge.setAttribute("aria-label", tp("chat.unread", this.unread));
    }
    this.card.dataset.unread = String(this.unread);
  }

  setRole(role, me = null) {
    this.me = me;
    const team = role === "detectives";
    const choices = team ? ["table", "team"] : ["table"];
    this.channel.replaceChildren(...choices.map((c) => h("button", {
      type: "button", class: `chat-chan chat-chan-${c}`, dataset: { channel: c }, text: c === "team" ? t("chat.team") : t("chat.table"),
      "aria-pressed": c === this.channelValue ? "true" : "false", onclick: () => this.pick(c),
    })));
    if (!team) this.channelValue = "table";
    this.channel.dataset.choices = String(choices.length);
    const writes = role !== "spectator";
    this.form.hidden = !writes;
    this.agree.hidden = !writes;
    this.card.dataset.role = role;
    this.pick(this.channelValue);
  }

  /** Write to `channel` ("table" or "team") from now on. */
  pick(channel) {
    this.channelValue = channel;
    for (const b of this.channel.querySelectorAll("button")) {
      b.setAttribute("aria-pressed", b.dataset.channel === channel ? "true" : "false");
    }
    this.card.dataset.channel = channel;
    const team = this.card.dataset.role === "detectives";
    this.input.placeholder = channel === "team" ? t("chat.placeholder_team")
      : team ? t("chat.placeholder_table") : t("chat.placeholder");
  }

  /** Messages arrived (`live`: one sent now, not the history sent on connect). */
  add(list, live = false) {
    for (const m of list) {
      const key = `${m.channel}:${m.n}`;
      const fresh = !this.messages.has(key);
      this.messages.set(key, m);
      if (live && fresh && m.from !== this.me && !this.seen()) this.unread += 1;
    }
    this.render();
    this.showBadge();
  }

  render() {
    const log = this.log;
    log.replaceChildren(...[...this.messages.values()].sort((a, b) => a.at - b.at || a.n - b.n).map((m) => {
      const who = /^(X|[DP]\d)$/.test(m.from) ? pieceName(m.from) : m.from === "detectives" ? t("role.detectives") : m.from;
      return h("li", { class: `chat-msg chat-${m.channel}${m.from === this.me ? " mine" : ""}`, dataset: { channel: m.channel, from: m.from, n: m.n } },
        h("span", { class: "chat-meta" },
          h("strong", { class: "chat-from", text: who }),
          m.channel === "team" ? h("span", { class: "chat-tag", text: t("chat.team") }) : null),
        h("span", { class: "chat-text", text: m.text }));
    }));
    this.empty.hidden = this.messages.size > 0;
    log.scrollTop = log.scrollHeight;
  }

  setAgreement(chatRecord, role) {
    const side = role === "mr_x" ? "mr_x" : role === "detectives" ? "detectives" : null;
    const box = this.agree.querySelector("input");
    if (side && chatRecord && side in chatRecord) box.checked = !!chatRecord[side];
  }
}
