// guard-driver.mjs: the guard vectors' driver and judge, with no dependencies, no imports and no
// Node APIs, so it runs in a plain browser page as well as in Node.
//
// It reads `guard-vectors.json` (schema 1) as the crate's runner does (`docs/guard-vectors.md`):
// placeholders and legs, step expansion with refusal names, the checks of every kind on what a
// leg recorded, liveness proofs, the gate that skips a row, report rows and the certification
// summary. The driving half (`call`, `instrument`, `load`, `popup`) works on a client of the
// spec's shape: `send(method, params, sessionId)`, `waitEvent(predicate, ms)`, `events`.

/** @typedef {{ method: string, params?: object, sessionId?: string }} CdpEvent */
/**
 * A CDP client of the spec's shape.
 * @typedef {{ send(method: string, params?: object, sessionId?: string): Promise<any>,
 *   waitEvent(predicate: (e: CdpEvent) => boolean, ms: number): Promise<CdpEvent>,
 *   events: CdpEvent[] }} Client
 */
/** @typedef {'pass' | 'fail' | 'skip' | 'not-run'} Status */
/**
 * A leg's variables: each name's value, or `{ null: <origin name reported> }` for a null origin.
 * @typedef {Record<string, string | { null: string }>} Vars
 */
/**
 * A named outcome as the runner records it.
 * @typedef {{ outcome: 'value', value: any } | { outcome: 'failed', value: string } | { outcome: 'pending' }} Recorded
 */
/**
 * What one leg recorded (the crate's `Record`, as JSON).
 * @typedef {{ tag: string, log: {url: string, method: string, headers?: Record<string,string>, time: number}[],
 *   events: CdpEvent[], outcomes: Record<string, Recorded>, refused: string[],
 *   refusalErrors: Record<string, string>, sessions: {role: string, sessionId: string, targetId: string, url: string}[],
 *   detached: string[], executed: string[], reads: [object, Recorded][], observer: boolean,
 *   errors: string[], navigationErrors?: {session: string, url: string, error: string}[],
 *   unsupported?: string[] }} LegRecord
 */
/**
 * A report row.
 * @typedef {{ id: string, target: string, variant: string, transport: string, via: string,
 *   control: Status, guarded: Status, live: Status, reason?: string,
 *   observations: Record<string, Record<string, boolean | null>>, errors: string[],
 *   transportVariant: boolean }} Row
 */

/** The three capabilities a transport may lack. */
export const CAPABILITIES = ['autoAttach', 'browserSession', 'browserContexts'];
/** The origin names a runner maps. */
export const REQUIRED_ORIGINS = ['ordinary', 'ordinary-same-site', 'seven', 'vault', 'vault-x', 'apex', 'own', 'client'];
/** The optional origin names and their defaults. */
export const OPTIONAL_ORIGINS = { plain: 'ordinary', cross: 'client', log: 'ordinary' };
/** The skip reason of a row that needs an unguarded observer the run lacks. */
export const SKIP_OBSERVER = 'not-supported:unguarded-observer';
/** The skip reason of a row `own` cannot show. */
export const SKIP_NOT_OBSERVABLE = 'not-observable';
/** The catalog's refusal text (catalog.json `refusal`), the last pattern a refusal is matched by. */
export const CATALOG_REFUSAL = "slicc: refused: target is on seven's origin";

const CHECK_KINDS = ['beacon', 'served', 'header', 'event', 'result', 'cookie', 'compare', 'refused', 'reached',
  'attached', 'delivered', 'title', 'expression', 'executed', 'live', 'hops', 'detached', 'pre', 'loaded',
  'registration', 'state', 'filtered', 'blocked', 'history', 'frameBlocked', 'all', 'any', 'not'];
const STEP_KINDS = ['cdp', 'page', 'answer', 'children', 'settle', 'wait', 'guess', 'text'];

