// The console's service worker: it keeps the shell (the page at / and its content-hashed assets)
// so that the installed web app opens at once and offline shows its own "not reachable" banner. It
// never caches an API answer: every /api/ request goes to the network as the page sent it.
const VERSION = '{{version}}';
const SHELL = {{shell}};
const CACHE = `ops-shell-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith('ops-shell-') && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname === '/') {
    // the shell: the network first (a new build's names), the cached copy when offline
    event.respondWith(fetch(event.request).catch(() => caches.match('/')));
  } else if (url.pathname.startsWith('/assets/')) {
    // content-hashed: a cached copy is never stale
    event.respondWith(caches.match(event.request).then((hit) => hit || fetch(event.request)));
  }
  // everything else (the API above all) is not touched
});
