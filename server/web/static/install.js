// Installs the service worker (sw.js): the app shell kept, and an offline visit told so.
// updateViaCache "all": the worker's own update check is answered by the HTTP cache for a
// day (its Cache-Control), so that a repeat visit asks the network for nothing unchanged.
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { updateViaCache: "all" }).catch((error) => {
    console.warn("service worker not installed", error);
  });
}