/** An error in a vector file or in what a caller passed: says what, where and what to do. */
export class GuardVectorError extends Error {
  /** @param {string} where @param {string} message */
  constructor(where, message) {
    super(`${where}: ${message}`);
    this.name = 'GuardVectorError';
    this.where = where;
  }
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const has = (o, k) => isObject(o) && Object.prototype.hasOwnProperty.call(o, k);
const lit = (s) => JSON.stringify(String(s));

/** Whether any node of a JSON value satisfies `f`. */
function anyNode(value, f) {
  if (f(value)) return true;
  if (Array.isArray(value)) return value.some((v) => anyNode(v, f));
  if (isObject(value)) return Object.values(value).some((v) => anyNode(v, f));
  return false;
}

/** Deep JSON equality (object key order ignored). */
function jsonEqual(a, b) {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => has(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** The origin of a URL (`scheme://authority`), or undefined. */
export function originOf(url) {
  if (typeof url !== 'string') return undefined;
  const sep = url.indexOf('://');
  if (sep < 0) return undefined;
  const start = sep + 3;
  let end = url.length;
  for (const c of ['/', '?', '#']) {
    const i = url.indexOf(c, start);
    if (i >= 0 && i < end) end = i;
  }
  if (end === start) return undefined;
  return url.slice(0, end);
}

/** The host of a URL, without the port (`[::1]` kept in brackets). */
export function hostOf(url) {
  const origin = originOf(url);
  if (origin === undefined) return undefined;
  let authority = origin.slice(origin.indexOf('://') + 3);
  const at = authority.lastIndexOf('@');
  if (at >= 0) authority = authority.slice(at + 1);
  if (authority.startsWith('[')) {
    const i = authority.indexOf(']');
    return i >= 0 ? authority.slice(0, i + 1) : undefined;
  }
  const colon = authority.indexOf(':');
  return colon >= 0 ? authority.slice(0, colon) : authority;
}

// ---------------------------------------------------------------------------------------------
// Placeholders

/** The `{name}` tokens of a text: `[start, end, name]` for each `\{[A-Za-z][A-Za-z-]*\}`. */
export function tokens(text) {
  const out = [];
  const re = /\{([A-Za-z][A-Za-z-]*)\}/g;
  let m;
  while ((m = re.exec(text)) !== null) out.push([m.index, m.index + m[0].length, m[1]]);
  return out;
}

function varValue(vars, name) {
  const v = vars ? vars[name] : undefined;
  return typeof v === 'string' ? v : undefined;
}

function nullReason(vars, name) {
  const v = vars ? vars[name] : undefined;
  if (isObject(v) && typeof v.null === 'string') return v.null;
  if (v === undefined && (name === 'beacon' || name === 'probe')) return nullReason(vars, 'log');
  return undefined;
}

/**
 * Expands every `{name}` whose value is known, in a string or at any depth of a JSON value;
 * an unknown or null name stays as written.
 * @param {any} value @param {Vars} vars
 */
export function expand(value, vars) {
  vars = unwrapVars(vars);
  if (typeof value === 'string') {
    return value.replace(/\{([A-Za-z][A-Za-z-]*)\}/g, (all, name) => {
      const v = varValue(vars, name);
      return v === undefined ? all : v;
    });
  }
  if (Array.isArray(value)) return value.map((v) => expand(v, vars));
  if (isObject(value)) {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = expand(v, vars);
    return out;
  }
  return value;
}

/** The origin name a JSON value needs that is null in `vars`, if any. */
export function nullIn(value, vars) {
  vars = unwrapVars(vars);
  if (!Object.values(vars).some((v) => isObject(v))) return undefined;
  let found;
  anyNode(value, (node) => {
    if (typeof node !== 'string') return false;
    for (const [, , name] of tokens(node)) {
      const r = nullReason(vars, name);
      if (r !== undefined) {
        found = r;
        return true;
      }
    }
    return false;
  });
  return found;
}

function unwrapVars(vars) {
  if (isObject(vars) && isObject(vars.vars) && Object.keys(vars).length === 1) return vars.vars;
  return vars || {};
}

/**
 * Resolves an origin name in a map: an optional name takes its default when absent or null.
 * @returns {[string | null, string]} the origin (or null) and the name a skip reports
 */
export function resolveOrigin(origins, name) {
  const get = (n) => (origins && typeof origins[n] === 'string' ? origins[n] : null);
  if (has(OPTIONAL_ORIGINS, name)) {
    const own = get(name);
    if (own !== null) return [own, name];
    const d = OPTIONAL_ORIGINS[name];
    return [get(d), d];
  }
  return [get(name), name];
}

/**
 * A leg's variables: every origin name, `target` and `targetHost` (the control leg's target is
 * `{plain}`), `tag`, `cookie`, and, when `{log}` is known, `beacon`, `probe` and `responseOrigin`.
 * @param {{ origins: Record<string, string|null>, leg: 'control'|'guarded', target: string, tag: string, cookie?: string }} o
 * @returns {Vars}
 */
export function legVars({ origins, leg, target, tag, cookie }) {
  const vars = {};
  const put = (name, [value, report]) => {
    vars[name] = value === null || value === undefined ? { null: report } : value;
  };
  for (const n of [...REQUIRED_ORIGINS, ...Object.keys(OPTIONAL_ORIGINS)]) put(n, resolveOrigin(origins, n));
  const [origin, report] = resolveOrigin(origins, leg === 'control' ? 'plain' : target);
  put('target', [origin, report]);
  put('targetHost', [origin === null ? null : hostOf(origin) ?? null, report]);
  vars.tag = tag;
  vars.cookie = cookie ?? `canary-${tag}`;
  if (typeof vars.log === 'string' && tag) {
    vars.beacon = beacon(vars.log, tag);
    vars.probe = probe(vars.log, tag);
  }
  if (typeof vars.ordinary === 'string') vars.responseOrigin = vars.ordinary;
  return vars;
}

/** Checks an origin map: names known, values `scheme://host[:port]` or null. */
export function checkOrigins(origins) {
  if (!isObject(origins)) throw new GuardVectorError('targets', 'must be an object of names to origins or null');
  const known = [...REQUIRED_ORIGINS, ...Object.keys(OPTIONAL_ORIGINS)];
  for (const [name, o] of Object.entries(origins)) {
    if (!known.includes(name)) {
      throw new GuardVectorError(`targets/${name}`, `unknown origin name (the names are ${known.join(', ')})`);
    }
    if (o === null || o === undefined) continue;
    if (typeof o !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@ ]+$/.test(o)) {
      throw new GuardVectorError(`targets/${name}`, `${JSON.stringify(o)} is not an origin: it must be scheme://host[:port], no path or slash`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// URLs and chains

/** The stand-in's redirect URL: `<origin>/hop?code=<code>&to=<encodeURIComponent(to)>`. */
export function hop(origin, code, to) {
  return `${origin}/hop?code=${code}&to=${encodeURIComponent(to)}`;
}

/** A chain's URLs: position 0 is the URL the page action loads, then each nested hop URL, then `to`. */
export function chainUrls(hops, to) {
  const urls = [to];
  for (let i = hops.length - 1; i >= 0; i--) urls.push(hop(hops[i].origin, hops[i].code, urls[urls.length - 1]));
  return urls.reverse();
}

function urlRefUrls(ref) {
  if (typeof ref === 'string') return [ref];
  if (!isObject(ref)) return [];
  const urls = chainUrls(ref.hops || [], ref.to);
  if (Number.isInteger(ref.index)) return ref.index < urls.length ? [urls[ref.index]] : [];
  return urls;
}

function norm(url) {
  return originOf(url) === url ? `${url}/` : url;
}

function sameUrl(a, b) {
  return a === b || norm(a) === norm(b);
}

function preUrlOf(ref) {
  if (typeof ref === 'string') return ref;
  const urls = chainUrls(ref.hops || [], ref.to);
  return urls[Number.isInteger(ref.index) ? ref.index : 0];
}

function loadedUrlOf(ref) {
  if (typeof ref === 'string') return ref;
  if (Number.isInteger(ref.index)) return chainUrls(ref.hops || [], ref.to)[ref.index];
  return ref.to;
}

function servedMatches(logged, want) {
  if (sameUrl(logged, want)) return true;
  if (want.includes('?')) return false;
  const q = logged.indexOf('?');
  return q >= 0 && sameUrl(logged.slice(0, q), want);
}

function parseLog(entry) {
  const url = entry.url;
  const origin = originOf(url) ?? '';
  let rest = url.slice(origin.length);
  rest = rest.split('#')[0];
  const q = rest.indexOf('?');
  const path = q >= 0 ? rest.slice(0, q) : rest;
  const query = q >= 0 ? rest.slice(q + 1) : '';
  const params = new URLSearchParams(query);
  return { url, origin, path: path === '' ? '/' : path, param: (n) => params.get(n) ?? undefined, raw: entry };
}

function isBeaconFrom(e, origin) {
  if (e.path !== '/beacon') return false;
  const o = e.param('origin');
  return o !== undefined ? o === origin : e.origin === origin;
}

// ---------------------------------------------------------------------------------------------
// The stand-in protocol's JavaScript

/** The `{beacon}` source: a beacon tagged `tag` to `log`, from the page's origin. */
export function beacon(log, tag) {
  return `(function () { try { var u = ${lit(log)} + '/beacon?tag=' + encodeURIComponent(${lit(tag)}) + '&origin=' + encodeURIComponent(location.origin) + '&href=' + encodeURIComponent(location.href); var sent = false; try { sent = navigator.sendBeacon(u, ''); } catch (e) { sent = false; } if (!sent) { fetch(u, { method: 'POST', mode: 'no-cors', keepalive: true }).catch(function () { return null; }); } } catch (e) { return null; } })();`;
}

/** The `{probe}` source: a beacon with the page's canary marker, the `probeBinding` call and the console line; its value is the marker or null. */
export function probe(log, tag) {
  return `(function () { var m = null; try { var el = document.querySelector('[data-canary]'); m = el ? el.getAttribute('data-canary') : null; } catch (e) { m = null; } try { var u = ${lit(log)} + '/beacon?tag=' + encodeURIComponent(${lit(tag)}) + '&origin=' + encodeURIComponent(location.origin) + '&href=' + encodeURIComponent(location.href) + '&probe=1&canary=' + encodeURIComponent(m === null ? '' : m); var sent = false; try { sent = navigator.sendBeacon(u, ''); } catch (e) { sent = false; } if (!sent) { fetch(u, { method: 'POST', mode: 'no-cors', keepalive: true }).catch(function () { return null; }); } } catch (e) { m = m; } try { var h = btoa(location.href); try { if (typeof probeBinding === 'function') { probeBinding(h); } } catch (e) { h = h; } console.log('probe:' + h); } catch (e) { m = m; } return m; })()`;
}

/** The pre-action heartbeat URL for a navigation to `to`. */
export function preUrl(log, tag, to) {
  return `${log}/live?tag=${encodeURIComponent(tag)}&step=pre&to=${encodeURIComponent(to)}`;
}

const ACTS = {
  href: 'location.href = to;',
  replace: 'location.replace(to);',
  open: "window.open(to, '_blank');",
  form: "var f = document.createElement('form'); f.method = 'get'; var p = new URL(to); f.action = p.origin + p.pathname; p.searchParams.forEach(function (v, k) { var i = document.createElement('input'); i.type = 'hidden'; i.name = k; i.value = v; f.appendChild(i); }); (document.body || document.documentElement).appendChild(f); f.submit();",
  post: "var f = document.createElement('form'); f.method = 'post'; f.action = to; var i = document.createElement('input'); i.type = 'hidden'; i.name = 'guard'; i.value = tag; f.appendChild(i); (document.body || document.documentElement).appendChild(f); f.submit();",
};

/** The source of a page action that navigates the page itself (href, replace, form, post, open): the pre-action heartbeat, then the action 50 ms later. */
export function pageAction(action, url, log, tag) {
  const act = ACTS[action];
  if (!act) return undefined;
  return `(function () { var to = ${lit(url)}; var tag = ${lit(tag)}; try { fetch(${lit(preUrl(log, tag, url))}, { mode: 'no-cors', keepalive: true }).catch(function () { return null; }); } catch (e) { tag = tag; } setTimeout(function () { ${act} }, 50); return true; })()`;
}

/** The source that adds an iframe at `url`. */
export function iframe(url) {
  return `(function () { var f = document.createElement('iframe'); f.src = ${lit(url)}; (document.body || document.documentElement).appendChild(f); return true; })()`;
}

/** The source of a `fetch`, `xhr` or `image` load: a promise of the body (`width N` for an image; `<status> <body>` with `status`). */
export function loader(action, url, status, credentials) {
  const u = lit(url);
  const s = status ? 'true' : 'false';
  if (action === 'fetch') {
    return `fetch(${u}, { credentials: ${lit(credentials || 'same-origin')} }).then(function (r) { return r.text().then(function (t) { return ${s} ? r.status + ' ' + t : t; }); })`;
  }
  if (action === 'xhr') {
    return `new Promise(function (resolve, reject) { var x = new XMLHttpRequest(); x.open('GET', ${u}); x.withCredentials = ${credentials === 'include' ? 'true' : 'false'}; x.onload = function () { resolve(${s} ? x.status + ' ' + x.responseText : x.responseText); }; x.onerror = function () { reject(new Error('xhr failed: ' + ${u})); }; x.send(); })`;
  }
  if (action === 'image') {
    return `new Promise(function (resolve, reject) { var i = new Image(); i.onload = function () { var b = 'width ' + i.naturalWidth; resolve(${s} ? '200 ' + b : b); }; i.onerror = function () { reject(new Error('image failed: ' + ${u})); }; i.src = ${u}; })`;
  }
  return undefined;
}

/** The canary: planted outside the guard, read back outside the guard (cookie, localStorage, IndexedDB `canary`/`canary`). */
export const canary = {
  /** The source that plants `value` under `name` (the row's `{cookie}`). */
  plant(value, name = 'canary') {
    return `(function () { var name = ${lit(name)}; var value = ${lit(value)}; try { document.cookie = name + '=' + value + '; path=/'; } catch (e) { name = name; } localStorage.setItem(name, value); return new Promise(function (resolve, reject) { var req = indexedDB.open("canary", 1); req.onupgradeneeded = function () { req.result.createObjectStore("canary"); }; req.onerror = function () { reject(new Error('indexedDB.open failed')); }; req.onsuccess = function () { var db = req.result; var tx = db.transaction("canary", 'readwrite'); tx.objectStore("canary").put(value, name); tx.oncomplete = function () { db.close(); resolve(true); }; tx.onerror = function () { db.close(); reject(new Error('indexedDB write failed')); }; }; }); })()`;
  },
  /** The source that reads it: a promise of `{ cookie, storage, indexedDB }` (`''` when gone). */
  read(name = 'canary') {
    return `(function () { var name = ${lit(name)}; var out = { cookie: '', storage: '', indexedDB: '' }; document.cookie.split('; ').forEach(function (c) { var i = c.indexOf('='); if (i > 0 && c.slice(0, i) === name) { out.cookie = c.slice(i + 1); } }); var s = localStorage.getItem(name); out.storage = s === null ? '' : s; return new Promise(function (resolve) { var req = indexedDB.open("canary"); req.onupgradeneeded = function () { req.transaction.abort(); }; req.onerror = function () { resolve(out); }; req.onsuccess = function () { var db = req.result; try { var g = db.transaction("canary", 'readonly').objectStore("canary").get(name); g.onsuccess = function () { out.indexedDB = g.result === undefined ? '' : String(g.result); db.close(); resolve(out); }; g.onerror = function () { db.close(); resolve(out); }; } catch (e) { db.close(); resolve(out); } }; }); })()`;
  },
  /** Whether a read shows `value` untouched in every store it was planted in. */
  untouched(value, read) {
    return isObject(read) && read.cookie === value && read.storage === value && read.indexedDB === value;
  },
};

// ---------------------------------------------------------------------------------------------
// Steps

/** A step's kind: the one of `cdp`, `page`, `answer`, `children`, `settle`, `wait`, `guess`, `text` it carries. */
export function stepKind(step) {
  const kinds = STEP_KINDS.filter((k) => has(step, k));
  return kinds.length === 1 ? kinds[0] : undefined;
}

const isRefusable = (step) => has(step, 'cdp') && step.refusable === true;
const refusalNameOf = (step, index) => (typeof step.as === 'string' ? step.as : `refused.${index}`);
const runsOn = (step, leg) => step.on === undefined || step.on === leg;

/** The flat steps of a vector (§3.2): setup then trigger, each `children` step followed by its nested steps, with index and the legs each runs on. */
function flatten(vector) {
  const out = [];
  let index = 0;
  const go = (steps, phase, legs) => {
    for (const step of steps || []) {
      const own = { control: legs.control && runsOn(step, 'control'), guarded: legs.guarded && runsOn(step, 'guarded') };
      out.push({ index: index++, phase, step, legs: own });
      if (Array.isArray(step.children)) go(step.children, phase, own);
    }
  };
  go(vector.setup, 'setup', { control: true, guarded: true });
  go(vector.trigger, 'trigger', { control: true, guarded: true });
  return out;
}

/** The vector's refusal names (§3.2): each refusable step's `as`, or `refused.<i>`. */
export function refusals(vector) {
  return flatten(vector).filter((f) => isRefusable(f.step)).map((f) => refusalNameOf(f.step, f.index));
}

/**
 * A leg's steps, placeholders expanded: each with `index` and `phase`, `refusal.name` on each
 * refusable step, `background` set on each `tab` step, and a `children` step's nested steps
 * (those that run on the leg) expanded the same way.
 * @param {object} vector @param {'control'|'guarded'} side @param {Vars} vars
 */
export function steps(vector, side, vars) {
  let index = 0;
  const build = (list, phase) => {
    const out = [];
    for (const step of list || []) {
      const i = index++;
      const nested = Array.isArray(step.children) ? build(step.children, phase) : [];
      if (!runsOn(step, side)) continue;
      const { children: _c, ...rest } = step;
      const e = expand(rest, vars);
      if (Array.isArray(step.children)) e.children = nested;
      if (e.page === 'tab' && e.background === undefined) e.background = true;
      if (isRefusable(step)) e.refusal = { ...(e.refusal || {}), name: refusalNameOf(step, i) };
      Object.defineProperty(e, 'index', { value: i, enumerable: false });
      Object.defineProperty(e, 'phase', { value: phase, enumerable: false });
      out.push(e);
    }
    return out;
  };
  const setup = build(vector.setup, 'setup');
  return [...setup, ...build(vector.trigger, 'trigger')];
}

// ---------------------------------------------------------------------------------------------
// Predicates (§4.4)

const OPERATORS = ['$contains', '$regex', '$some', '$every', '$encoded'];
const regexCache = new Map();

function compile(pattern) {
  if (!regexCache.has(pattern)) {
    if (regexCache.size > 512) regexCache.clear();
    try {
      regexCache.set(pattern, { re: new RegExp(pattern) });
    } catch (e) {
      regexCache.set(pattern, { error: `the regular expression ${JSON.stringify(pattern)} does not compile: ${e.message}` });
    }
  }
  return regexCache.get(pattern);
}

/** Why a predicate is invalid (arrays, unknown operators, bad operands, regexes that don't compile), or undefined. */
export function predicateError(p, at = '') {
  const where = at === '' ? 'the top' : at;
  if (Array.isArray(p)) return `predicate at ${where}: arrays are not predicates (use $some or $every)`;
  if (!isObject(p)) return undefined;
  for (const [key, value] of Object.entries(p)) {
    const path = `${at}/${key}`;
    if (key === '$contains' || key === '$regex') {
      if (typeof value !== 'string') return `predicate at ${path}: ${key} takes a string`;
      if (key === '$regex' && compile(value).error) return `predicate at ${path}: ${compile(value).error}`;
    } else if (key === '$some' || key === '$every') {
      const e = predicateError(value, path);
      if (e) return e;
    } else if (key === '$encoded') {
      if (!isObject(value)) return `predicate at ${path}: $encoded takes {"value", "prefix"?}`;
      if (typeof value.value !== 'string') return `predicate at ${path}: $encoded needs a string value`;
      if (has(value, 'prefix') && typeof value.prefix !== 'string') return `predicate at ${path}: $encoded's prefix is a string`;
      const extra = Object.keys(value).find((k) => k !== 'value' && k !== 'prefix');
      if (extra !== undefined) return `predicate at ${path}: $encoded has an unknown member ${JSON.stringify(extra)}`;
    } else if (key.startsWith('$')) {
      return `predicate at ${path}: unknown operator ${key} (the operators are ${OPERATORS.join(', ')})`;
    } else {
      const e = predicateError(value, path);
      if (e) return e;
    }
  }
  return undefined;
}

/**
 * Whether `actual` matches predicate `p` (§4.4). Throws a GuardVectorError for an invalid predicate.
 * @param {any} p @param {any} actual
 */
export function matches(p, actual) {
  const e = predicateError(p);
  if (e) throw new GuardVectorError('predicate', e);
  return evalPredicate(p, actual);
}

function textOf(v) {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function evalPredicate(p, actual) {
  if (actual === undefined) return false;
  if (isObject(p)) {
    const keys = Object.keys(p);
    if ((keys.length === 0 || keys.some((k) => !k.startsWith('$'))) && !isObject(actual)) return false;
    return keys.every((key) => {
      const q = p[key];
      switch (key) {
        case '$contains':
          return typeof q === 'string' && textOf(actual).includes(q);
        case '$regex': {
          const c = typeof q === 'string' ? compile(q) : { error: 'x' };
          return !c.error && c.re.test(textOf(actual));
        }
        case '$some':
          return Array.isArray(actual) && actual.some((x) => evalPredicate(q, x));
        case '$every':
          return Array.isArray(actual) && actual.length > 0 && actual.every((x) => evalPredicate(q, x));
        case '$encoded':
          return encodedMatches(q, actual);
        default:
          return evalPredicate(q, isObject(actual) && has(actual, key) ? actual[key] : undefined);
      }
    });
  }
  if (Array.isArray(p)) return false;
  if (typeof p === 'number') return typeof actual === 'number' && p === actual;
  return p === actual;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 (standard or URL-safe alphabet, padding optional) to bytes, or undefined. */
export function base64Decode(text) {
  const body = text.replace(/=+$/, '');
  if (text.length - body.length > 2) return undefined;
  if (body.length % 4 === 1) return undefined;
  const bytes = [];
  let acc = 0;
  let bits = 0;
  for (const ch of body) {
    const v = B64.indexOf(ch === '-' ? '+' : ch === '_' ? '/' : ch);
    if (v < 0) return undefined;
    acc = ((acc << 6) | v) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
  }
  return new Uint8Array(bytes);
}

function encodedMatches(spec, actual) {
  if (!isObject(spec) || typeof spec.value !== 'string' || typeof actual !== 'string') return false;
  const prefix = typeof spec.prefix === 'string' ? spec.prefix : '';
  if (!actual.startsWith(prefix)) return false;
  const bytes = base64Decode(actual.slice(prefix.length));
  if (!bytes) return false;
  return new TextDecoder().decode(bytes).includes(spec.value);
}

// ---------------------------------------------------------------------------------------------
// Checks

/** A check's kind: the one key of §4.3's vocabulary it carries. */
export function checkKind(check) {
  if (!isObject(check)) return undefined;
  const kinds = CHECK_KINDS.filter((k) => has(check, k));
  if (kinds.length === 1) return kinds[0];
  // `cookie` is also a member of `state`/`filtered`, never beside them at top level
  return undefined;
}

function operands(check) {
  const k = checkKind(check);
  if (k === 'all' || k === 'any') return Array.isArray(check[k]) ? check[k] : [];
  if (k === 'not') return [check.not];
  return [];
}

function isUnguarded(check) {
  return check.observer === 'unguarded';
}

function leafRequirement(check, vars, observer) {
  const name = nullIn(check, vars);
  if (name !== undefined) return `not-applicable:no-${name}-origin`;
  return isUnguarded(check) && !observer ? SKIP_OBSERVER : undefined;
}

function preferOrigin(reasons) {
  return reasons.find((r) => r.startsWith('not-applicable:')) ?? reasons[0];
}

/** What a check needs that the run lacks: a skip reason, or undefined. */
export function requirement(check, vars, observer) {
  const k = checkKind(check);
  if (k === 'all' || k === 'not') {
    for (const c of operands(check)) {
      const r = requirement(c, vars, observer);
      if (r !== undefined) return r;
    }
    return undefined;
  }
  if (k === 'any') {
    const reasons = [];
    for (const c of operands(check)) {
      const r = requirement(c, vars, observer);
      if (r === undefined) return undefined;
      reasons.push(r);
    }
    return preferOrigin(reasons);
  }
  return leafRequirement(check, vars, observer);
}

/** The observer read a check needs (title, expression, errors, history, state), or undefined. */
export function readFor(check) {
  const k = checkKind(check);
  const s = (v) => (typeof v === 'string' ? v : 'page');
  switch (k) {
    case 'title':
      return { read: 'title', session: s(check.session) };
    case 'expression':
      return { read: 'expression', expression: check.expression, session: s(check.session) };
    case 'blocked':
      return isUnguarded(check) ? { read: 'errors', session: s(check.blocked.session), frame: check.blocked.frame === true } : undefined;
    case 'frameBlocked':
      return { read: 'errors', session: s(check.frameBlocked.session), frame: true };
    case 'history':
      return { read: 'history', session: s(check.history.session) };
    case 'state':
      return { read: 'state', origin: check.state.origin, cookie: check.state.cookie, storage: check.state.storage === true };
    default:
      return undefined;
  }
}

function readDebug(r) {
  const q = (v) => JSON.stringify(v);
  switch (r.read) {
    case 'title':
      return `Title { session: ${q(r.session)} }`;
    case 'expression':
      return `Expression { expression: ${q(r.expression)}, session: ${q(r.session)} }`;
    case 'errors':
      return `Errors { session: ${q(r.session)}, frame: ${r.frame} }`;
    case 'history':
      return `History { session: ${q(r.session)} }`;
    default:
      return `State { origin: ${q(r.origin)}, cookie: ${q(r.cookie)}, storage: ${r.storage} }`;
  }
}

/** The observer reads a leg's checks need, expanded with the run's variables (the runner makes them after the leg). */
export function legReads(vector, side, vars) {
  const out = [];
  const add = (check) => {
    const k = checkKind(check);
    if (k === 'all' || k === 'any' || k === 'not') {
      for (const c of operands(check)) {
        if (k === 'any' && nullIn(c, vars) !== undefined) continue;
        add(c);
      }
      return;
    }
    if (nullIn(check, vars) !== undefined) return;
    const r = readFor(check);
    if (r && !out.some((x) => jsonEqual(x, r))) out.push(r);
  };
  for (const [, check, when] of legChecks(vector, side)) {
    add(expand(check, vars));
    if (when) add(expand(when, vars));
  }
  if (side === 'guarded' && vector.liveCheck) add(expand(vector.liveCheck, vars));
  return out;
}

function expectedOf(vector, side) {
  return side === 'control' ? vector.control && vector.control.expected : vector.expected;
}

function legChecks(vector, side) {
  const expected = expectedOf(vector, side);
  if (!isObject(expected)) return [];
  const out = [];
  for (const name of Object.keys(expected)) {
    const o = vector.observe && vector.observe[name];
    if (!o) continue;
    out.push([name, o.check, side === 'guarded' ? o.eitherWhen : undefined]);
  }
  return out;
}

// The judge's view of one leg run.
class Ctx {
  constructor(vector, side, run, observer, options) {
    this.vector = vector;
    this.side = side;
    this.vars = unwrapVars(run.vars);
    this.record = normalizeRecord(run.record);
    this.observer = observer;
    this.refusalText = (options && options.refusal) || CATALOG_REFUSAL;
    const tag = varValue(this.vars, 'tag') ?? '';
    this.log = this.record.log.filter((e) => tag === '' || e.url.includes(tag)).map(parseLog);
    this.errors = [];
    this.notes = [];
  }

  error(e) {
    this.errors.push(e);
  }

  note(n) {
    if (!this.notes.includes(n)) this.notes.push(n);
  }

  beacon(origin) {
    return this.log.some((e) => isBeaconFrom(e, origin));
  }

  logged(url) {
    return this.log.some((e) => sameUrl(e.url, url));
  }

  pre(url) {
    if (url === undefined) return false;
    return this.log.some((e) => e.path === '/live' && e.param('step') === 'pre' && e.param('to') !== undefined && sameUrl(e.param('to'), url));
  }

  heartbeat(url) {
    const origin = originOf(url);
    if (origin === undefined) return undefined;
    const n = parseLog({ url }).param('n');
    const e = this.log.find((x) => x.origin === origin && x.path === '/live' && x.param('step') === undefined && (n === undefined || x.param('n') === n));
    return e ? e.origin : undefined;
  }

  outcome(name) {
    const o = this.record.outcomes[name];
    if (o && o.outcome === 'value') return o.value;
    if (o && o.outcome === 'failed') this.note(`${name} failed: ${o.value}`);
    else if (o && o.outcome === 'pending') this.note(`${name} did not complete`);
    else this.note(`no outcome named ${name}`);
    return undefined;
  }

  read(check) {
    const r = readFor(check);
    if (!r) return undefined;
    const found = this.record.reads.find(([x]) => jsonEqual(normRead(x), r));
    if (found && found[1] && found[1].outcome === 'value') return found[1].value;
    if (found && found[1] && found[1].outcome === 'failed') {
      this.note(`the observer's read ${readDebug(r)} failed: ${found[1].value}`);
    } else {
      this.note(`the observer's read ${readDebug(r)} is missing`);
    }
    return undefined;
  }

  legSteps() {
    return flatten(this.vector).filter((f) => f.legs[this.side]);
  }

  refusalNames() {
    return this.legSteps().filter((f) => isRefusable(f.step)).map((f) => refusalNameOf(f.step, f.index));
  }

  /** Names of `all`: refusable steps' refusal names, or every `as` of the leg's `cdp` steps. */
  names(names, refusable) {
    if (Array.isArray(names)) return names;
    if (refusable) return this.refusalNames();
    return this.legSteps().filter((f) => has(f.step, 'cdp') && typeof f.step.as === 'string').map((f) => f.step.as);
  }

  /** The `refusal.match` of the leg's `cdp` step whose `as` is `name`, placeholders expanded. */
  stepRefusal(name) {
    const f = this.legSteps().find((x) => has(x.step, 'cdp') && x.step.as === name && isObject(x.step.refusal));
    return f && typeof f.step.refusal.match === 'string' ? expand(f.step.refusal.match, this.vars) : undefined;
  }

  /** Whether the leg's step whose `as` is `name` is a `guess`. */
  isGuess(name) {
    return this.legSteps().some((x) => has(x.step, 'guess') && x.step.as === name);
  }

  /**
   * How one answer reads (issue 29, reading 2): a protocol error (`ok: false` with a numeric
   * `error.code`) is 'refused' when its message or code matches `pattern`, else (no pattern)
   * when its message contains the catalog's refusal text; any other protocol error and any
   * `ok: true` answer is 'reached'; anything else (a transport failure) 'unanswered'.
   */
  answerReads(answer, pattern) {
    if (!isObject(answer) || answer.ok === true) return isObject(answer) ? 'reached' : 'unanswered';
    if (answer.ok !== false) return 'unanswered';
    const code = isObject(answer.error) ? answer.error.code : undefined;
    if (typeof code !== 'number') return 'unanswered';
    const message = typeof answer.error.message === 'string' ? answer.error.message : '';
    let refused;
    if (pattern !== undefined) {
      const c = compile(pattern);
      if (c.error) {
        this.error(`refused: ${c.error}`);
        refused = false;
      } else {
        refused = c.re.test(message) || c.re.test(String(code));
      }
    } else {
      refused = this.refusalText !== '' && message.includes(this.refusalText);
    }
    return refused ? 'refused' : 'reached';
  }

  /**
   * How the call named `name` reads for `refused` and `reached` (issue 29, reading 2): by its
   * outcome, refusable or not, with `pattern` (the check's `refusal.match`), else the step's,
   * else the catalog's refusal; a `guess` by its attempts (refused when it made one and every
   * one was refused, reached when one reached the browser); a name with no outcome
   * (`refused.<i>`) from the recorded refusal.
   */
  callReads(name, pattern) {
    const recorded = () => {
      if (pattern === undefined) return this.record.refused.includes(name);
      const e = this.record.refusalErrors[name];
      if (typeof e !== 'string') return false;
      const c = compile(pattern);
      if (c.error) {
        this.error(`refused: ${c.error}`);
        return false;
      }
      return c.re.test(e);
    };
    const o = this.record.outcomes[name];
    if (!o || o.outcome !== 'value') {
      if (o) {
        this.outcome(name);
        return 'unanswered';
      }
      if (recorded()) return 'refused';
      this.note(`no outcome named ${name}`);
      return 'unanswered';
    }
    if (pattern === undefined && this.record.refused.includes(name)) return 'refused';
    const p = pattern ?? this.stepRefusal(name);
    if (this.isGuess(name)) {
      const attempts = isObject(o.value) && Array.isArray(o.value.result) ? o.value.result : [];
      const reads = attempts.map((a) => this.answerReads(a, p));
      if (reads.includes('reached')) return 'reached';
      if (reads.length > 0 && reads.every((r) => r === 'refused')) return 'refused';
      return 'unanswered';
    }
    return this.answerReads(o.value, p);
  }

  blockUrls(spec) {
    const urls = [];
    if (spec && spec.url !== undefined) urls.push(...urlRefUrls(spec.url));
    if (spec && Array.isArray(spec.anyOf)) for (const r of spec.anyOf) urls.push(...urlRefUrls(r));
    if (urls.length === 0) this.error('a block spec needs url or anyOf (with a URL)');
    return urls;
  }

  sessions() {
    const out = this.record.sessions.map((s) => ({ role: s.role, sessionId: s.sessionId, targetId: s.targetId, url: s.url }));
    for (const e of this.record.events) {
      if (e.method !== 'Target.attachedToTarget') continue;
      const p = e.params || {};
      if (typeof p.sessionId !== 'string' || !isObject(p.targetInfo)) continue;
      if (out.some((s) => s.sessionId === p.sessionId)) continue;
      out.push({ role: 'child', sessionId: p.sessionId, targetId: typeof p.targetInfo.targetId === 'string' ? p.targetInfo.targetId : '', url: typeof p.targetInfo.url === 'string' ? p.targetInfo.url : '' });
    }
    return out;
  }

  sessionIds(role, frame) {
    if (role === undefined) return undefined;
    return this.sessions().filter((s) => s.role === role || (frame && s.role === 'child')).map((s) => s.sessionId);
  }

  attached(place, role) {
    const isOrigin = originOf(place) === place;
    const m = (url) => (isOrigin ? originOf(url) === place : typeof url === 'string' && url !== '' && url.startsWith(place));
    return this.sessions().some((s) => {
      if (role !== undefined ? s.role !== role : s.role === 'page') return false;
      if (m(s.url)) return true;
      return this.record.events.some((e) => {
        const p = e.params || {};
        const fromTarget = e.method.startsWith('Target.') && isObject(p.targetInfo) && p.targetInfo.targetId === s.targetId && typeof p.targetInfo.url === 'string' && m(p.targetInfo.url);
        const fromFrame = e.method === 'Page.frameNavigated' && e.sessionId === s.sessionId && isObject(p.frame) && p.frame.parentId === undefined && typeof p.frame.url === 'string' && m(p.frame.url);
        return fromTarget || fromFrame;
      });
    });
  }

  clientBlocked(spec, urls) {
    const frame = spec.frame === true;
    const ids = this.sessionIds(spec.session, frame);
    const inSession = (sid) => ids === undefined || (typeof sid === 'string' && ids.includes(sid));
    const listed = (u) => urls.some((x) => sameUrl(x, u));
    const events = this.record.events;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (!inSession(e.sessionId)) continue;
      const p = e.params || {};
      if (e.method === 'Page.frameNavigated') {
        const main = !isObject(p.frame) || p.frame.parentId === undefined;
        if ((frame || main) && isObject(p.frame) && typeof p.frame.unreachableUrl === 'string' && listed(p.frame.unreachableUrl)) return true;
      } else if (e.method === 'Network.loadingFailed') {
        if (p.requestId === undefined) continue;
        for (let j = i - 1; j >= 0; j--) {
          const s = events[j];
          if (s.method === 'Network.requestWillBeSent' && s.sessionId === e.sessionId && jsonEqual((s.params || {}).requestId, p.requestId)) {
            const u = s.params.request && s.params.request.url;
            if (typeof u === 'string' && listed(u)) return true;
            break;
          }
        }
      }
    }
    return (this.record.navigationErrors || []).some((n) => (spec.session === undefined || n.session === spec.session || (frame && n.session === 'child')) && listed(n.url));
  }

  unguardedBlocked(check, urls, oopif) {
    const r = readFor(check);
    const frame = r && r.read === 'errors' ? r.frame : false;
    const frames = this.read(check);
    if (!Array.isArray(frames)) return false;
    const attached = new Set(this.sessions().map((s) => s.targetId));
    return frames.some((f) => {
      if (!isObject(f)) return false;
      const unreachable = f.unreachableUrl;
      const isOopif = f.oopif === true;
      const sub = f.parentId !== undefined && f.parentId !== null;
      if (!(typeof unreachable === 'string' && urls.some((x) => sameUrl(x, unreachable)))) return false;
      if (oopif) {
        const id = typeof f.targetId === 'string' ? f.targetId : typeof f.frameId === 'string' ? f.frameId : '';
        return isOopif && !attached.has(id);
      }
      return frame || (!isOopif && !sub);
    });
  }

  // The evaluator: a node's truth (true, false or a skip reason) and how it holds for liveness.
  node(check) {
    const node = { truth: false, proves: false, pre: [], block: [], state: false, call: false, kinds: [] };
    const k = checkKind(check);
    if (k === undefined) {
      this.error(`not a check: ${JSON.stringify(check)} (it needs exactly one key of ${CHECK_KINDS.join(', ')})`);
      return node;
    }
    const take = (n) => {
      node.proves = node.proves || n.proves;
      node.pre.push(...n.pre);
      node.block.push(...n.block);
      node.state = node.state || n.state;
      node.call = node.call || n.call;
      node.kinds.push(...n.kinds);
    };
    if (k === 'all') {
      let allTrue = true;
      for (const c of operands(check)) {
        const n = this.node(c);
        if (typeof n.truth === 'string') {
          node.truth = n.truth;
          return node;
        }
        if (n.truth === false) allTrue = false;
        else take(n);
      }
      node.truth = allTrue;
      if (allTrue) {
        const paired = node.pre.some((p) => node.block.includes(p));
        // issue 29, reading 3: an unguarded state read with a refused or filtered call
        const canary = node.state && node.call;
        node.proves = node.proves || paired || canary;
        if (!node.proves && node.pre.length > 0 && node.block.length > 0) node.kinds.push('a pre heartbeat and a block for different URLs');
      } else {
        node.proves = false;
      }
      return node;
    }
    if (k === 'any') {
      const reasons = [];
      let available = false;
      for (const c of operands(check)) {
        const r = requirement(c, this.vars, this.observer);
        if (r !== undefined) {
          reasons.push(r);
          continue;
        }
        available = true;
        const n = this.node(c);
        if (n.truth === true) {
          node.truth = true;
          take(n);
        }
      }
      if (!available) node.truth = preferOrigin(reasons) ?? '';
      return node;
    }
    if (k === 'not') {
      const n = this.node(check.not);
      node.truth = n.truth === true ? false : n.truth === false ? true : n.truth;
      node.kinds.push('not');
      return node;
    }
    const r = leafRequirement(check, this.vars, this.observer);
    if (r !== undefined) {
      node.truth = r;
      return node;
    }
    const [holds, proof] = this.leaf(check, k);
    node.truth = holds;
    if (holds) {
      const target = varValue(this.vars, 'target');
      const onTarget = (u) => target !== undefined && originOf(u) === target;
      switch (proof.kind) {
        case 'logged':
          if (proof.urls.some(onTarget)) node.proves = true;
          else node.kinds.push("a request logged off the target's origin");
          break;
        case 'heartbeat':
          if (proof.origin === target) node.proves = true;
          else node.kinds.push("a heartbeat off the target's origin");
          break;
        case 'pre':
          node.pre = proof.urls;
          node.kinds.push('pre');
          break;
        case 'block':
          node.block = proof.urls;
          node.kinds.push(k);
          break;
        case 'refusal':
          node.proves = true;
          break;
        case 'state':
          node.state = true;
          node.kinds.push('state');
          break;
        case 'call':
          node.call = true;
          node.kinds.push(k);
          break;
        default:
          node.kinds.push(k);
      }
    }
    return node;
  }

  leaf(check, k) {
    const none = { kind: 'none' };
    const validate = (p, what) => {
      const e = predicateError(p);
      if (e) this.error(`${what}: ${e}`);
      return e === undefined;
    };
    switch (k) {
      case 'beacon':
        return [this.beacon(check.beacon), none];
      case 'served': {
        if (check.origin === undefined && typeof check.served === 'string' && check.served.startsWith('/')) {
          const matched = this.log.filter((e) => servedMatches(e.url.slice(e.origin.length), check.served)).map((e) => e.url);
          return [matched.length > 0, { kind: 'logged', urls: matched }];
        }
        const url = typeof check.origin === 'string' && check.served.startsWith('/') ? `${check.origin}${check.served}` : check.served;
        return [this.log.some((e) => servedMatches(e.url, url)), { kind: 'logged', urls: [url] }];
      }
      case 'header': {
        const name = String(check.header).toLowerCase();
        const holds = this.log.some((e) => sameUrl(e.url, check.on) && Object.entries(e.raw.headers || {}).some(([key, v]) => key.toLowerCase() === name && (check.value === undefined || v === check.value || v.split(',').some((p) => p.trim() === check.value))));
        return [holds, { kind: 'logged', urls: [check.on] }];
      }
      case 'hops': {
        // issue 29, reading 1: each exact nested redirect URL; the destination is judged by its own observation
        const urls = chainUrls(check.hops || [], check.to).slice(0, -1);
        return [urls.length > 0 && urls.every((u) => this.logged(u)), { kind: 'logged', urls }];
      }
      case 'pre': {
        const url = preUrlOf(check.pre);
        return [this.pre(url), { kind: 'pre', urls: url === undefined ? [] : [url] }];
      }
      case 'loaded': {
        const url = loadedUrlOf(check.loaded);
        if (url === undefined) {
          this.error('loaded: the chain has no URL at that index');
          return [false, none];
        }
        if (this.logged(url)) return [true, { kind: 'logged', urls: [url] }];
        const origin = this.heartbeat(url);
        return origin !== undefined ? [true, { kind: 'heartbeat', origin }] : [false, none];
      }
      case 'event': {
        if (check.where !== undefined) {
          const e = predicateError(check.where);
          if (e) {
            this.error(`event ${check.event}: ${e}`);
            return [false, none];
          }
        }
        const holds = this.record.events.some((e) => e.method === check.event && (check.where === undefined || evalPredicate(check.where, eventJson(e))));
        return [holds, none];
      }
      case 'result': {
        if (!validate(check.equals, `result ${check.result}`)) return [false, none];
        const v = this.outcome(check.result);
        if (v === undefined) return [false, none];
        return [evalPredicate(check.equals, outcomeAt(v, check.path)), none];
      }
      case 'cookie': {
        const v = this.outcome(check.from);
        return [v !== undefined && hasCookie(v, check.cookie, check.on), none];
      }
      case 'compare': {
        if (!Array.isArray(check.compare) || check.compare.length !== 2) {
          this.error('compare needs exactly two names');
          return [false, none];
        }
        const [a, b] = check.compare.map((n) => this.outcome(n));
        if (a === undefined || b === undefined) return [false, none];
        const x = atPath(a, check.path);
        const y = atPath(b, check.path);
        return [x !== undefined && jsonEqual(x, y), none];
      }
      case 'refused': {
        const names = this.names(check.refused, true);
        const pattern = isObject(check.refusal) && typeof check.refusal.match === 'string' ? check.refusal.match : undefined;
        const holds = names.length > 0 && names.every((n) => this.callReads(n, pattern) === 'refused');
        const matched = holds && names.every((n) => this.record.refused.includes(n));
        return [holds, matched ? { kind: 'refusal' } : { kind: 'call' }];
      }
      case 'reached': {
        const names = this.names(check.reached, false);
        return [names.length > 0 && names.every((n) => this.callReads(n, undefined) === 'reached'), none];
      }
      case 'registration': {
        if (check.registration !== 'any') {
          this.error(`registration takes "any", not ${JSON.stringify(check.registration)}`);
          return [false, none];
        }
        const holds = this.refusalNames().some((n) => this.record.refused.includes(n));
        return [holds, holds ? { kind: 'refusal' } : none];
      }
      case 'filtered': {
        const f = check.filtered || {};
        const names = this.names(f.from, false);
        const holds = names.length > 0 && names.every((n) => {
          const v = this.outcome(n);
          return v !== undefined && isObject(v) && v.ok === true && !hasCookie(v, f.cookie, f.on);
        });
        return [holds, { kind: 'call' }];
      }
      case 'attached':
        return [this.attached(check.attached, check.session), none];
      case 'delivered':
        return [this.record.events.some((e) => hasUrlWithPrefix(e.params, check.delivered)), none];
      case 'detached':
        return [this.record.detached.includes(check.detached), none];
      case 'executed':
        return [this.record.executed.includes(check.executed), none];
      case 'live':
        return [this.observer, none];
      case 'blocked': {
        const urls = this.blockUrls(check.blocked);
        const holds = isUnguarded(check) ? this.unguardedBlocked(check, urls, false) : this.clientBlocked(check.blocked || {}, urls);
        return [holds, { kind: 'block', urls }];
      }
      case 'frameBlocked': {
        const urls = this.blockUrls(check.frameBlocked);
        return [this.unguardedBlocked(check, urls, true), { kind: 'block', urls }];
      }
      case 'history': {
        const spec = check.history || {};
        const urls = this.blockUrls(spec);
        const refs = [...(spec.url !== undefined ? [spec.url] : []), ...(Array.isArray(spec.anyOf) ? spec.anyOf : [])];
        const pre = refs.some((r) => this.pre(preUrlOf(r)));
        const read = this.read(check);
        const history = Array.isArray(read) ? read.map((i) => (typeof i === 'string' ? i : isObject(i) && typeof i.url === 'string' ? i.url : undefined)).filter((x) => x !== undefined) : [];
        const holds = pre && urls.some((u) => history.some((h) => sameUrl(h, u)) && !this.logged(u));
        return [holds, { kind: 'block', urls }];
      }
      case 'title': {
        const t = this.read(check);
        return [typeof t === 'string' && t === check.title, none];
      }
      case 'expression': {
        if (!validate(check.equals, 'expression')) return [false, none];
        const v = this.read(check);
        return [v !== undefined && evalPredicate(check.equals, v), none];
      }
      case 'state': {
        const v = this.read(check);
        const holds = typeof v === 'string' ? v === check.state.value : v === null ? check.state.value === '' : false;
        return [holds, { kind: 'state' }];
      }
      default:
        return [false, none];
    }
  }
}

function normRead(r) {
  if (!isObject(r)) return r;
  const out = { read: r.read };
  for (const k of ['expression', 'session', 'frame', 'origin', 'cookie', 'storage']) if (has(r, k)) out[k] = r[k];
  return out;
}

function eventJson(e) {
  const out = { method: e.method, params: e.params === undefined ? {} : e.params };
  if (typeof e.sessionId === 'string') out.sessionId = e.sessionId;
  return out;
}

function outcomeAt(outcome, path) {
  if (typeof path === 'string' && path !== '') return atPath(outcome, path);
  if (isObject(outcome) && has(outcome, 'ok') && has(outcome, 'value')) return outcome.value;
  return outcome;
}

function atPath(value, path) {
  if (typeof path !== 'string' || path === '') return value;
  let v = value;
  for (const seg of path.split('.')) {
    if (isObject(v)) v = has(v, seg) ? v[seg] : undefined;
    else if (Array.isArray(v) && /^[0-9]+$/.test(seg)) v = v[Number(seg)];
    else return undefined;
    if (v === undefined) return undefined;
  }
  return v;
}

function domainMatches(domain, host) {
  const d = domain.toLowerCase();
  const h = host.toLowerCase();
  if (d.startsWith('.')) return h === d.slice(1) || h.endsWith(d);
  return h === d;
}

function hasCookie(value, name, on) {
  return anyNode(value, (v) => isObject(v) && v.name === name && typeof v.domain === 'string' && (on === undefined || (hostOf(on) !== undefined && domainMatches(v.domain, hostOf(on)))));
}

function hasUrlWithPrefix(value, prefix) {
  return anyNode(value, (v) => isObject(v) && ['url', 'documentURL'].some((k) => typeof v[k] === 'string' && v[k].startsWith(prefix)));
}

/** Fills a record's missing members with empty ones (a record from another runner may leave them out). */
export function normalizeRecord(record) {
  const r = isObject(record) ? record : {};
  return {
    tag: typeof r.tag === 'string' ? r.tag : '',
    log: Array.isArray(r.log) ? r.log : [],
    events: Array.isArray(r.events) ? r.events : [],
    outcomes: isObject(r.outcomes) ? r.outcomes : {},
    refused: Array.isArray(r.refused) ? r.refused : [],
    refusalErrors: isObject(r.refusalErrors) ? r.refusalErrors : {},
    sessions: Array.isArray(r.sessions) ? r.sessions : [],
    detached: Array.isArray(r.detached) ? r.detached : [],
    executed: Array.isArray(r.executed) ? r.executed : [],
    reads: Array.isArray(r.reads) ? r.reads : [],
    observer: r.observer === true,
    errors: Array.isArray(r.errors) ? r.errors : [],
    navigationErrors: Array.isArray(r.navigationErrors) ? r.navigationErrors : [],
    unsupported: Array.isArray(r.unsupported) ? r.unsupported : [],
  };
}

// ---------------------------------------------------------------------------------------------
// Verdicts

function matchesOutcome(want, observed) {
  return want === 'either' || want === observed;
}

/**
 * Judges one leg run on its expectation: every expected name must match; an observation whose
 * `dependsOn` names a recorded refusal is `null` (skipped); `"either"` only for
 * `designDependent` names; on the guarded leg an `eitherWhen` that holds makes it `"either"`.
 * @param {object} vector @param {'control'|'guarded'} side
 * @param {{ vars: Vars, record: LegRecord }} run @param {boolean} observer
 * @returns {{ status: Status, skip?: string, observations: Record<string, boolean|null>, errors: string[] }}
 */
export function judgeLeg(vector, side, run, observer, options) {
  const ctx = new Ctx(vector, side, run, observer, options);
  const verdict = { status: 'pass', skip: undefined, observations: {}, errors: [...ctx.record.errors] };
  const expected = expectedOf(vector, side);
  if (!isObject(expected)) {
    verdict.status = 'fail';
    verdict.errors.push("a runnable vector's expectation must be an object of names");
    return verdict;
  }
  const design = Array.isArray(vector.designDependent) ? vector.designDependent : [];
  let mismatchNotes = false;
  for (const name of Object.keys(expected)) {
    const want0 = expected[name];
    const obs = vector.observe && vector.observe[name];
    if (!obs) {
      verdict.errors.push(`${name} is expected but observe does not define it`);
      continue;
    }
    if (want0 === 'either' && !design.includes(name)) {
      verdict.errors.push(`${name} expects "either" but is not in designDependent`);
      continue;
    }
    const depends = Array.isArray(obs.dependsOn) ? obs.dependsOn : [];
    if (depends.some((d) => ctx.record.refused.includes(d))) {
      verdict.observations[name] = null;
      continue;
    }
    const truth = ctx.node(expand(obs.check, ctx.vars)).truth;
    if (typeof truth === 'string') return { status: 'skip', skip: truth, observations: {}, errors: [] };
    verdict.observations[name] = truth;
    let want = want0;
    if (side === 'guarded' && want !== 'either' && obs.eitherWhen !== undefined) {
      if (ctx.node(expand(obs.eitherWhen, ctx.vars)).truth === true) want = 'either';
    }
    if (!matchesOutcome(want, truth)) {
      verdict.errors.push(`${name} is ${truth}, expected ${want}`);
      mismatchNotes = true;
    }
  }
  for (const name of [...ctx.record.refused].sort()) if (!has(verdict.observations, name)) verdict.observations[name] = true;
  verdict.observations = sortKeys(verdict.observations);
  verdict.errors.push(...ctx.errors);
  if (verdict.errors.length > 0) {
    verdict.status = 'fail';
    if (mismatchNotes) verdict.errors.push(...ctx.notes);
  }
  return verdict;
}

function sortKeys(o) {
  const out = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}

function invalidInLive(check) {
  const k = checkKind(check);
  if (k === 'executed' || k === 'live') return `the diagnostic check ${k} is not allowed in a liveCheck`;
  if ((k === 'header' || k === 'cookie') && check.on === 'control') return 'a liveCheck node has on: "control"';
  for (const c of operands(check)) {
    const bad = invalidInLive(c);
    if (bad) return bad;
  }
  return undefined;
}

/**
 * Judges liveness on the guarded leg's run: the liveCheck must hold through a proof §4.6
 * accepts (a logged URL or heartbeat on the target's origin, a `pre` heartbeat with an exact-URL
 * block, a matched refusal, or an unguarded canary `state` with a `filtered` or refused call).
 */
export function judgeLive(vector, run, observer, options) {
  const verdict = { status: 'fail', skip: undefined, observations: {}, errors: [] };
  if (vector.liveCheck === undefined) {
    verdict.errors.push('a runnable vector needs a liveCheck');
    return verdict;
  }
  const bad = invalidInLive(vector.liveCheck);
  if (bad) {
    verdict.errors.push(bad);
    return verdict;
  }
  const ctx = new Ctx(vector, 'guarded', run, observer, options);
  const node = ctx.node(expand(vector.liveCheck, ctx.vars));
  const errors = [...ctx.errors];
  if (typeof node.truth === 'string') return { status: 'skip', skip: node.truth, observations: {}, errors: [] };
  if (node.truth === true && node.proves && errors.length === 0) verdict.status = 'pass';
  else if (node.truth === true && !node.proves) {
    errors.push(`the liveCheck held only through ${node.kinds.length === 0 ? 'nothing' : node.kinds.join(', ')}, which proves no liveness (§4.6)`);
  } else if (node.truth === false) {
    errors.push('the liveCheck does not hold');
    errors.push(...ctx.notes);
  }
  verdict.errors = errors;
  return verdict;
}

/** Evaluates one check on a leg run (expanded with its variables): true, false, or a skip reason string. Throws on an invalid check. */
export function evaluate(vector, side, run, observer, check, options) {
  const ctx = new Ctx(vector, side, run, observer, options);
  const truth = ctx.node(expand(check, ctx.vars)).truth;
  if (ctx.errors.length > 0) throw new GuardVectorError('check', ctx.errors[0]);
  return truth;
}

/**
 * The spec's `judge(vector, side, observed)`: judges a leg's observed names (booleans, and each
 * recorded refusal name `true`) against its expectation.
 * @returns {{ pass: boolean, refused: string[], skipped: string[], mismatches: {name: string, observed: any, expected: any}[] }}
 */
export function judge(vector, side, observed) {
  const expected = expectedOf(vector, side);
  const names = refusals(vector);
  const refused = names.filter((n) => observed && observed[n] === true);
  const skipped = [];
  const mismatches = [];
  if (!isObject(expected)) return { pass: false, refused, skipped, mismatches: [{ name: '', observed: undefined, expected }] };
  const design = Array.isArray(vector.designDependent) ? vector.designDependent : [];
  for (const [name, want] of Object.entries(expected)) {
    const obs = vector.observe && vector.observe[name];
    const depends = obs && Array.isArray(obs.dependsOn) ? obs.dependsOn : [];
    if (depends.some((d) => refused.includes(d))) {
      skipped.push(name);
      continue;
    }
    const got = observed ? observed[name] : undefined;
    const ok = want === 'either' ? design.includes(name) && typeof got === 'boolean' : got === want;
    if (!ok) mismatches.push({ name, observed: got, expected: want });
  }
  return { pass: mismatches.length === 0, refused, skipped, mismatches };
}

// ---------------------------------------------------------------------------------------------
// The gate

const KNOWN_CAPS = CAPABILITIES;

/** Reads capabilities given as an object of booleans or an array of names (absent: all). */
export function capabilitySet(capabilities) {
  if (capabilities === undefined || capabilities === null) return { autoAttach: true, browserSession: true, browserContexts: true };
  if (Array.isArray(capabilities)) return Object.fromEntries(KNOWN_CAPS.map((c) => [c, capabilities.includes(c)]));
  if (isObject(capabilities)) return Object.fromEntries(KNOWN_CAPS.map((c) => [c, capabilities[c] === true]));
  throw new GuardVectorError('capabilities', 'must be an object of booleans or an array of capability names');
}

function stepNeeds(step) {
  const out = [];
  if (step.cdp === 'Target.setAutoAttach') out.push('autoAttach');
  if (has(step, 'children')) out.push('autoAttach');
  if ((has(step, 'cdp') || has(step, 'page')) && step.session === 'child') out.push('autoAttach');
  if ((has(step, 'cdp') || has(step, 'page')) && step.session === 'browser') out.push('browserSession');
  if (step.cdp === 'Target.createBrowserContext' || step.cdp === 'Target.disposeBrowserContext') out.push('browserContexts');
  return out;
}

/** The capabilities a vector needs: its `requires`, its steps' and observations', what each step implies (V9), and browserSession for a `page-or-browser` call naming a browser context. */
export function requiredCapabilities(vector) {
  const set = new Set(Array.isArray(vector.requires) ? vector.requires : []);
  for (const { step } of flatten(vector)) {
    for (const c of Array.isArray(step.requires) ? step.requires : []) set.add(c);
    for (const c of stepNeeds(step)) set.add(c);
    if (has(step, 'cdp') && step.session === 'page-or-browser' && isObject(step.params) && has(step.params, 'browserContextId')) set.add('browserSession');
  }
  for (const o of Object.values(vector.observe || {})) for (const c of Array.isArray(o.requires) ? o.requires : []) set.add(c);
  const out = KNOWN_CAPS.filter((c) => set.has(c));
  out.push(...[...set].filter((c) => !KNOWN_CAPS.includes(c)).sort());
  return out;
}

function viaRuns(vector) {
  const via = vector.control && vector.control.via;
  return via === 'guard' ? 1 : via === 'unguarded' ? 2 : 0;
}

function unknownVia(via) {
  return `control: via ${JSON.stringify(via)} is neither guard nor unguarded`;
}

function uniformRow(spec, status, reason) {
  const v = spec.vector;
  const row = {
    id: v.id, target: spec.target, variant: spec.variant, transport: spec.transport,
    via: v.control && typeof v.control.via === 'string' ? v.control.via : '',
    control: status, guarded: status, live: status,
  };
  if (reason !== undefined) row.reason = reason;
  row.observations = {};
  row.errors = [];
  row.transportVariant = spec.transportVariant === true;
  return row;
}

function stepsNullReason(vector, side, vars) {
  const walk = (list) => {
    for (const step of list || []) {
      if (!runsOn(step, side)) continue;
      let own;
      if (has(step, 'children')) own = step.where === undefined ? undefined : nullIn(step.where, vars);
      else own = nullIn(step, vars);
      if (own !== undefined) return own;
      if (Array.isArray(step.children)) {
        const n = walk(step.children);
        if (n !== undefined) return n;
      }
    }
    return undefined;
  };
  return walk(vector.setup) ?? walk(vector.trigger);
}

/**
 * Whether a row runs at all: a decided row (not-run, skip, or fail before running), or undefined.
 * @param {{ vector: object, target: string, variant: string, transport: string, transportVariant?: boolean }} spec
 * @param {{ origins: Record<string,string|null>, capabilities?: any, observer: boolean, ownStatic?: boolean }} env
 * @returns {Row | undefined}
 */
export function precheck(spec, env) {
  const v = spec.vector;
  if (v.kind === 'text') return uniformRow(spec, 'not-run');
  if (v.kind !== 'cdp') {
    const r = uniformRow(spec, 'fail');
    r.errors.push(`kind ${JSON.stringify(v.kind)} is neither cdp nor text`);
    return r;
  }
  const runs = viaRuns(v);
  if (runs === 0) {
    const r = uniformRow(spec, 'fail');
    r.errors.push(unknownVia(v.control && v.control.via));
    return r;
  }
  if (isObject(v.skip) && v.skip.target === spec.target) return uniformRow(spec, 'skip', v.skip.reason);
  const caps = capabilitySet(env.capabilities);
  const missing = requiredCapabilities(v).find((c) => caps[c] !== true);
  if (missing !== undefined) return uniformRow(spec, 'skip', `not-supported:${missing}`);
  if (spec.target === 'own' && env.ownStatic && isObject(v.observable) && v.observable.own === false) return uniformRow(spec, 'skip', SKIP_NOT_OBSERVABLE);
  const control = legVars({ origins: env.origins, leg: 'control', target: spec.target, tag: '', cookie: '' });
  const guarded = legVars({ origins: env.origins, leg: 'guarded', target: spec.target, tag: '', cookie: '' });
  if (typeof guarded.target !== 'string') return uniformRow(spec, 'skip', `not-applicable:no-${spec.target}-origin`);
  const legs = [['control', control, 'control'], ['guarded', guarded, 'guarded']];
  if (runs === 2) legs.push(['control', guarded, 'control']);
  let observerNeeded = runs === 2 && !env.observer;
  for (const [side, vars, checksOf] of legs) {
    const name = stepsNullReason(v, side, vars);
    if (name !== undefined) return uniformRow(spec, 'skip', `not-applicable:no-${name}-origin`);
    const checks = legChecks(v, checksOf).map(([, c]) => c);
    if (checksOf === 'guarded' && v.liveCheck !== undefined) checks.push(v.liveCheck);
    for (const c of checks) {
      const r = requirement(c, vars, env.observer);
      if (r === SKIP_OBSERVER) observerNeeded = true;
      else if (r !== undefined) return uniformRow(spec, 'skip', r);
    }
  }
  if (observerNeeded) return uniformRow(spec, 'skip', SKIP_OBSERVER);
  return undefined;
}

/**
 * Judges a row whose legs ran: `control` holds the control's runs (one through the guard; with
 * `via: "unguarded"`, two over the observer: ordinary, then the protected stand-in), `guarded`
 * the guarded leg's run. A row the gate decides is returned as decided.
 * @returns {Row}
 */
export function judgeRow(spec, env, control, guarded, options) {
  const decided = precheck(spec, env);
  if (decided) return decided;
  const v = spec.vector;
  const row = uniformRow(spec, 'pass');
  let skip;
  const runsWanted = viaRuns(v);
  if (control.length !== runsWanted) {
    row.control = 'fail';
    row.errors.push(`control: via ${v.control.via} needs ${runsWanted} run(s), got ${control.length}`);
  }
  const merge = (name, verdict, field) => {
    if (verdict.status === 'skip') {
      if (skip === undefined) skip = verdict.skip;
      return;
    }
    if (verdict.status === 'fail') row[field] = 'fail';
    row.errors.push(...verdict.errors.map((e) => `${name}: ${e}`));
    if (name !== 'live') row.observations[name] = verdict.observations;
  };
  control.slice(0, runsWanted).forEach((run, i) => merge(i === 0 ? 'control' : 'controlProtected', judgeLeg(v, 'control', run, env.observer, options), 'control'));
  merge('guarded', judgeLeg(v, 'guarded', guarded, env.observer, options), 'guarded');
  merge('live', judgeLive(v, guarded, env.observer, options), 'live');
  row.observations = sortKeys(row.observations);
  if (skip !== undefined) return uniformRow(spec, 'skip', skip);
  if (row.control === 'fail') {
    for (const run of control) {
      const u = normalizeRecord(run.record).unsupported;
      if (u.length > 0) return uniformRow(spec, 'skip', `not-supported:${[...u].sort()[0]}`);
    }
  }
  return row;
}

// ---------------------------------------------------------------------------------------------
// Report rows and the summary

/**
 * A report row from `{ target, variant, transport, via?, capabilities?, control, guarded, live }`,
 * where each status is `pass`, `fail`, `skip`, `not-run` or a boolean (true is pass). A text
 * vector is not-run; a vector needing a capability the transport lacks is a skip
 * `not-supported:<capability>` (without `capabilities`, the transport has them all).
 */
export function result(vector, run) {
  if (!isObject(vector) || typeof vector.id !== 'string') throw new GuardVectorError('result', 'needs a vector with an id');
  if (!isObject(run) || typeof run.target !== 'string') throw new GuardVectorError(`result ${vector.id}`, 'needs { target, variant, transport, control, guarded, live }');
  const spec = { vector, target: run.target, variant: String(run.variant ?? ''), transport: String(run.transport ?? ''), transportVariant: run.transportVariant === true };
  const row = uniformRow(spec, 'pass');
  if (typeof run.via === 'string') row.via = run.via;
  if (vector.kind === 'text') return { ...uniformRow(spec, 'not-run'), via: row.via };
  const caps = capabilitySet(run.capabilities);
  const missing = requiredCapabilities(vector).find((c) => caps[c] !== true);
  if (missing !== undefined) return { ...uniformRow(spec, 'skip', `not-supported:${missing}`), via: row.via };
  const status = (s) => (s === true ? 'pass' : s === false ? 'fail' : ['pass', 'fail', 'skip', 'not-run'].includes(s) ? s : 'fail');
  row.control = status(run.control);
  row.guarded = status(run.guarded);
  row.live = status(run.live);
  if (typeof run.reason === 'string') row.reason = run.reason;
  if (isObject(run.observations)) row.observations = run.observations;
  if (Array.isArray(run.errors)) row.errors = run.errors;
  return row;
}

function isScoped(vector, scope) {
  return vector.scope === 'any' || (scope !== undefined && vector.scope === scope);
}

/**
 * The certification summary. `set` is the parsed guard-vectors.json; `results` the rows.
 * @param {{ guard: string, sha: string, set: object, results: Row[], variants?: string[], transports?: string[], scope?: string }} input
 * @returns {{ set: string, schemaVersion: number, guard: string, sha: string, variants: string[], targets: string[],
 *   transports: string[], results: Row[], skipped: number, notRun: number, missing: {id: string, target: string, variant: string, transport: string}[],
 *   pass: boolean, line: string, skips: Record<string, number>, observerSkipped: number, passed: number, failed: number }}
 */
export function summary({ guard, sha, set, results, variants, transports, scope }) {
  checkSet(set);
  const rows = Array.isArray(results) ? results : [];
  const vset = new Set(Array.isArray(variants) ? variants : Object.keys(set.variants || {}));
  for (const r of rows) vset.add(r.variant);
  const tset = new Set(Array.isArray(transports) ? transports : []);
  for (const r of rows) tset.add(r.transport);
  const have = new Set(rows.map((r) => JSON.stringify([r.id, r.target, r.variant, r.transport])));
  const targets = new Set();
  const missing = [];
  const sortedV = [...vset].sort();
  const sortedT = [...tset].sort();
  for (const v of set.vectors.filter((x) => isScoped(x, scope ?? guard))) {
    for (const target of v.targets || []) {
      targets.add(target);
      for (const variant of sortedV) {
        for (const transport of sortedT) {
          if (!have.has(JSON.stringify([v.id, target, variant, transport]))) missing.push({ id: v.id, target, variant, transport });
        }
      }
    }
  }
  const statuses = (r) => [r.control, r.guarded, r.live];
  const skips = {};
  const skippedRows = rows.filter((r) => statuses(r).includes('skip'));
  for (const r of skippedRows) {
    const reason = r.reason ?? 'unknown';
    skips[reason] = (skips[reason] || 0) + 1;
  }
  const failed = rows.filter((r) => statuses(r).includes('fail')).length;
  const pass = missing.length === 0 && failed === 0 && rows.length > 0;
  let line = `${pass ? 'GUARD-PASS' : 'GUARD-FAIL'} ${guard}@${sha} (vectors @ai-ecoverse/slicc-browsers@${set.setVersion})`;
  if (skippedRows.length > 0) {
    line += ` skips ${skippedRows.length} (${Object.keys(skips).sort().map((k) => `${k}=${skips[k]}`).join(', ')})`;
  }
  return {
    set: set.setVersion,
    schemaVersion: set.schemaVersion,
    guard,
    sha,
    variants: sortedV,
    targets: [...targets].sort(),
    transports: sortedT,
    results: rows,
    skipped: skippedRows.length,
    notRun: rows.filter((r) => statuses(r).includes('not-run')).length,
    missing,
    pass,
    line,
    skips: sortKeys(skips),
    observerSkipped: skips[SKIP_OBSERVER] || 0,
    passed: rows.filter((r) => statuses(r).every((s) => s === 'pass')).length,
    failed,
  };
}

/**
 * Checks that a parsed vector file has the shape a runner needs (schema 1, vectors with ids,
 * kinds, targets, control and expected, observations with checks), with an error that says
 * where. It does not replace `npm run validate`.
 */
export function checkSet(set) {
  if (!isObject(set)) throw new GuardVectorError('guard vectors', 'must be the parsed guard-vectors.json (an object)');
  if (set.schemaVersion !== 1) throw new GuardVectorError('guard vectors/schemaVersion', `is ${JSON.stringify(set.schemaVersion)}; this runner reads schema 1`);
  if (typeof set.setVersion !== 'string') throw new GuardVectorError('guard vectors/setVersion', 'must be a version string');
  if (!Array.isArray(set.vectors) || set.vectors.length === 0) throw new GuardVectorError('guard vectors/vectors', 'must be a non-empty array');
  const ids = new Set();
  set.vectors.forEach((v, i) => {
    const at = `guard vectors/vectors/${i}`;
    if (!isObject(v) || typeof v.id !== 'string') throw new GuardVectorError(at, 'needs an id');
    if (ids.has(v.id)) throw new GuardVectorError(`${at} (${v.id})`, 'repeats an id');
    ids.add(v.id);
    if (v.kind !== 'cdp' && v.kind !== 'text') throw new GuardVectorError(`${at} (${v.id})/kind`, 'must be cdp or text');
    if (!Array.isArray(v.targets) || v.targets.length === 0) throw new GuardVectorError(`${at} (${v.id})/targets`, 'must be a non-empty array');
    if (!isObject(v.control) || v.control.expected === undefined) throw new GuardVectorError(`${at} (${v.id})/control`, 'needs origin, via and expected');
    if (v.expected === undefined) throw new GuardVectorError(`${at} (${v.id})/expected`, 'is missing');
    if (!Array.isArray(v.setup) || !Array.isArray(v.trigger)) throw new GuardVectorError(`${at} (${v.id})`, 'needs setup and trigger arrays');
    if (v.kind === 'cdp') {
      for (const side of ['control', 'guarded']) {
        const exp = expectedOf(v, side);
        if (!isObject(exp)) throw new GuardVectorError(`${at} (${v.id})`, `a cdp vector's ${side === 'control' ? 'control.expected' : 'expected'} must be an object of names`);
        for (const name of Object.keys(exp)) {
          const o = v.observe && v.observe[name];
          if (!isObject(o) || !isObject(o.check)) throw new GuardVectorError(`${at} (${v.id})/observe/${name}`, 'is expected but has no check (a missing observation check is an error before execution)');
        }
      }
      if (!isObject(v.liveCheck)) throw new GuardVectorError(`${at} (${v.id})/liveCheck`, 'a cdp vector needs a declarative liveCheck');
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Driving a client

/** Rejects after `ms` with a message naming what timed out. */
export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    Promise.resolve(promise).finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]);
}

/** Checks that a client has the spec's shape, with an error saying what is missing. */
export function checkClient(client, what = 'client') {
  if (!isObject(client) && typeof client !== 'object') throw new GuardVectorError(what, 'must be an object with send, waitEvent and events');
  if (client === null || typeof client.send !== 'function') throw new GuardVectorError(what, 'needs send(method, params, sessionId) returning a promise');
  if (typeof client.waitEvent !== 'function') throw new GuardVectorError(what, 'needs waitEvent(predicate, ms) returning a promise of an event');
  if (!Array.isArray(client.events)) throw new GuardVectorError(what, 'needs events, an append-only array of { method, params, sessionId }');
}

/**
 * The outcome of a call: `{ ok: true, result }`, or `{ ok: false, error: { code, message } }`
 * for a protocol error (`error.cdp`, or the error's message).
 */
export function outcome(answer, error) {
  if (error === undefined) return { ok: true, result: answer === undefined ? {} : answer };
  const cdp = error && isObject(error.cdp) ? error.cdp : undefined;
  if (cdp) return { ok: false, error: { code: cdp.code, message: String(cdp.message ?? '') } };
  return { ok: false, error: { message: String(error && error.message !== undefined ? error.message : error) } };
}

/** Sends a `cdp` step (placeholders expanded) on `sessionId` and returns its outcome; never rejects. */
export async function call(client, step, sessionId, ms = 10000) {
  try {
    const answer = await withTimeout(client.send(step.cdp, step.params || {}, sessionId), ms, step.cdp);
    return outcome(answer);
  } catch (e) {
    return outcome(undefined, e);
  }
}

/** Whether an outcome is a refusal of a refusable step: a protocol error matching its `refusal.match`. */
export function isRefusal(result, step) {
  if (!isObject(result) || result.ok !== false || !isObject(result.error)) return false;
  const pattern = step && isObject(step.refusal) ? step.refusal.match : undefined;
  if (typeof pattern !== 'string') return false;
  const c = compile(pattern);
  if (c.error) return false;
  const code = result.error.code === undefined ? '' : String(result.error.code);
  return c.re.test(String(result.error.message ?? '')) || (code !== '' && c.re.test(code));
}

/** Enables Page, Runtime and Network on a session and adds the beacon as an init script; returns the script's identifier (or undefined when refused). */
export async function instrument(client, sessionId, log, tag, ms = 10000) {
  for (const m of ['Page.enable', 'Runtime.enable', 'Network.enable']) {
    await withTimeout(client.send(m, {}, sessionId), ms, m).catch(() => null);
  }
  try {
    const r = await withTimeout(client.send('Page.addScriptToEvaluateOnNewDocument', { source: beacon(log, tag) }, sessionId), ms, 'Page.addScriptToEvaluateOnNewDocument');
    return r && r.identifier;
  } catch {
    return undefined;
  }
}

/**
 * Navigates a session to `url` and waits for the load of its own loaderId (its main-frame
 * `Page.frameNavigated`, then a load event): `{ ok, errorText? }`.
 */
export async function load(client, sessionId, url, ms = 10000) {
  const from = client.events.length;
  let nav;
  try {
    nav = await withTimeout(client.send('Page.navigate', { url }, sessionId), ms, 'Page.navigate');
  } catch (e) {
    return { ok: false, errorText: outcome(undefined, e).error.message };
  }
  if (nav && nav.errorText) return { ok: false, errorText: nav.errorText, loaderId: nav.loaderId };
  const loaderId = nav && nav.loaderId;
  if (!loaderId) return { ok: true };
  const seen = (e) => e.sessionId === sessionId && e.method === 'Page.frameNavigated' && e.params && e.params.frame && e.params.frame.loaderId === loaderId && !e.params.frame.parentId;
  const deadline = Date.now() + ms;
  let committed = -1;
  for (;;) {
    const evs = client.events;
    if (committed < 0) committed = evs.findIndex((e, i) => i >= from && seen(e));
    if (committed >= 0 && evs.some((e, i) => i > committed && e.sessionId === sessionId && (e.method === 'Page.loadEventFired' || (e.method === 'Page.lifecycleEvent' && e.params && e.params.name === 'load' && e.params.loaderId === loaderId)))) {
      return { ok: true, loaderId };
    }
    const left = deadline - Date.now();
    if (left <= 0) return { ok: false, errorText: `no load of ${url} within ${ms} ms`, loaderId };
    await client.waitEvent((e) => e.sessionId === sessionId, Math.min(left, 250)).catch(() => null);
  }
}

/** Waits for a popup opened by `openerId` (`Target.targetCreated` with that opener): its targetInfo. */
export async function popup(client, openerId, ms = 10000) {
  const is = (e) => e.method === 'Target.targetCreated' && e.params && e.params.targetInfo && e.params.targetInfo.openerId === openerId;
  const already = client.events.find(is);
  if (already) return already.params.targetInfo;
  const e = await client.waitEvent(is, ms);
  return e.params.targetInfo;
}
