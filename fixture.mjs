// fixture.mjs (`@ai-ecoverse/slicc-browsers/fixture`): the guard vectors' stand-in for Node, the
// same routes, answers and log entries as the crate's stand-in (`slicc_browsers::harness::fixture`).
//
// Every route is served on every Host (the test browser maps the protected and ordinary hosts to
// this one port); the route is chosen by path alone. Every response carries
// `Cache-Control: no-store`. A request is logged before any latency hold, as
// `{ url: '<scheme>://<Host header><target>', method, headers (lower-case names, repeats joined
// with ', '), time (ms since the epoch) }`. With `tls`, the server speaks HTTPS and the origin,
// logged URLs, redirects and document heartbeats are `https://<Host>`.

import http from 'node:http';
import https from 'node:https';

/** The ports browsers use for remote debugging: the stand-in never listens there. */
export const RESERVED_PORTS = [9222, 9229];

/** A 1x1 PNG (the `/img` and `/live` answer). */
export const PNG_1X1 = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89,
  0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01,
  0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
]);

const CORS_ROUTES = ['/data', '/img', '/live', '/auth', '/beacon', '/log', '/hop'];
const KNOWN_ROUTES = ['/doc', '/hop', '/framed', '/data', '/img', '/auth', '/rewritten', '/plant', '/beacon', '/log', '/live'];
const REASONS = {
  200: 'OK', 204: 'No Content', 300: 'Multiple Choices', 301: 'Moved Permanently', 302: 'Found', 303: 'See Other',
  304: 'Not Modified', 307: 'Temporary Redirect', 308: 'Permanent Redirect', 400: 'Bad Request', 401: 'Unauthorized',
  404: 'Not Found',
};

const html = (s) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

