// The service worker: the app shell from the cache, and a page that says it is offline.
//
// Every versioned file (/static/NAME?v=HASH) is kept as fetched and answered from the cache
// thereafter: its URL changes with its content, so a cached copy is never stale. When a new
// version of a file arrives, the old ones leave the cache. Pages go to the network; when it
// cannot be reached, the offline page (cached at install, in the visitor's language) says so.
// Nothing else is touched: the websocket, the live parts and the JSON routes go as they are.

const CACHE = "simon-shell-1";
const OFFLINE = "/offline";

/** @param {string} url */
const isVersioned = (url) => {
  const { pathname, searchParams } = new URL(url);
  return pathname.startsWith("/static/") && searchParams.has("v");
};

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const page = await fetch(OFFLINE);
      const text = await page.clone().text();
      await cache.put(OFFLINE, page);
      // the offline page's own stylesheet and icon, so that it reads as the site does
      const links = [...text.matchAll(/href="(\/static\/[^"]+\?v=[^"]+)"/g)].map((m) => m[1]);
      await cache.addAll(links);
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

/** @param {Request} request */
async function page(request) {
  try {
    return await fetch(request);
  } catch (error) {
    const offline = await caches.match(OFFLINE);
    if (offline) return offline;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  if (isVersioned(request.url)) event.respondWith(versioned(request));
  else if (request.mode === "navigate") event.respondWith(page(request));
});
