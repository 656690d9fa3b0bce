// The account menu (the player's name, top right): who you are, the token for another
// device, the settings (settings.js), signing out.

import { $, click, copyText } from "./dom.js";
import { t } from "./i18n.js";

/** @param {object} account token() -> the token kept, signOut() */
export function setupAccountMenu(account) {
  const accountButton = $("[data-action=account]");
  const menu = $("#account-menu");
  function closeMenu() {
    menu.hidden = true;
    accountButton.setAttribute("aria-expanded", "false");
  }
  accountButton.addEventListener("click", () => {
    menu.hidden = !menu.hidden;
    accountButton.setAttribute("aria-expanded", String(!menu.hidden));
  });
  document.addEventListener("click", (event) => {
    if (!menu.hidden && !/** @type {Element} */ (event.target).closest("[data-account]")) closeMenu();
  });
  click("[data-action=device]", () => {
    closeMenu();
    $("[data-token]").textContent = account.token() ?? "";
    $("[data-token-box]").hidden = false;
    $("[data-action=copy-token]").focus();
  });
  click("[data-action=copy-token]", (event) =>
    copyText(account.token() ?? "", event.currentTarget, $("[data-token]")),
  );
  function closeToken() {
    $("[data-token]").textContent = "";
    $("[data-token-box]").hidden = true;
    accountButton.focus();
  }
  click("[data-action=close-token]", closeToken);
  // Esc closes what is open, the token first (it is over everything), and the focus goes back
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    if (!$("[data-token-box]").hidden) closeToken();
    else if (!menu.hidden) {
      closeMenu();
      accountButton.focus();
    } else return;
    event.preventDefault();
    event.stopImmediatePropagation();
  });
  click("[data-action=sign-out]", () => {
    const question = t('Sign out of this browser? Sign in again with your token ("Use on another device" shows it).');
    if (!confirm(question)) return;
    account.signOut();
  });
}
