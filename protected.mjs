// The reference protected-origin matcher in JavaScript: the spec's rules ("Protected origins")
// plus every amendment of docs/protected-amendments.md, on the WHATWG URL alone, so it runs in
// Node and in a browser. It passes every vector of protected.json in both (tests/node_go/npm_package.rs,
// tests/browser/protected_mjs_chromium.rs). Hosts are mapped by the platform's own UTS 46 table, whose
// Unicode version differs between platforms (Node 20 reads capital ẞ as ss, Chromium 156 as ß);
// protected.json holds no vector whose answer depends on it.
//
//   import { protectedOrigins } from '@ai-ecoverse/slicc-browsers/protected.mjs';
//   const m = protectedOrigins(catalog.protectedOrigins, ['http://127.0.0.1:5710']);
//   m.url(text); m.target({ url, previous, opener }); m.cookieDomain(domain); m.storageKey(key);
//
// Each returns a boolean. An extra origin that is not `scheme://host[:port]` throws a TypeError,
// and so does an argument of the wrong shape: url, cookieDomain and storageKey take a string (url
// also a URL object), target takes an object { url?: string, previous?: boolean, opener?:
// 'protected' | 'unprotected' | 'unknown' }: an answer for something else would be a guess.
//
// The amendments (A1-A6), where Chromium reaches a protected origin, cookie or storage through
// input the literal rules allow:
//   A1 a URL the WHATWG parser rejects is read as Chromium reads it: spaces in a host escaped,
//      `％`/`﹪` as `%` and unescaped again after IDNA, `xn--` labels that are not Punycode kept,
//      code points of a newer Unicode (or any the parser can't map) read as any text, and a
//      scheme in anySchemes protected even when the rest does not parse;
//   A2 a host that is an IP address after unescaping and IDNA (`%5B::1%5D`, `［::1］`, soft
//      hyphens), with host and port split at the last `:` after the last `]`;
//   A3 C0 controls and spaces before an inner URL are trimmed (`filesystem:\x01https://…`);
//   A4 a URL whose scheme is a non-special extra origin's (`chrome-extension:`) is also read as
//      an `http:` URL and matches that extra origin by host, on any port;
//   A5 a cookie domain is also judged as the host of `http://<domain>`, as CDP builds it;
//   A6 `about:blank/` inherits its origin, as `about:blank` does.

const MAX_INNER = 8;
const SPECIAL = new Set(['http', 'https', 'ws', 'wss', 'ftp', 'file']);
const DEFAULT_PORT = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21 };
const ANY = -1;

const parse = (text) => {
  try {
    return new URL(text);
  } catch {
    return null;
  }
};
const norm = (host) => {
  const h = host.toLowerCase();
  return h.endsWith('.') ? h.slice(0, -1) : h;
};
const schemeOf = (u) => u.protocol.slice(0, -1);
const portOf = (u) => (u.port === '' ? null : Number(u.port));
const unbracket = (h) => (h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h);
const underOrAt = (name, domain) => name === domain || name.endsWith(`.${domain}`);

// The WHATWG pre-processing: C0 controls and spaces trimmed, tabs and newlines removed.
const clean = (input) => input.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, '').replace(/[\t\n\r]/g, '');

const hex = (c) => (/^[0-9a-fA-F]$/.test(c) ? parseInt(c, 16) : null);

