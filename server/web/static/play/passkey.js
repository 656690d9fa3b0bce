// Passkeys (WebAuthn), loaded only when one is made or used: the server's options
// (`passkey_options`, JSON with base64url fields) to the browser's, and the credential the
// browser makes back to JSON (`credential.toJSON()`, or the same by hand where the browser
// has no toJSON). The relying party is the page's host: a passkey works on a named address
// (https, or localhost), and the server says so when it cannot.

import { controller as c } from "./controller.js";
import { laterWords, t } from "./i18n.js";

await laterWords(); // this module's words, fetched with it

/** Whether this browser can make and use passkeys at all. */
export function passkeysHere() {
  return typeof window.PublicKeyCredential === "function" && Boolean(navigator.credentials);
}

/** @param {string} text base64url @returns {ArrayBuffer} */
function bytes(text) {
  const plain = atob(text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "="));
  return Uint8Array.from(plain, (char) => char.charCodeAt(0)).buffer;
}

/** @param {ArrayBuffer | null | undefined} buffer @returns {string | undefined} base64url */
function text(buffer) {
  if (!buffer) return undefined;
  let plain = "";
  for (const byte of new Uint8Array(buffer)) plain += String.fromCharCode(byte);
  return btoa(plain).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** @param {any} options the server's creation options @returns {PublicKeyCredentialCreationOptions} */
function creation(options) {
  const PKC = /** @type {any} */ (PublicKeyCredential);
  if (typeof PKC.parseCreationOptionsFromJSON === "function") return PKC.parseCreationOptionsFromJSON(options);
  return {
    ...options,
    challenge: bytes(options.challenge),
    user: { ...options.user, id: bytes(options.user.id) },
    excludeCredentials: (options.excludeCredentials ?? []).map((/** @type {any} */ d) => ({ ...d, id: bytes(d.id) })),
  };
}

/** @param {any} options the server's request options @returns {PublicKeyCredentialRequestOptions} */
function request(options) {
  const PKC = /** @type {any} */ (PublicKeyCredential);
  if (typeof PKC.parseRequestOptionsFromJSON === "function") return PKC.parseRequestOptionsFromJSON(options);
  return {
    ...options,
    challenge: bytes(options.challenge),
    allowCredentials: (options.allowCredentials ?? []).map((/** @type {any} */ d) => ({ ...d, id: bytes(d.id) })),
  };
}

/** The credential as JSON, base64url fields. @param {any} credential */
function json(credential) {
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  return {
    id: credential.id,
    rawId: text(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: text(r.clientDataJSON),
      attestationObject: text(r.attestationObject),
      authenticatorData: text(r.authenticatorData),
      signature: text(r.signature),
      userHandle: text(r.userHandle),
      transports: typeof r.getTransports === "function" ? r.getTransports() : undefined,
    },
    clientExtensionResults: credential.getClientExtensionResults?.() ?? {},
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
  };
}

/** A new passkey for the account, or a sign-in by one: the browser's part between the
 * server's options and the server's check. Resolves to the server's reply (an `error`
 * when the server or the browser refused: the browser's own refusal said in the page's words).
 * @param {"add" | "sign_in"} purpose @param {(credential: any) => import("./net.js").Request} then
 * @returns {Promise<import("./messages.js").ServerMessage>} */
export async function usePasskey(purpose, then) {
  const asked = await c.connection.request({ type: "passkey_options", purpose });
  if (asked.type !== "passkey_options") return asked;
  const options = /** @type {any} */ (asked).options;
  let credential;
  try {
    credential =
      purpose === "add"
        ? await navigator.credentials.create({ publicKey: creation(options) })
        : await navigator.credentials.get({ publicKey: request(options) });
  } catch (error) {
    const name = /** @type {Error} */ (error).name;
    const message =
      name === "NotAllowedError"
        ? t("The passkey was not used: cancelled, or it took too long.")
        : name === "InvalidStateError"
          ? t("This device already keeps a passkey of your account.")
          : t("The browser could not use a passkey here.");
    return refusal(message);
  }
  if (!credential) return refusal(t("The browser could not use a passkey here."));
  return c.connection.request(then(json(credential)));
}

/** The browser's refusal, as the server's are. @param {string} message
 * @returns {import("./messages.js").ErrorMessage} */
function refusal(message) {
  return { type: "error", code: "passkey-failed", message };
}
