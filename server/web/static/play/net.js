// The websocket to the server: the same protocol as the terminal client. Every message
// carries an id; a message not answered when the connection drops is sent again, with the
// same id, once the connection is back and signed in (the server answers a resent action
// again and never plays it twice).

import { lang, t } from "./i18n.js";

/** @typedef {import("./messages.js").ServerMessage} ServerMessage */
/** A message to the server: its type, its id (added when sent), its fields.
 * @typedef {{type: string, id?: string, [field: string]: any}} Request */
/**
 * @typedef {object} Hooks
 * @property {(message: ServerMessage, request?: Request) => void} onMessage every message,
 *   with the request it answers
 * @property {(text: string) => void} onStatus
 * @property {(connection: Connection) => Promise<void>} onOpen signs in and resumes before
 *   queued messages go again
 */

const BACKOFF_FIRST = 500;
const BACKOFF_MOST = 10000;
/** A delay as the language writes it, to a tenth of a second ("0.5", "0,5"). */
const TENTHS = new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

export class Connection {
  /**
   * @param {string} url ws:// or wss:// URL of the server
   * @param {Hooks} hooks
   */
  constructor(url, hooks) {
    this.url = url;
    this.hooks = hooks;
    // ids stay unique across page loads: the server remembers a game's last ids
    this.prefix = Math.random().toString(36).slice(2, 8) + "-";
    this.count = 0;
    /** @type {Map<string, {message: Request, resolve: (reply: ServerMessage) => void, early: boolean}>} */
    this.waiting = new Map();
    this.socket = null;
    this.ready = false; // open, and signed in as far as onOpen goes
    this.delay = BACKOFF_FIRST;
    this.timer = null;
    this.wanted = true; // reconnect by itself (false: only when something is sent)
  }

  nextId() {
    this.count += 1;
    return this.prefix + this.count;
  }

  open() {
    if (this.socket || this.timer) return;
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.addEventListener("open", () => this.opened(socket));
    socket.addEventListener("message", (event) => this.received(event.data));
    socket.addEventListener("close", () => this.closed(socket));
  }

  async opened(socket) {
    this.delay = BACKOFF_FIRST;
    try {
      await this.hooks.onOpen(this);
    } catch (error) {
      this.hooks.onStatus(t("Could not sign in: %(reason)s", { reason: /** @type {Error} */ (error).message }));
      return;
    }
    if (this.socket !== socket) return;
    this.ready = true;
    this.hooks.onStatus("");
    for (const [, entry] of this.waiting) {
      if (!entry.early) socket.send(JSON.stringify(entry.message));
    }
  }

  closed(socket) {
    if (this.socket !== socket) return;
    this.socket = null;
    this.ready = false;
    for (const [id, entry] of this.waiting) {
      if (entry.early) this.waiting.delete(id); // part of the sign-in: asked again
      if (entry.early) entry.resolve({ type: "error", id, code: "network", message: t("connection lost") });
    }
    if (!this.wanted && !this.waiting.size) return;
    const seconds = TENTHS.format(this.delay / 1000);
    this.hooks.onStatus(t("Connection lost: trying again in %(seconds)s s…", { seconds }));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.open();
    }, this.delay);
    this.delay = Math.min(this.delay * 2, BACKOFF_MOST);
  }

  /** @param {string} data */
  received(data) {
    /** @type {ServerMessage} */
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    const id = "id" in message && message.id != null ? String(message.id) : undefined; // a push has none
    const entry = id !== undefined ? this.waiting.get(id) : undefined;
    if (entry) {
      // an action's answer may come in several frames (moved, then finished): the first settles it
      this.waiting.delete(id);
      entry.resolve(message);
    }
    this.hooks.onMessage(message, entry?.message);
  }

  /** Send `message` (an id is added) and get its reply (an `error` reply resolves too).
   * @param {Request} message @returns {Promise<ServerMessage>} */
  request(message) {
    const sent = { ...message, id: message.id ?? this.nextId() };
    return new Promise((resolve) => {
      this.waiting.set(sent.id, { message: sent, resolve, early: false });
      if (this.ready) this.socket.send(JSON.stringify(sent));
      else this.open();
    });
  }

  /** Like request(), but refused at once when the connection is down: for what the player
   * asks of the lobby (a new game, a room), which should not happen by itself seconds
   * later, when the connection is back, after they have moved on.
   * @param {Request} message @returns {Promise<ServerMessage>} */
  requestNow(message) {
    if (!this.ready) {
      this.open();
      return Promise.resolve({
        type: "error",
        code: "network",
        message: t("Not connected to the server: try again once the connection is back."),
      });
    }
    return this.request(message);
  }

  /** During onOpen: sent at once, before the queue (sign-in and resume).
   * @param {Request} message @returns {Promise<ServerMessage>} */
  early(message) {
    const sent = { ...message, id: this.nextId() };
    return new Promise((resolve) => {
      this.waiting.set(sent.id, { message: sent, resolve, early: true });
      this.socket.send(JSON.stringify(sent));
    });
  }

  /** Drop the connection (tests of reconnection use the server's side instead). */
  close() {
    this.wanted = false;
    if (this.socket) this.socket.close();
  }
}

/** The websocket URL of the server that served this page. */
export function serverUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/`;
}
