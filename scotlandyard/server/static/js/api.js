// Talking to the server (docs/protocol.md): REST calls and the game's WebSocket.

const boards = new Map();

async function json(res) {
  let body = null;
  try { body = await res.json(); } catch (_) { /* not JSON */ }
  if (!res.ok) {
    const err = new Error((body && body.detail) || `HTTP ${res.status}`);
    err.status = res.status;
    err.body = body;
    throw err;
  }
  return body;
}

/** The board for drawing (cached per name). */
export function getBoard(name = "classic") {
  if (!boards.has(name)) {
    boards.set(name, fetch(`/api/board?board=${encodeURIComponent(name)}`).then(json).catch((e) => {
      boards.delete(name);
      throw e;
    }));
  }
  return boards.get(name);
}

export function getPresets() {
  return fetch("/api/presets").then(json);
}

export function createGame(body) {
  return fetch("/api/games", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  }).then(json);
}

/** The record's address, without the token (it goes in a header: see bindRecordDownload). */
export function recordUrl(gameId, format = "text") {
  return `/api/games/${encodeURIComponent(gameId)}/record?format=${format}`;
}

/**
 * Make `anchor` download the record: a click fetches it with the token in the Authorization
 * header (never in a URL, where it would land in the history, logs and Referer) and saves it.
 */
export function bindRecordDownload(anchor, gameId, token, format = "text") {
  anchor.href = recordUrl(gameId, format);
  anchor.onclick = async (ev) => {
    ev.preventDefault();
    const res = await fetch(recordUrl(gameId, format), {
      headers: { Authorization: `Bearer ${token}` }, cache: "no-store",
    });
    if (!res.ok) return;
    const url = URL.createObjectURL(await res.blob());
    const save = document.createElement("a");
    save.href = url;
    save.download = `scotlandyard-${gameId}.${format === "json" ? "json" : "txt"}`;
    document.body.append(save);
    save.click();
    save.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  };
}

/**
 * The game's WebSocket, reconnecting with a growing delay. Handlers:
 * onMessage(msg), onStatus("connecting"|"open"|"closed"|"rejected").
 */
export class GameSocket {
  constructor(gameId, token, { onMessage, onStatus }) {
    this.gameId = gameId;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.delay = 500;
    this.closedByUs = false;
    this.counter = 0;
    this.ws = null;
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const url = `${scheme}://${location.host}/ws/${encodeURIComponent(this.gameId)}?token=${encodeURIComponent(this.token)}`;
    this.onStatus("connecting");
    const ws = new WebSocket(url);
    this.ws = ws;
    let rejected = false;
    ws.addEventListener("open", () => {
      this.delay = 500;
      this.onStatus("open");
    });
    ws.addEventListener("message", (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (_) { return; }
      if (msg.type === "error" && msg.code === "bad_token") rejected = true;
      this.onMessage(msg);
    });
    ws.addEventListener("close", (ev) => {
      if (this.ws !== ws) return;
      if (rejected || ev.code === 4401) {
        this.onStatus("rejected");
        return;
      }
      this.onStatus("closed");
      if (this.closedByUs) return;
      setTimeout(() => { if (!this.closedByUs) this.open(); }, this.delay);
      this.delay = Math.min(this.delay * 2, 10000);
    });
  }

  get ready() {
    return this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  /** Send a message; returns its id (or null if the socket is not open). */
  send(msg) {
    if (!this.ready) return null;
    const id = msg.id ?? `c${++this.counter}`;
    const out = msg.type === "sync" ? msg : { ...msg, id };
    this.ws.send(JSON.stringify(out));
    return id;
  }

  close() {
    this.closedByUs = true;
    if (this.ws) this.ws.close();
  }
}
