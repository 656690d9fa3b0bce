// Two of the account's panels (devices.js opens them): a terminal's sign-in approved or
// refused (the code `simon login` printed, typed or named by the address, /play?code=...),
// and the account's data: everything kept about it downloaded as a file (/account/export,
// with the token), or the account deleted (its name typed to confirm; its results stay on
// past boards under an anonymous name).

import { controller as c } from "./controller.js";
import { clock, setError } from "./dom.js";
import { laterWords, t } from "./i18n.js";
import { el, errorLine, onLeave } from "./devices.js";

await laterWords(); // this module's words, fetched with it

/** @typedef {import("./messages.js").DeviceRequest} DeviceRequest */

// -- a terminal's sign-in ------------------------------------------------------------------

/** @param {HTMLElement} panel */
export function terminalPanel(panel) {
  const code = el("input", {
    name: "user_code", id: "terminal-code", required: true, autocomplete: "off", spellcheck: "false",
    autocapitalize: "characters", maxlength: "16", placeholder: "BCDF-GHJK",
  });
  code.value = c.approveCode ?? "";
  const form = el(
    "form",
    { "data-form": "terminal-code" },
    el("label", { for: "terminal-code" }, t("The code the terminal shows")),
    el("div.row", null, code, el("button", { type: "submit" }, t("Look it up"))),
  );
  const asking = el("div", { "data-terminal-request": true });
  panel.append(
    el("p.hint", null, t("A terminal that runs “simon login” shows a code. Type it here to sign that terminal in as you.")),
    form,
    asking,
    errorLine(),
  );
  let timer = 0;
  onLeave(() => clearInterval(timer));
  /** Show what asks, with its time left, and the two answers. @param {DeviceRequest} request */
  const show = (request) => {
    const ends = Date.now() + request.expires_in * 1000;
    const left = el("p", { "data-time-left": true });
    const tick = () => {
      const seconds = Math.max(0, Math.ceil((ends - Date.now()) / 1000));
      left.textContent = t("The code %(code)s expires in %(time)s.", { code: request.user_code, time: clock(seconds) });
      if (!seconds) clearInterval(timer);
    };
    clearInterval(timer);
    tick();
    timer = setInterval(tick, 1000);
    const approve = el("button", { "data-action": "approve-terminal" }, t("Approve"));
    const refuse = el("button", { "data-action": "refuse-terminal" }, t("Refuse"));
    asking.replaceChildren(
      el("p", { "data-asking": true }, t("%(device)s asks to sign in as you, from %(address)s.", { device: request.device, address: request.created_from })),
      left,
      el("p.hint", null, t("Approve it only if you started that sign-in yourself.")),
      el("div.row", null, approve, refuse),
    );
    /** @param {boolean} yes */
    const answer = async (yes) => {
      setError(panel, "");
      const reply = await c.connection.request({ type: "device_approve", user_code: request.user_code, approve: yes });
      if (reply.type === "error") {
        setError(panel, reply.message);
        return;
      }
      clearInterval(timer);
      c.approveCode = null;
      history.replaceState(null, "", location.pathname);
      const said = yes ? t("Approved: the terminal is signed in as you.") : t("Refused: the terminal is not signed in.");
      asking.replaceChildren(el("p.notice", { role: "status", "data-answered": yes ? "approved" : "refused" }, said));
    };
    approve.addEventListener("click", () => answer(true));
    refuse.addEventListener("click", () => answer(false));
    approve.focus();
  };
  const lookUp = async () => {
    setError(panel, "");
    asking.replaceChildren();
    const reply = await c.connection.request({ type: "device_lookup", user_code: code.value.trim().toUpperCase() });
    if (reply.type === "device_request") show(reply);
    else if (reply.type === "error") setError(panel, reply.message);
  };
  form.addEventListener("submit", (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    lookUp();
  });
  if (code.value) lookUp();
}

// -- the account's data ----------------------------------------------------------------------

/** @param {HTMLElement} panel */
export function dataPanel(panel) {
  const name = c.player?.name ?? "";
  const download = el("button", { "data-action": "export" }, t("Download your data"));
  const saved = el("p", { "data-export": true });
  const typed = el("input", { id: "delete-name", name: "confirm", autocomplete: "off", spellcheck: "false", autocapitalize: "off" });
  const remove = el("button.danger", { type: "submit", disabled: true }, t("Delete the account"));
  const form = el(
    "form",
    { "data-form": "delete-account" },
    el("label", { for: "delete-name" }, t("Type your name, %(name)s, to confirm", { name })),
    el("div.row", null, typed, remove),
  );
  panel.append(
    el("h3", null, t("Download your data")),
    el("p.hint", null, t("Everything kept about your account, as a JSON file: the account, where it is signed in, its passkeys, your games with their moves, races, reviews and reports.")),
    el("div.row", null, download),
    saved,
    el("h3", null, t("Delete the account")),
    el("p", null, t("Deleting the account removes how it signs in (tokens, passkeys, recovery codes) and its personal data, on every device at once. Your results stay on past boards under an anonymous name. It cannot be undone.")),
    form,
    errorLine(),
  );
  download.addEventListener("click", async () => {
    setError(panel, "");
    saved.replaceChildren();
    let response;
    try {
      response = await fetch("/account/export", { headers: { Authorization: `Bearer ${c.token}` }, cache: "no-store" });
    } catch {
      setError(panel, t("Not connected to the server: try again once the connection is back."));
      return;
    }
    if (!response.ok) {
      setError(panel, t("The server could not give your data (%(status)s): try again later.", { status: response.status }));
      return;
    }
    const url = URL.createObjectURL(await response.blob());
    const file = `simple-simon-${name}.json`;
    const link = el("a", { href: url, download: file, "data-export-link": true }, t("Save %(file)s", { file }));
    saved.replaceChildren(link);
    onLeave(() => URL.revokeObjectURL(url));
    link.click();
  });
  typed.addEventListener("input", () => {
    remove.disabled = typed.value.trim() !== name;
  });
  form.addEventListener("submit", async (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    if (typed.value.trim() !== name) return;
    setError(panel, "");
    remove.disabled = true;
    const reply = await c.connection.request({ type: "delete_account", confirm: typed.value.trim() });
    if (reply.type === "account_deleted") {
      c.leave(t("Your account is deleted. Its results stay on past boards as %(name)s.", { name: reply.name }));
    } else if (reply.type === "error") {
      remove.disabled = false;
      setError(panel, reply.message);
    }
  });
}
