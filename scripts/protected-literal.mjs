// The spec's protected-origin rules, transcribed literally on the WHATWG URL (Node's `URL`):
// no fail-closed reading, no amendment. It runs protected.json through them and checks that
// every vector passes except the ones docs/protected-amendments.md lists as amendments (and
// that each listed one really fails here, so the list can't go stale).
//
//   node scripts/protected-literal.mjs [protected.json] [catalog.json] [amendments.md]
//
// Exit 0: every vector passes or is a listed amendment. Exit 1: the vectors that fail without
// being listed, and the listed ones that pass, one a line.
//
// Readings where the spec's words leave a choice (each the plainest one):
// - Rule 1's "the rest of the URL after <scheme>:" is the rest of the parsed URL's href.
// - Rule 4's "its origin ... compared as scheme://host[:port]" is built from the URL's scheme,
//   host and port, for every scheme (the WHATWG origin of a non-special URL is opaque, which
//   would make an extra origin such as chrome-extension://id unmatchable).
// - A target URL "inherits" when it is the empty string, or when it parses and its href without
//   query and fragment is one of `inheriting`.
// - A cookie domain loses one leading and one trailing dot; "the host of a protected domain or
//   an extra origin" is the domain itself and the extra origin's `hostname` (an IPv6 host keeps
//   its brackets, as URL.hostname gives it).
// - A storage key's top-level site is the text after `^0` up to the next `^`.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const [vectorsPath, catalogPath, amendmentsPath] = [
  process.argv[2] ?? `${root}/protected.json`,
  process.argv[3] ?? `${root}/catalog.json`,
  process.argv[4] ?? `${root}/docs/protected-amendments.md`,
];

export function literal(po, extraOrigins) {
  const norm = (h) => {
    h = h.toLowerCase();
    return h.endsWith('.') ? h.slice(0, -1) : h;
  };
  const defaults = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443', 'ftp:': '21' };
  const origin = (u) => {
    const port = u.port === defaults[u.protocol] ? '' : u.port;
    return `${u.protocol}//${norm(u.hostname)}${port ? `:${port}` : ''}`;
  };
  const extras = extraOrigins.map((o) => new URL(o));
  const extraKeys = new Set(extras.map(origin));
  const parse = (text) => {
    try {
      return new URL(text);
    } catch {
      return null;
    }
  };
  const url = (text) => {
    let u = parse(text);
    if (!u) return false;
    // 1. Inner schemes, at most 8 times.
    for (let i = 0; i < 8 && po.innerSchemes.includes(u.protocol.slice(0, -1)); i++) {
      u = parse(u.href.slice(u.protocol.length));
      if (!u) return false;
    }
    const scheme = u.protocol.slice(0, -1);
    // 2. Any scheme.
    if (po.anySchemes.includes(scheme)) return true;
    // 3. Schemes: hosts, domains and under them, any port.
    const host = norm(u.hostname);
    if (po.schemes.includes(scheme) && host) {
      if (po.hosts.includes(host) || po.domains.some((d) => host === d || host.endsWith(`.${d}`))) return true;
    }
    // 4. Extra origins.
    return host !== '' && extraKeys.has(origin(u));
  };
  const inherits = (text) => {
    if (text === '') return true;
    const u = parse(text);
    return !!u && po.inheriting.includes(u.href.split(/[?#]/, 1)[0]);
  };
  const target = ({ url: text, previous = false, opener }) => {
    if (inherits(text)) return previous || opener === 'protected' || opener === 'unknown';
    return url(text);
  };
  const named = [...po.hosts, ...po.domains, ...extras.map((e) => norm(e.hostname))];
  const cookieDomain = (domain) => {
    let d = domain.toLowerCase();
    if (d.startsWith('.')) d = d.slice(1);
    if (d.endsWith('.')) d = d.slice(0, -1);
    if (po.domains.some((x) => d === x || d.endsWith(`.${x}`))) return true;
    return d !== '' && named.some((n) => n === d || n.endsWith(`.${d}`));
  };
  const storageKey = (key) => {
    const [first, ...parts] = key.split('^');
    if (url(first)) return true;
    const site = parts.find((p) => p.startsWith('0'));
    return site !== undefined && url(site.slice(1));
  };
  return { url, target, cookieDomain, storageKey };
}

// The amendments: every ```json block of the amendments file holds
// { "urls": [...], "targets": [...], "cookieDomains": [...], "storageKeys": [...] } (any of
// them), listing the inputs (a target by its url, previous and opener) the amendment keeps.
export function amendments(markdown) {
  const listed = { urls: new Set(), targets: new Set(), cookieDomains: new Set(), storageKeys: new Set() };
  for (const [, block] of markdown.matchAll(/```json\n([\s\S]*?)```/g)) {
    const a = JSON.parse(block);
    for (const kind of Object.keys(listed)) for (const x of a[kind] ?? []) listed[kind].add(key(kind, x));
  }
  return listed;
}

export function key(kind, v) {
  if (kind === 'urls') return typeof v === 'string' ? v : v.url;
  if (kind === 'cookieDomains') return typeof v === 'string' ? v : v.domain;
  if (kind === 'storageKeys') return typeof v === 'string' ? v : v.key;
  return JSON.stringify([v.url, v.previous ?? false, v.opener ?? null]);
}

const isMain = process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname);
if (isMain) {
  const vectors = JSON.parse(readFileSync(vectorsPath, 'utf8'));
  const po = JSON.parse(readFileSync(catalogPath, 'utf8')).protectedOrigins;
  let listed;
  try {
    listed = amendments(readFileSync(amendmentsPath, 'utf8'));
  } catch (e) {
    if (e.code !== 'ENOENT') throw e;
    listed = amendments('');
  }
  const m = literal(po, vectors.origins);
  const judge = {
    urls: (v) => m.url(v.url),
    targets: (v) => m.target(v),
    cookieDomains: (v) => m.cookieDomain(v.domain),
    storageKeys: (v) => m.storageKey(v.key),
  };
  let passed = 0;
  let amended = 0;
  const problems = [];
  const seen = { urls: new Set(), targets: new Set(), cookieDomains: new Set(), storageKeys: new Set() };
  for (const kind of Object.keys(judge)) {
    for (const v of vectors[kind]) {
      const k = key(kind, v);
      seen[kind].add(k);
      const got = judge[kind](v);
      if (got === v.protected) {
        passed++;
        if (listed[kind].has(k)) problems.push(`listed as an amendment but passes the literal rules: ${kind} ${JSON.stringify(v)}`);
      } else if (listed[kind].has(k)) {
        amended++;
      } else {
        problems.push(`fails the literal rules (literal says ${got}): ${kind} ${JSON.stringify(v)}`);
      }
    }
    for (const k of listed[kind]) {
      if (!seen[kind].has(k)) problems.push(`listed as an amendment but not in protected.json: ${kind} ${k}`);
    }
  }
  for (const p of problems) console.log(p);
  const failed = problems.length;
  console.log(`literal rules on Node ${process.version} URL: ${amended} amendment vector(s) fail as listed`);
  console.log(`${passed + amended} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
