// The service worker: the app shell from the cache, and a page that says it is offline.
//
// Every versioned file (/static/NAME?v=HASH) is kept as fetched and answered from the cache
// thereafter: its URL changes with its content, so a cached copy is never stale. When a new
// version of a file arrives, the old ones leave the cache. Pages go to the network; when it
// cannot be reached, the offline page says so, in the language of the last page read (a page
// asked in another language, ?lang=ru, in that one if it was kept).
// Nothing else is touched: the websocket, the live parts and the JSON routes go as they are.

const CACHE = "simon-shell-2";
// the offline page in the language of the last page read; each language's beside it
const OFFLINE = "/offline";
/** @param {string} lang */
const offlineIn = (lang) => `${OFFLINE}?lang=${encodeURIComponent(lang)}`;

/** @param {string} url */
const isVersioned = (url) => {
  const { pathname, searchParams } = new URL(url);
  return pathname.startsWith("/static/") && searchParams.has("v");
};

/**
 * Keep the offline page fetched from `url` as the one to show, and under its language's key,
 * with its own stylesheet, icon and catalog, so that it reads as the site does.
 * @param {string} url
 */
async function keepOffline(url) {
  const cache = await caches.open(CACHE);
  const page = await fetch(url);
  if (!page.ok) throw new Error(`${url} answered ${page.status}`);
  const text = await page.clone().text();
  const links = [...text.matchAll(/href="(\/static\/[^"]+\?v=[^"]+)"/g)].map((m) => m[1]);
  await cache.addAll(links);
  const lang = page.headers.get("Content-Language");
  if (lang) await cache.put(offlineIn(lang), page.clone());
  await cache.put(OFFLINE, page);
}

/**
 * A page was read in `lang`: the offline page follows it (from the cache when that
 * language's was kept before, else fetched now; offline again, the one kept stays).
 * @param {string} lang
 */
async function followLanguage(lang) {
  const cache = await caches.open(CACHE);
  const shown = await cache.match(OFFLINE);
  if (shown?.headers.get("Content-Language") === lang) return;
  const kept = await cache.match(offlineIn(lang));
  if (kept) {
    await cache.put(OFFLINE, kept);
    return;
  }
  try {
    await keepOffline(offlineIn(lang));
  } catch {
    // the server is out of reach again: the page kept before still says it
  }
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      // in the visitor's language (the server reads their cookie and Accept-Language)
      await keepOffline(OFFLINE);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

/** @param {Request} request */
async function versioned(request) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) {
    const path = new URL(request.url).pathname;
    for (const old of await cache.keys()) {
      if (new URL(old.url).pathname === path) await cache.delete(old);
    }
    await cache.put(request, response.clone());
  }
  return response;
}

/** @param {FetchEvent} event */
async function page(event) {
  const { request } = event;
  try {
    const response = await fetch(request);
    const lang = response.headers.get("Content-Language");
    if (lang) event.waitUntil(followLanguage(lang));
    return response;
  } catch (error) {
    const asked = new URL(request.url).searchParams.get("lang");
    const offline =
      (asked && (await caches.match(offlineIn(asked)))) || (await caches.match(OFFLINE));
    if (offline) return offline;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  if (isVersioned(request.url)) event.respondWith(versioned(request));
  else if (request.mode === "navigate") event.respondWith(page(event));
});