function jsString(s) {
  let out = '"';
  for (const ch of s) {
    if (/[A-Za-z0-9]/.test(ch) || ' -_.,:/?=&%+@!~*()'.includes(ch)) out += ch;
    else for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

function base64Decode(text) {
  const body = text.replace(/=+$/, '');
  if (text.length - body.length > 2 || body.length % 4 === 1 || /[^A-Za-z0-9+/_-]/.test(body)) return undefined;
  return Buffer.from(body.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

function response(status, type, body) {
  const headers = [];
  if (type) headers.push(['Content-Type', type]);
  return { status, headers, body: Buffer.isBuffer(body) ? body : Buffer.from(body ?? '') };
}
const text = (status, body) => response(status, 'text/plain; charset=utf-8', body);
const page = (body) => response(200, 'text/html; charset=utf-8', body);

function cors(req, r) {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    r.headers.push(['Access-Control-Allow-Origin', origin], ['Access-Control-Allow-Credentials', 'true'], ['Vary', 'Origin']);
  }
}

function preflight(req) {
  const r = response(204, '', '');
  cors(req, r);
  const h = req.headers;
  if (h['access-control-request-method'] !== undefined) r.headers.push(['Access-Control-Allow-Methods', h['access-control-request-method']]);
  if (h['access-control-request-headers'] !== undefined) r.headers.push(['Access-Control-Allow-Headers', h['access-control-request-headers']]);
  if (h['access-control-request-private-network'] !== undefined) r.headers.push(['Access-Control-Allow-Private-Network', 'true']);
  r.headers.push(['Access-Control-Max-Age', '0']);
  return r;
}

function doc(q) {
  const n = q.get('n') ?? '';
  const csp = q.get('csp') === '1';
  const h = html(n);
  const script = csp
    ? `<script>(function(){document.title="inline";var u="/beacon?tag="+encodeURIComponent(${jsString(`inline-${n}`)})+"&origin="+encodeURIComponent(location.origin)+"&href="+encodeURIComponent(location.href);try{if(navigator.sendBeacon&&navigator.sendBeacon(u))return}catch(e){}try{fetch(u,{method:"POST",keepalive:true,mode:"no-cors"})}catch(e){}})();</script>`
    : '';
  const r = page(`<!doctype html><html data-canary="${h}"><head><meta charset="utf-8"><title>doc ${h}</title></head><body data-canary="${h}"><p>doc ${h}</p><img src="/live?n=${encodeURIComponent(n)}" width="1" height="1" alt="">${script}</body></html>`);
  if (csp) r.headers.push(['Content-Security-Policy', "script-src 'none'"]);
  return r;
}

function hop(q) {
  const c = q.get('code');
  const code = c !== null && /^[0-9]+$/.test(c) ? Number(c) : NaN;
  if (!(code >= 300 && code <= 399)) return text(400, 'hop needs code=300..399\n');
  const to = q.get('to');
  if (!to) return text(400, 'hop needs to=<url>\n');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(to)) return text(400, "hop's to has control characters\n");
  const r = text(code, `hop ${code} to ${to}\n`);
  r.headers.push(['Location', to]);
  return r;
}

function framed(q) {
  const src = q.get('src');
  if (!src) return text(400, 'framed needs src=<url>\n');
  return page(`<!doctype html><html><head><meta charset="utf-8"><title>framed</title></head><body><iframe src="${html(src)}" width="600" height="400"></iframe></body></html>`);
}

function auth(req) {
  const v = req.headers.authorization;
  if (typeof v === 'string') {
    const i = v.indexOf(' ');
    const scheme = i < 0 ? v : v.slice(0, i);
    const token = i < 0 ? '' : v.slice(i + 1).trim();
    const decoded = base64Decode(token);
    if (scheme.toLowerCase() === 'basic' && decoded && decoded.toString('latin1') === 'u:p') return text(200, 'authed');
  }
  const r = text(401, 'auth needed\n');
  r.headers.push(['WWW-Authenticate', 'Basic realm="stand-in"']);
  return r;
}

const isTchar = (c) => /[!#$%&'*+\-.^_`|~0-9A-Za-z]/.test(c);

function plant(q) {
  const n = q.get('tag') || q.get('n');
  if (!n) return text(400, 'plant needs n=<tag> (or tag=<tag>)\n');
  const name = q.get('name') ?? `canary-${n}`;
  const value = q.get('value') ?? n;
  if (name.length === 0 || name.length > 256 || ![...name].every(isTchar)) return text(400, "plant's cookie name is not a cookie token\n");
  if (value.length > 4096 || ![...value].every((c) => c > ' ' && c <= '~' && !'",;\\'.includes(c))) {
    return text(400, "plant's cookie value has characters a cookie cannot hold\n");
  }
  const h = html(n);
  const hv = html(value);
  const db = jsString('canary');
  const store = jsString('canary');
  const r = page(`<!doctype html><html data-canary="${hv}"><head><meta charset="utf-8"><title>plant ${h}</title></head><body data-canary="${hv}"><p>plant ${h}</p><script>(function(){var name=${jsString(name)},value=${jsString(value)},n=${jsString(n)};function done(ok){document.title=(ok?${jsString('planted')}:${jsString('plant failed')})+" "+n;document.documentElement.setAttribute("data-planted",ok?"1":"0")}try{localStorage.setItem(name,value)}catch(e){return done(false)}try{var open=indexedDB.open(${db},1);open.onupgradeneeded=function(){var db=open.result;if(!db.objectStoreNames.contains(${store}))db.createObjectStore(${store})};open.onerror=function(){done(false)};open.onsuccess=function(){var db=open.result;try{var tx=db.transaction(${store},"readwrite");tx.objectStore(${store}).put(value,name);tx.oncomplete=function(){db.close();done(true)};tx.onerror=function(){db.close();done(false)}}catch(e){done(false)}}}catch(e){done(false)}})();</script></body></html>`);
  r.headers.push(['Set-Cookie', `${name}=${value}; Path=/; SameSite=Lax`]);
  return r;
}

function pathOf(url) {
  const rest = url.replace(/^https?:\/\//, '');
  const start = rest.indexOf('/');
  const path = start < 0 ? '' : rest.slice(start);
  const end = path.search(/[?#]/);
  return end < 0 ? path : path.slice(0, end);
}

function logRoute(q, entries) {
  const n = q.get('n') ?? '';
  const hits = entries.filter((e) => e.url.includes(n) && pathOf(e.url) !== '/log');
  const beacons = hits.filter((e) => pathOf(e.url) === '/beacon').map((e) => {
    const i = e.url.indexOf('?');
    const p = new URLSearchParams(i < 0 ? '' : e.url.slice(i + 1));
    return { url: e.url, tag: p.get('tag'), origin: p.get('origin'), href: p.get('href'), method: e.method, time: e.time };
  });
  return response(200, 'application/json', JSON.stringify({ hits, beacons }));
}

function route(req, path, q, entries) {
  if (path.startsWith('/auth/')) path = '/auth';
  if (!KNOWN_ROUTES.includes(path)) return text(404, `no stand-in route ${path}\n`);
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) return preflight(req);
  let r;
  switch (path) {
    case '/doc': r = doc(q); break;
    case '/hop': r = hop(q); break;
    case '/framed': r = framed(q); break;
    case '/data': r = text(200, `real-${q.get('n') ?? ''}`); break;
    case '/img':
    case '/live': r = response(200, 'image/png', PNG_1X1); break;
    case '/auth': r = auth(req); break;
    case '/rewritten': r = page('<!doctype html><html><head><meta charset="utf-8"><title>rewritten</title></head><body>rewritten</body></html>'); break;
    case '/plant': r = plant(q); break;
    case '/beacon': r = response(204, '', ''); break;
    default: r = logRoute(q, entries);
  }
  if (CORS_ROUTES.includes(path)) cors(req, r);
  return r;
}

/** Lower-case header names, repeated headers joined with ', ' (from the raw headers, in order). */
function headersOf(raw) {
  const out = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = raw[i].toLowerCase();
    out[k] = out[k] === undefined ? raw[i + 1] : `${out[k]}, ${raw[i + 1]}`;
  }
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]));
}

/**
 * Starts the stand-in.
 * @param {{ host?: string, port?: number, tls?: { key: string|Buffer, cert: string|Buffer },
 *   latency?: (url: string) => number | undefined }} [options]
 *   `host` (default 127.0.0.1), `port` (default 0: a random one; 9222-9229 are refused),
 *   `tls` to serve HTTPS, `latency(url)` the milliseconds to hold that response.
 * @returns {Promise<{ origin: string, port: number, log(): {url: string, method: string, headers: Record<string,string>, time: number}[],
 *   reset(): void, close(): Promise<void> }>}
 */
export async function fixtureServer({ host = '127.0.0.1', port = 0, tls, latency } = {}) {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`fixtureServer: port ${port} is not a port number (0 for a random one)`);
  if (port >= RESERVED_PORTS[0] && port <= RESERVED_PORTS[1]) {
    throw new Error(`fixtureServer: port ${port} is reserved for browsers' remote debugging (9222-9229): the stand-in never listens there; choose another port or 0 for a random one`);
  }
  if (tls !== undefined && (tls === null || !tls.key || !tls.cert)) throw new Error('fixtureServer: tls needs { key, cert } (PEM strings or Buffers)');
  if (latency !== undefined && typeof latency !== 'function') throw new Error('fixtureServer: latency must be a function (url) => milliseconds');
  const scheme = tls ? 'https' : 'http';
  let entries = [];
  const sockets = new Set();
  const handler = (req, res) => {
    const chunks = [];
    req.on('data', (c) => {
      if (chunks.reduce((n, x) => n + x.length, 0) < 1024 * 1024) chunks.push(c);
    });
    req.on('error', () => res.destroy());
    req.on('end', async () => {
      const hostHeader = req.headers.host;
      if (hostHeader === undefined || /[\s/]/.test(hostHeader)) {
        const b = Buffer.from('400 Bad Request: missing or malformed Host\n');
        res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': b.length, Connection: 'close' });
        res.end(b);
        return;
      }
      const target = req.url ?? '/';
      const url = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(target) ? target : `${scheme}://${hostHeader}${target}`;
      const entry = { url, method: req.method, headers: headersOf(req.rawHeaders), time: Date.now() };
      entries.push(entry);
      const rest = target.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '');
      const q = rest.indexOf('?');
      const path = (q < 0 ? rest : rest.slice(0, q)).split('#')[0];
      const query = new URLSearchParams(q < 0 ? '' : rest.slice(q + 1).split('#')[0]);
      let r;
      try {
        r = route(req, path, query, entries);
      } catch (e) {
        r = text(500, `stand-in error: ${e && e.message}\n`);
      }
      const hold = latency ? Number(latency(url)) : 0;
      if (hold > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(hold, 120000)));
      const headers = [...r.headers, ['Cache-Control', 'no-store'], ['Content-Length', String(r.body.length)]];
      res.writeHead(r.status, REASONS[r.status] ?? (r.status >= 300 && r.status <= 399 ? 'Redirect' : 'Status'), headers.flat());
      res.end(req.method === 'HEAD' ? undefined : r.body);
    });
  };
  const server = tls ? https.createServer({ key: tls.key, cert: tls.cert }, handler) : http.createServer(handler);
  server.keepAliveTimeout = 10000;
  server.headersTimeout = 30000;
  server.requestTimeout = 30000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = server.address().port;
  const authority = host.includes(':') ? `[${host}]:${actual}` : `${host}:${actual}`;
  return {
    origin: `${scheme}://${authority}`,
    port: actual,
    /** Every request logged since the start (or the last reset), oldest first. */
    log: () => entries.map((e) => ({ ...e, headers: { ...e.headers } })),
    /** Forgets the logged requests. */
    reset: () => {
      entries = [];
    },
    /** Stops listening and closes every connection. */
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    }),
  };
}