// Percent-decodes to UTF-8 text (invalid sequences become U+FFFD); a bad `%` stays.
function percentDecode(text) {
  const bytes = [];
  const enc = new TextEncoder();
  for (let i = 0; i < text.length; ) {
    if (text[i] === '%' && i + 2 < text.length && hex(text[i + 1]) !== null && hex(text[i + 2]) !== null) {
      bytes.push(hex(text[i + 1]) * 16 + hex(text[i + 2]));
      i += 3;
      continue;
    }
    const cp = text.codePointAt(i);
    const ch = String.fromCodePoint(cp);
    bytes.push(...enc.encode(ch));
    i += ch.length;
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

// A URL split the WHATWG way: scheme (lower case), the rest after `:`, and the host[:port]
// text after the user info for a special scheme or a `//` authority.
function split(s) {
  const colon = s.indexOf(':');
  if (colon < 0) return null;
  const raw = s.slice(0, colon);
  if (!/^[A-Za-z][A-Za-z0-9+.-]*$/.test(raw)) return null;
  const scheme = raw.toLowerCase();
  const rest = s.slice(colon + 1);
  const special = SPECIAL.has(scheme);
  const after = special ? rest.replace(/^[/\\]*/, '') : rest.startsWith('//') ? rest.slice(2) : null;
  let authority = null;
  if (after !== null) {
    const m = after.match(special ? /[/?#\\]/ : /[/?#]/);
    const auth = m ? after.slice(0, m.index) : after;
    const at = auth.lastIndexOf('@');
    authority = at >= 0 ? auth.slice(at + 1) : auth;
  }
  return { scheme, rest, authority };
}

// The URL Standard's host/port split and, when it differs, Chromium's (the last `:` after the
// last `]`).
function readings(hostPort) {
  let whatwg;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) whatwg = [hostPort, null];
    else {
      const host = hostPort.slice(0, close + 1);
      const tail = hostPort.slice(close + 1);
      whatwg = tail.startsWith(':') ? [host, tail.slice(1)] : [host, tail === '' ? null : tail];
    }
  } else {
    const c = hostPort.indexOf(':');
    whatwg = c < 0 ? [hostPort, null] : [hostPort.slice(0, c), hostPort.slice(c + 1)];
  }
  let terminator = hostPort.lastIndexOf(']');
  if (terminator < 0) terminator = hostPort.startsWith('[') ? hostPort.length : null;
  const colon = hostPort.lastIndexOf(':');
  const chromium = colon >= 0 && (terminator === null || colon > terminator)
    ? [hostPort.slice(0, colon), hostPort.slice(colon + 1)]
    : [hostPort, null];
  const same = chromium[0] === whatwg[0] && chromium[1] === whatwg[1];
  return same ? [whatwg] : [whatwg, chromium];
}

// A port as browsers read it: null when absent or empty, undefined when invalid.
function readPort(text) {
  if (text === null || text === '') return null;
  if (!/^[0-9]+$/.test(text)) return undefined;
  const digits = text.replace(/^0+/, '');
  if (digits.length > 5) return undefined;
  const n = digits === '' ? 0 : Number(digits);
  return n > 65535 ? undefined : n;
}

// UTS 46 maps these to ASCII the URL Standard forbids in a host, which Chromium keeps.
const STD3 = new Map([
  ['\uFF05', 0x25], ['\uFE6A', 0x25],
  ['\uFF3B', 0x5b], ['\uFE47', 0x5b],
  ['\uFF3D', 0x5d], ['\uFE48', 0x5d],
  ['\uFF1A', 0x3a], ['\uFE55', 0x3a], ['\uFE13', 0x3a],
]);

const mapCache = new Map();
// One non-ASCII character's UTS 46 mapping when it is ASCII, by the platform's own tables.
function mapChar(c) {
  if (mapCache.has(c)) return mapCache.get(c);
  let out = null;
  const u = parse(`http://a${c}a/`);
  if (u && /^[\x00-\x7f]*$/.test(u.hostname) && !u.hostname.includes('xn--') && u.hostname.length >= 2) {
    out = u.hostname.slice(1, -1);
  }
  mapCache.set(c, out);
  return out;
}

const pushAny = (p) => {
  if (p[p.length - 1] !== ANY) p.push(ANY);
};

// What Chromium might make of a (percent-decoded) host: bytes, with ANY for unknown text.
function pattern(text) {
  const mapped = [];
  for (const c of text) {
    const code = c.codePointAt(0);
    if (code < 0x80) mapped.push(code);
    else if (STD3.has(c)) mapped.push(STD3.get(c));
    else {
      const m = mapChar(c);
      if (m === null) pushAny(mapped);
      else for (const ch of m) mapped.push(ch.charCodeAt(0));
    }
  }
  const isHex = (b) => b !== ANY && hex(String.fromCharCode(b)) !== null;
  const out = [];
  for (let i = 0; i < mapped.length; ) {
    const b = mapped[i];
    if (b === 0x25) {
      const next = mapped.slice(i + 1, i + 3);
      if (next.length === 2 && isHex(next[0]) && isHex(next[1])) {
        const byte = hex(String.fromCharCode(next[0])) * 16 + hex(String.fromCharCode(next[1]));
        if (byte < 0x80) out.push(String.fromCharCode(byte).toLowerCase().charCodeAt(0));
        else pushAny(out);
        i += 3;
      } else if (next.includes(ANY)) {
        pushAny(out);
        i += 1 + next.length;
      } else {
        out.push(0x25);
        i += 1;
      }
    } else if (b === ANY) {
      pushAny(out);
      i += 1;
      for (let eaten = 0; eaten < 2 && i < mapped.length && isHex(mapped[i]); eaten++) i++;
    } else {
      out.push(String.fromCharCode(b).toLowerCase().charCodeAt(0));
      i += 1;
    }
  }
  return out;
}


function targetPattern(name, under, dot) {
  const q = [];
  if (under) q.push(ANY, 0x2e);
  for (const c of name) q.push(c.charCodeAt(0));
  if (dot) q.push(0x2e);
  return q;
}

// Whether some text matches both patterns.
function intersects(p, q) {
  const n = p.length;
  const m = q.length;
  const width = m + 1;
  const seen = new Uint8Array((n + 1) * width);
  const stack = [[0, 0]];
  while (stack.length) {
    const [i, j] = stack.pop();
    const cell = i * width + j;
    if (seen[cell]) continue;
    seen[cell] = 1;
    if (i === n && j === m) return true;
    const a = i < n ? p[i] : undefined;
    const b = j < m ? q[j] : undefined;
    if (a === ANY) stack.push([i + 1, j]);
    if (b === ANY) stack.push([i, j + 1]);
    if (a !== undefined && b !== undefined) {
      if (a !== ANY && b !== ANY && a === b) stack.push([i + 1, j + 1]);
      else if (a !== ANY && b === ANY) stack.push([i + 1, j]);
      else if (a === ANY && b !== ANY) stack.push([i, j + 1]);
    }
  }
  return false;
}

const knownText = (p) => (p.includes(ANY) ? null : String.fromCharCode(...p));

// The IP address a host text is, canonical as URL.hostname writes it: [v6] or dotted v4.
function ipOf(text) {
  if (text.startsWith('[') && text.endsWith(']')) {
    const u = parse(`http://${text}/`);
    return u && u.hostname.startsWith('[') ? u.hostname : null;
  }
  if (!/^[0-9a-fA-FxX.]+$/.test(text)) return null;
  const u = parse(`http://${text}/`);
  return u && /^\d+\.\d+\.\d+\.\d+$/.test(u.hostname) ? u.hostname : null;
}

// The argument checks: a wrong shape throws a TypeError that names the call and what it takes.
const OPENERS = new Set(['protected', 'unprotected', 'unknown']);
const shape = (call, what, value) =>
  new TypeError(`${call}: expected ${what}, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'string' ? JSON.stringify(value) : typeof value}`);
const asText = (call, value) => {
  if (typeof value === 'string') return value;
  if (typeof URL !== 'undefined' && value instanceof URL) return value.href;
  throw shape(call, 'a string', value);
};

export function protectedOrigins(po, extraOrigins = []) {
  if (po === null || typeof po !== 'object' || !['schemes', 'innerSchemes', 'anySchemes', 'hosts', 'domains', 'inheriting'].every((k) => Array.isArray(po[k]))) {
    throw shape('protectedOrigins', "the catalog's protectedOrigins object", po);
  }
  if (!Array.isArray(extraOrigins)) throw shape('protectedOrigins', 'an array of extra origins', extraOrigins);
  const schemes = new Set(po.schemes);
  const innerSchemes = new Set(po.innerSchemes);
  const anySchemes = new Set(po.anySchemes);
  const hosts = po.hosts.map(norm);
  const domains = po.domains.map(norm);
  const extras = extraOrigins.map((text) => {
    // Trimmed of Unicode White_Space as the crate trims (String.prototype.trim also drops a
    // byte-order mark and keeps U+0085); an empty query or fragment (`http://a?`, which
    // `search` and `hash` show as '') is refused too, as the crate refuses it.
    const u = parse(String(text).replace(/^\p{White_Space}+|\p{White_Space}+$/gu, ''));
    if (!u || !u.hostname || u.username || u.password || !['', '/'].includes(u.pathname) || /[?#]/.test(u.href)) {
      throw new TypeError(`extra origin ${JSON.stringify(text)} is not scheme://host[:port]`);
    }
    const host = norm(u.hostname);
    const ip = ipOf(host);
    return { text, scheme: schemeOf(u), host, port: portOf(u), ip, v6: !!ip && ip.startsWith('['), v4: !!ip && !ip.startsWith('[') };
  });

  const hostMatch = (host) => hosts.includes(host) || domains.some((d) => underOrAt(host, d));
  const extraMatch = (scheme, host, port) => extras.some((e) => e.scheme === scheme && e.host === host && e.port === port);

  function couldBe(scheme, pat, port) {
    if (schemes.has(scheme)) {
      for (const d of domains) {
        for (const [under, dot] of [[false, false], [false, true], [true, false], [true, true]]) {
          if (intersects(pat, targetPattern(d, under, dot))) return true;
        }
      }
      for (const h of hosts) {
        if (intersects(pat, targetPattern(h, false, false)) || intersects(pat, targetPattern(h, false, true))) return true;
      }
    }
    return extras.some((e) => e.scheme === scheme && e.port === port
      && (intersects(pat, targetPattern(e.host, false, false)) || intersects(pat, targetPattern(e.host, false, true))));
  }

  function couldBeIp(scheme, raw, pat, port) {
    const same = extras.filter((e) => e.scheme === scheme && e.port === port);
    const text = knownText(pat);
    if (text !== null) {
      const ip = ipOf(text);
      return ip !== null && same.some((e) => e.ip === ip);
    }
    const v6 = raw.includes('[') || pat.some((b) => b === 0x5b || b === 0x5d || b === 0x3a);
    const v4 = pat.length > 0 && pat.every((b) => b === ANY || b === 0x78 || b === 0x2e || hex(String.fromCharCode(b)) !== null);
    return same.some((e) => (v6 && e.v6) || (v4 && e.v4));
  }

  // A4: a non-special extra origin's scheme read as `http:`, matched by host on any port.
  function asStandard(scheme, input) {
    if (SPECIAL.has(scheme) || !extras.some((e) => e.scheme === scheme)) return false;
    const cleaned = clean(input);
    const colon = cleaned.indexOf(':');
    if (colon < 0) return false;
    const text = `http:${cleaned.slice(colon + 1)}`;
    const mine = extras.filter((e) => e.scheme === scheme);
    const u = parse(text);
    if (u) {
      const host = norm(u.hostname);
      return mine.some((e) => e.host === host);
    }
    const s = split(clean(text));
    if (!s || s.authority === null) return false;
    for (const [host] of readings(s.authority)) {
      const pat = pattern(percentDecode(host));
      const text2 = knownText(pat);
      const ip = text2 === null ? null : ipOf(text2);
      if (mine.some((e) => (ip !== null && e.ip === ip)
        || intersects(pat, targetPattern(e.host, false, false)) || intersects(pat, targetPattern(e.host, false, true)))) return true;
    }
    return false;
  }

  // A1, A2: a URL the WHATWG parser rejects, read as Chromium might.
  function rejected(input, depth) {
    const s = split(clean(input));
    if (!s) return false;
    if (anySchemes.has(s.scheme)) return true;
    if (innerSchemes.has(s.scheme)) return depth < MAX_INNER && judge(s.rest, depth + 1);
    if (asStandard(s.scheme, input)) return true;
    if (s.authority === null) return false;
    for (const [host, portText] of readings(s.authority)) {
      let port = readPort(portText);
      if (port === undefined) continue;
      if (port === DEFAULT_PORT[s.scheme]) port = null;
      const pat = pattern(percentDecode(host));
      if (couldBe(s.scheme, pat, port) || couldBeIp(s.scheme, host, pat, port)) return true;
    }
    return false;
  }

  function judge(input, depth) {
    const u = parse(input);
    if (!u) return rejected(input, depth);
    const scheme = schemeOf(u);
    // Rule 2.
    if (anySchemes.has(scheme)) return true;
    // Rule 1, at most 8 times.
    if (innerSchemes.has(scheme) && depth < MAX_INNER) {
      // A3: C0 controls and spaces before the inner URL are trimmed.
      const cleaned = clean(input);
      if (cleaned[scheme.length] === ':') {
        const raw = cleaned.slice(scheme.length + 1);
        const first = raw.replace(/^ +/, '');
        if (first !== '' && first.charCodeAt(0) < 0x20) return judge(raw.replace(/^[\x00-\x20]+/, ''), depth + 1);
      }
      return judge(u.href.slice(scheme.length + 1), depth + 1);
    }
    const host = norm(u.hostname);
    // Rules 3 and 4.
    if (host !== '' && schemes.has(scheme) && hostMatch(host)) return true;
    if (host !== '' && extraMatch(scheme, host, portOf(u))) return true;
    return asStandard(scheme, input);
  }

  const url = (input) => judge(asText('url', input), 0);

  const inherits = (text) => {
    if (text === '') return true;
    const u = parse(text);
    if (!u) return false;
    const base = u.href.split(/[?#]/, 1)[0];
    // A6: Chromium's about:blank also has a trailing slash.
    return po.inheriting.includes(base) || (base === 'about:blank/' && po.inheriting.includes('about:blank'));
  };

  const target = (t = {}) => {
    if (t === null || typeof t !== 'object' || Array.isArray(t) || t instanceof URL) {
      throw shape('target', 'an object { url, previous, opener }', t);
    }
    const { url: u = '', previous = false, opener } = t;
    const href = asText('target: url', u);
    if (typeof previous !== 'boolean') throw shape('target: previous', 'a boolean', previous);
    if (opener !== undefined && !OPENERS.has(opener)) {
      throw shape('target: opener', "'protected', 'unprotected' or 'unknown'", opener);
    }
    return (inherits(href) && (previous || opener === 'protected' || opener === 'unknown')) || url(href);
  };

  const named = [...hosts, ...domains, ...extras.map((e) => e.host)];
  const cookieName = (d) => d !== '' && (domains.some((x) => underOrAt(d, x)) || named.some((n) => underOrAt(n, d)));

  function couldBeCookie(pat) {
    const text = knownText(pat);
    if (text !== null) {
      const ip = ipOf(text);
      if (ip !== null) return extras.some((e) => e.ip === ip);
      return cookieName(text.replace(/^\.+|\.+$/g, ''));
    }
    const under = domains.some((d) => [[false, false], [false, true], [true, false], [true, true]]
      .some(([u, dot]) => intersects(pat, targetPattern(d, u, dot))));
    const parent = [...hosts, ...domains, ...extras.map((e) => unbracket(e.host))].some((name) => {
      const suffixes = [name, ...[...name.matchAll(/\./g)].map((m) => name.slice(m.index + 1))].filter((x) => x);
      return suffixes.some((x) => intersects(pat, targetPattern(x, false, false)) || intersects(pat, targetPattern(x, false, true)));
    });
    const v6 = pat.some((b) => b === 0x5b || b === 0x5d || b === 0x3a);
    const v4 = pat.every((b) => b === ANY || b === 0x78 || b === 0x2e || hex(String.fromCharCode(b)) !== null);
    return under || parent || extras.some((e) => (v6 && e.v6) || (v4 && e.v4));
  }

  function cookieDomain(domain) {
    const text = typeof domain === 'string' ? domain : (() => { throw shape('cookieDomain', 'a string', domain); })();
    let d = text.toLowerCase();
    if (d.startsWith('.')) d = d.slice(1);
    if (d.endsWith('.')) d = d.slice(0, -1);
    if (cookieName(d)) return true;
    // A5: CDP sets the cookie on the host of http://<domain> (one leading dot dropped).
    const link = `http://${text.startsWith('.') ? text.slice(1) : text}`;
    const u = parse(link);
    if (u) {
      if (u.hostname === '') return false;
      const host = norm(u.hostname);
      return cookieName(host) || (ipOf(host) !== null && extras.some((e) => e.ip === host));
    }
    const s = split(clean(link));
    if (!s || !s.authority) return false;
    return readings(s.authority).some(([host]) => {
      const decoded = percentDecode(host);
      return couldBeCookie(pattern(decoded));
    });
  }

  function storageKey(key) {
    const [origin, ...parts] = asText('storageKey', key).split('^');
    if (url(origin)) return true;
    const site = parts.find((p) => p.startsWith('0'));
    return site !== undefined && url(site.slice(1));
  }

  return { url, target, cookieDomain, storageKey };
}

export default protectedOrigins;
