// The page's elements: finding them, showing one view, saying things to the player.

export const $ = (selector, scope = document) => scope.querySelector(selector);
export const $$ = (selector, scope = document) => Array.from(scope.querySelectorAll(selector));

/** Show one view (`[data-view]`): welcome, lobby, room or game. */
export function show(name) {
  if (!document.body.dataset.screen) performance.mark("simon:ready"); // the first view shown
  for (const view of $$("section[data-view]")) view.hidden = view.dataset.view !== name;
  document.body.dataset.screen = name;
}

export function current() {
  return document.body.dataset.screen;
}

export function setError(scope, text) {
  const element = $("[data-error]", scope);
  if (element) element.textContent = text;
}

/** Write `text` into `element` only when it differs: writing the same text again is still a
 * change that costs a frame. */
export function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

export function announce(text) {
  $("[data-announce]").textContent = text;
}

/** A refused move's rule, in the page's one alert. */
export function refuse(text) {
  const alert = $("[data-refusal]");
  alert.textContent = "";
  // a fresh text each time, so the same rule twice is announced twice
  requestAnimationFrame(() => {
    alert.textContent = text;
  });
}

export function clearRefusal() {
  $("[data-refusal]").textContent = "";
}

export function click(selector, handler) {
  for (const element of $$(selector)) element.addEventListener("click", handler);
}
