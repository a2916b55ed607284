// The same steps of three real CDP clients (playwright-core, puppeteer-core,
// chrome-remote-interface) against one DevTools endpoint, run by tests/browser/guard_clients.rs once
// straight against Chromium and once through `guard proxy`; the test compares the two runs.
//
//   node clients.cjs <node_modules dir> <endpoint http://host:port> <protected URL> <client>
//
// <client> is playwright, puppeteer or cri. Prints one JSON line per step:
// {"client", "step", "ok": true, "value"} or {"client", "step", "ok": false, "error"}.
// Values hold no ports, ids or times, so that the two runs can be compared as they are.
// Ordinary pages come from a small HTTP server of this script on 127.0.0.1 (an ordinary
// origin); <protected URL> is a page on a protected origin (the test's stand-in).
'use strict';
const http = require('http');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [modules, endpoint, protectedUrl, which] = process.argv.slice(2);
const load = (name) => require(path.join(modules, name));

const PAGE = `<!doctype html><title>Ordinary</title><h1>hello</h1>
<input id="i"><button id="b" onclick="document.getElementById('out').textContent = document.getElementById('i').value">go</button>
<div id="out"></div>
<a id="pop" target="_blank" href="/popup">pop</a>
<a id="dl" href="/file.txt" download="file.txt">dl</a>
<input type="file" id="f">`;

function serve() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const send = (type, body, extra = {}) => {
      res.writeHead(200, { 'content-type': type, ...extra });
      res.end(body);
    };
    switch (url.pathname) {
      case '/page': return send('text/html', PAGE);
      case '/popup': return send('text/html', '<!doctype html><title>Popup</title><p>popup</p>');
      case '/file.txt': return send('application/octet-stream', 'file body\n',
        { 'content-disposition': 'attachment; filename="file.txt"' });
      case '/worker-page': return send('text/html',
        '<!doctype html><title>Worker</title><script>window.w = new Worker("/worker.js")</script>');
      case '/worker.js': return send('text/javascript', 'self.answer = 6 * 7;');
      // A page that moves itself to ?to= (one of WAYS); /hop redirects there.
      case '/nav': {
        const to = url.searchParams.get('to') || '';
        const attr = to.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
        const js = JSON.stringify(to).replace(/</g, '\\u003c');
        const body = {
          link: `<a id="go" href="${attr}">go</a>`,
          location: `<button id="go" onclick='location.href = ${js}'>go</button>`,
          'form get': `<form method="get" action="${attr}"><button id="go">go</button></form>`,
          'form post': `<form method="post" action="${attr}"><input name="a" value="b"><button id="go">go</button></form>`,
          'meta refresh': `<meta http-equiv="refresh" content="1;url=${attr}">`,
          frame: `<iframe id="f" src="/popup"></iframe><button id="go" onclick='document.getElementById("f").contentWindow.location.href = ${js}'>go</button>`,
          popup: `<a id="go" href="${attr}" target="_blank">go</a>`,
        }[url.searchParams.get('how')] || '';
        return send('text/html', `<!doctype html><title>Nav</title>${body}`);
      }
      case '/hop':
        res.writeHead(302, { location: url.searchParams.get('to') || '/page' });
        return res.end();
      case '/cookie': return send('text/html', '<title>Cookie</title>',
        { 'set-cookie': 'served=yes; Path=/' });
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not here');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// A file of the user's to upload (outside the browser's profile, which the proxy protects),
// in a folder made on first use that the run removes when it ends.
let uploadDir;
function uploadFile() {
  uploadDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'slicc-clients-up-'));
  const file = path.join(uploadDir, 'up.txt');
  fs.writeFileSync(file, 'upload body');
  return file;
}

function removeUploads() {
  if (uploadDir !== undefined) fs.rmSync(uploadDir, { recursive: true, force: true });
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

async function main() {
  const server = await serve();
  const base = `http://127.0.0.1:${server.address().port}`;
  const step = async (name, fn) => {
    try {
      const value = await withTimeout(Promise.resolve().then(fn), 30000, name);
      console.log(JSON.stringify({ client: which, step: name, ok: true, value: value === undefined ? null : value }));
      return true;
    } catch (e) {
      console.log(JSON.stringify({ client: which, step: name, ok: false, error: String(e && e.message || e).split('\n')[0] }));
      return false;
    }
  };
  try {
    if (which === 'playwright') await playwright(step, base);
    else if (which === 'puppeteer') await puppeteer(step, base);
    else if (which === 'cri') await cri(step, base);
    else throw new Error(`unknown client ${which}`);
  } finally {
    server.close();
    removeUploads();
  }
  console.log(JSON.stringify({ client: which, step: 'end', ok: true, value: null }));
  // Sockets of a client that failed may hold the loop open.
  process.exit(0);
}

// The worker's answer once its script has run (a worker is reported before it runs), asked
// again from here until it is there.
async function answer(worker) {
  for (let i = 0; i < 100; i++) {
    const got = await worker.evaluate(() => self.answer);
    if (got !== undefined && got !== null) return got;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return null;
}

const magic = (buf) => Buffer.from(buf).subarray(0, 4).toString('latin1');

// Every target the library shows at connect, as text (tests/browser/guard_clients.rs: nothing
// protected or internal may be in it through the guard).
const LISTING = 'listing';

// The ways a page moves itself onto <protected URL> (tests/browser/guard_clients.rs compares them:
// straight the protected page loads; through the guard each must end as that library's
// failed navigation, a blocked frame or no popup, and the page stays usable).
const WAYS = ['link', 'location', 'form get', 'form post', 'meta refresh', 'redirect', 'history', 'frame', 'popup'];
const navUrl = (base, how, to) => `${base}/nav?how=${encodeURIComponent(how)}&to=${encodeURIComponent(to)}`;
// What a failed navigation said: its net error, or the first line of anything else.
const failure = (e) => {
  const m = /net::ERR_[A-Z_]+/.exec(String(e && e.message || e));
  return m ? `failed ${m[0]}` : `error ${String(e && e.message || e).split('\n')[0]}`;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Where a page (or one of its frames) ended: on the protected origin, or not.
const landed = (urls, protectedUrl) => (urls.some((u) => u.startsWith(new URL(protectedUrl).origin)) ? 'loaded' : 'not loaded');

// How each library meets a popup and waits for a page to load: the rest of a way is the
// same calls in both.
const POPUPS = {
  playwright: {
    next: (page) => page.context().waitForEvent('page', { timeout: 3000 }).then((p) => p, () => null),
    loaded: (p) => p.waitForLoadState('load', { timeout: 5000 }),
  },
  puppeteer: {
    next: (page) => new Promise((resolve) => { page.once('popup', resolve); setTimeout(() => resolve(null), 3000); }),
    loaded: (p) => p.waitForFunction(() => document.readyState === 'complete', { timeout: 5000 }),
  },
};

// One way with Playwright or Puppeteer (`page` is on an ordinary page): the outcome in words.
async function way(which, page, base, how, to) {
  const nav = (fn) => Promise.all([page.waitForNavigation({ timeout: 10000 }), fn()]).then(() => landed([page.url()], to), failure);
  if (how === 'redirect') return page.goto(`${base}/hop?to=${encodeURIComponent(to)}`).then(() => landed([page.url()], to), failure);
  if (how === 'meta refresh') {
    await page.goto(navUrl(base, how, to));
    return page.waitForNavigation({ timeout: 10000 }).then(() => landed([page.url()], to), failure);
  }
  if (how === 'history') {
    // The page's own history.back() onto an entry of the protected URL.
    await page.goto(navUrl(base, 'link', to));
    await Promise.all([page.waitForNavigation({ timeout: 10000 }).catch(() => {}), page.click('#go')]);
    await settle(page);
    await page.goto(`${base}/page`);
    // A restore from the back/forward cache is no navigation to wait for: where the page is
    // a moment later tells.
    const waited = page.waitForNavigation({ timeout: 5000 }).then(() => null, (e) => e);
    await page.evaluate(() => { setTimeout(() => history.back(), 0); });
    const e = await waited;
    if (e && /net::ERR_/.test(String(e.message))) return failure(e);
    await sleep(500);
    return landed([page.url()], to);
  }
  await page.goto(navUrl(base, how, to));
  if (how === 'frame') {
    await page.click('#go');
    await sleep(1500);
    return `frame ${landed(page.frames().map((f) => f.url()), to)}`;
  }
  if (how === 'popup') {
    const popup = POPUPS[which].next(page);
    await page.click('#go');
    const p = await popup;
    if (!p) return 'no popup';
    await POPUPS[which].loaded(p).catch(() => {});
    // A popup taken from the client (not its page) is closed under it.
    if (p.isClosed()) return 'no popup';
    const got = `popup ${landed([p.url()], to)}`;
    await p.close().catch(() => {});
    return got;
  }
  return nav(() => page.click('#go'));
}

// After a failed navigation Chromium commits its error page (a moment after reporting the
// failure, as for any network error): a navigation started before that commit is
// interrupted by it. Waits until the page's document is complete.
async function settle(page) {
  await sleep(300);
  await page.waitForFunction(() => document.readyState === 'complete', null, { timeout: 5000 }).catch(() => {});
}

// The ways for a library, each followed by the page's usability (title and a value).
async function ways(step, which, page, base, to) {
  for (const how of WAYS) {
    // A popup onto a protected origin is not the client's, and may load for the user: its
    // own URL, so that the test can tell it from the client's loads.
    const target = how === 'popup' ? `${new URL(to).origin}/app?t=popup-way&n=popup-way` : to;
    await step(`way: ${how}`, () => way(which, page, base, how, target));
    await step(`usable after: ${how}`, async () => {
      await settle(page);
      await page.goto(`${base}/page`);
      return [await page.title(), await page.evaluate(() => 6 * 7)];
    });
  }
}

async function playwright(step, base) {
  const { chromium } = load('playwright-core');
  let browser, context, page;
  if (!await step('connect', async () => {
    browser = await chromium.connectOverCDP(endpoint);
    return browser.isConnected();
  })) return;
  await step(LISTING, async () => Promise.all(browser.contexts().flatMap((c) => c.pages())
    .map(async (p) => `${p.url()} ${await p.title().catch(() => '')}`)));
  await step('new context and page', async () => {
    context = await browser.newContext();
    page = await context.newPage();
    return context.pages().length;
  });
  await step('goto', async () => {
    const r = await page.goto(`${base}/page`);
    return [r.status(), await page.title()];
  });
  await step('evaluate', () => page.evaluate(() => [document.querySelector('h1').textContent, 6 * 7]));
  await step('content', async () => (await page.content()).includes('<h1>hello</h1>'));
  await step('screenshot', async () => magic(await page.screenshot()));
  await step('pdf', async () => magic(await page.pdf()));
  await step('click and type', async () => {
    await page.fill('#i', 'typed text');
    await page.click('#b');
    await page.type('#i', '!');
    return [await page.textContent('#out'), await page.inputValue('#i')];
  });
  await step('upload', async () => {
    await page.setInputFiles('#f', uploadFile());
    return page.evaluate(() => document.getElementById('f').files[0].text());
  });
  await step('cookies add and read', async () => {
    await context.addCookies([{ name: 'added', value: 'v1', url: base }]);
    await page.goto(`${base}/cookie`);
    const names = (await context.cookies(base)).map((c) => `${c.name}=${c.value}`).sort();
    return [names, await page.evaluate(() => document.cookie.split('; ').sort())];
  });
  await step('cookies clear', async () => {
    await context.clearCookies();
    return (await context.cookies(base)).length;
  });
  await step('route fulfil', async () => {
    await page.route('**/routed', (route) => route.fulfill({ contentType: 'text/html', body: '<title>Routed</title><p>fulfilled</p>' }));
    await page.goto(`${base}/routed`);
    const text = await page.textContent('p');
    await page.unroute('**/routed');
    return [await page.title(), text];
  });
  await step('popup', async () => {
    await page.goto(`${base}/page`);
    const [popup] = await Promise.all([context.waitForEvent('page'), page.click('#pop')]);
    await popup.waitForLoadState();
    const title = await popup.title();
    await popup.close();
    return title;
  });
  await step('popup event', async () => {
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.evaluate((u) => { window.open(u); }, `${base}/popup`)]);
    await popup.waitForLoadState();
    const title = await popup.title();
    await popup.close();
    return title;
  });
  await step('several pages', async () => {
    const pages = await Promise.all([1, 2, 3].map(() => context.newPage()));
    await Promise.all(pages.map((p, i) => p.goto(`${base}/page?n=${i}`)));
    const got = await Promise.all(pages.map((p) => p.evaluate(() => location.search)));
    await Promise.all(pages.map((p) => p.close()));
    return [got, context.pages().length];
  });
  // A tab made with a URL by someone else (here a browser CDP session; the user's new tab the
  // same): Chromium starts its first navigation before any session exists, and the proxy
  // announces it once that document committed.
  await step('tab made with a URL', async () => {
    const cdp = await browser.newBrowserCDPSession();
    const [tab] = await Promise.all([
      browser.contexts()[0].waitForEvent('page'),
      cdp.send('Target.createTarget', { url: `${base}/page?n=tab` }),
    ]);
    await tab.waitForLoadState();
    const got = [new URL(tab.url()).search, await tab.title(), await tab.evaluate(() => 6 * 7)];
    await tab.close();
    await cdp.detach();
    return got;
  });
  await step('download', async () => {
    await page.goto(`${base}/page`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#dl')]);
    const file = await download.path();
    return [download.suggestedFilename(), fs.readFileSync(file, 'utf8')];
  });
  await step('worker', async () => {
    const [worker] = await Promise.all([page.waitForEvent('worker'), page.goto(`${base}/worker-page`)]);
    return answer(worker);
  });
  await step('protected navigation', async () => {
    const r = await page.goto(protectedUrl);
    return r ? r.status() : null;
  });
  await step('usable after protected', async () => {
    await page.goto(`${base}/page`);
    return page.evaluate(() => document.title);
  });
  await ways(step, 'playwright', page, base, protectedUrl);
  await step('close page', async () => {
    await page.close();
    return [page.isClosed(), context.pages().length];
  });
  await step('close context', async () => {
    await context.close();
    return browser.contexts().length;
  });
  await step('close connection', async () => {
    const gone = new Promise((resolve) => browser.once('disconnected', resolve));
    await browser.close();
    await gone;
    return browser.isConnected();
  });
  await step('reconnect', async () => {
    browser = await chromium.connectOverCDP(endpoint);
    const c = await browser.newContext();
    const p = await c.newPage();
    await p.goto(`${base}/page`);
    const title = await p.title();
    await c.close();
    await browser.close();
    return title;
  });
}

async function puppeteer(step, base) {
  const pptr = load('puppeteer-core');
  let browser, context, page;
  if (!await step('connect', async () => {
    browser = await pptr.connect({ browserURL: endpoint, defaultViewport: { width: 800, height: 600 } });
    return browser.connected;
  })) return;
  await step(LISTING, async () => browser.targets().map((t) => `${t.type()} ${t.url()}`));
  await step('new context and page', async () => {
    context = await browser.createBrowserContext();
    page = await context.newPage();
    return (await context.pages()).length;
  });
  await step('goto', async () => {
    const r = await page.goto(`${base}/page`);
    return [r.status(), await page.title()];
  });
  await step('evaluate', () => page.evaluate(() => [document.querySelector('h1').textContent, 6 * 7]));
  await step('content', async () => (await page.content()).includes('<h1>hello</h1>'));
  await step('screenshot', async () => magic(await page.screenshot()));
  await step('pdf', async () => magic(await page.pdf()));
  await step('click and type', async () => {
    await page.type('#i', 'typed text');
    await page.click('#b');
    return page.$eval('#out', (e) => e.textContent);
  });
  await step('upload', async () => {
    await (await page.$('#f')).uploadFile(uploadFile());
    return page.evaluate(() => document.getElementById('f').files[0].text());
  });
  await step('cookies add and read', async () => {
    await page.setCookie({ name: 'added', value: 'v1', url: base });
    await page.goto(`${base}/cookie`);
    return (await page.cookies()).map((c) => `${c.name}=${c.value}`).sort();
  });
  await step('cookies clear', async () => {
    for (const c of await page.cookies()) await page.deleteCookie({ name: c.name, url: base });
    return (await page.cookies()).length;
  });
  await step('request interception', async () => {
    await page.setRequestInterception(true);
    const handler = (req) => {
      if (req.url().endsWith('/routed')) req.respond({ contentType: 'text/html', body: '<title>Routed</title><p>fulfilled</p>' });
      else req.continue();
    };
    page.on('request', handler);
    await page.goto(`${base}/routed`);
    const text = await page.$eval('p', (e) => e.textContent);
    const title = await page.title();
    await page.goto(`${base}/page`);
    page.off('request', handler);
    await page.setRequestInterception(false);
    return [title, text];
  });
  await step('popup', async () => {
    await page.goto(`${base}/page`);
    const [popup] = await Promise.all([
      new Promise((resolve) => page.once('popup', resolve)),
      page.click('#pop'),
    ]);
    await popup.waitForFunction(() => document.readyState === 'complete');
    const title = await popup.title();
    await popup.close();
    return title;
  });
  await step('several pages', async () => {
    const pages = await Promise.all([1, 2, 3].map(() => context.newPage()));
    await Promise.all(pages.map((p, i) => p.goto(`${base}/page?n=${i}`)));
    const got = await Promise.all(pages.map((p) => p.evaluate(() => location.search)));
    await Promise.all(pages.map((p) => p.close()));
    return [got, (await context.pages()).length];
  });
  await step('tab made with a URL', async () => {
    const cdp = await browser.target().createCDPSession();
    const [target] = await Promise.all([
      browser.waitForTarget((t) => t.url().includes('n=tab')),
      cdp.send('Target.createTarget', { url: `${base}/page?n=tab` }),
    ]);
    const tab = await target.page();
    await tab.waitForFunction(() => document.readyState === 'complete');
    const got = [new URL(tab.url()).search, await tab.title(), await tab.evaluate(() => 6 * 7)];
    await tab.close();
    await cdp.detach();
    return got;
  });
  await step('download', async () => {
    // Puppeteer has no download event: a context whose downloads go to a folder of ours
    // (Browser.setDownloadBehavior), and the file looked for there.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slicc-clients-dl-'));
    try {
      const c = await browser.createBrowserContext({ downloadBehavior: { policy: 'allow', downloadPath: dir } });
      const p = await c.newPage();
      await p.goto(`${base}/page`);
      await p.click('#dl');
      const file = path.join(dir, 'file.txt');
      // Chromium reserves the name with an empty file.txt while the bytes go to a .crdownload
      // file, then renames that onto it: only a non-empty file.txt is the finished download.
      const done = () => fs.existsSync(file) && fs.statSync(file).size > 0;
      for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
      if (!done()) throw new Error('no finished file.txt in the download folder');
      const body = fs.readFileSync(file, 'utf8');
      await c.close();
      return body;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  await step('worker', async () => {
    const [worker] = await Promise.all([
      new Promise((resolve) => page.once('workercreated', resolve)),
      page.goto(`${base}/worker-page`),
    ]);
    return answer(worker);
  });
  await step('protected navigation', async () => {
    const r = await page.goto(protectedUrl);
    return r ? r.status() : null;
  });
  await step('usable after protected', async () => {
    await page.goto(`${base}/page`);
    return page.evaluate(() => document.title);
  });
  await ways(step, 'puppeteer', page, base, protectedUrl);
  await step('close page', async () => {
    await page.close();
    return [page.isClosed(), (await context.pages()).length];
  });
  await step('close context', async () => {
    await context.close();
    return browser.browserContexts().length;
  });
  await step('close connection', async () => {
    await browser.disconnect();
    return browser.connected;
  });
  await step('reconnect', async () => {
    browser = await pptr.connect({ browserURL: endpoint });
    const c = await browser.createBrowserContext();
    const p = await c.newPage();
    await p.goto(`${base}/page`);
    const title = await p.title();
    await c.close();
    await browser.disconnect();
    return title;
  });
}

async function cri(step, base) {
  const CDP = load('chrome-remote-interface');
  const { hostname: host, port } = new URL(endpoint);
  let client, session, targetId;
  await step('version', async () => {
    const v = await CDP.Version({ host, port });
    return typeof v.webSocketDebuggerUrl === 'string' && v['Protocol-Version'];
  });
  if (!await step('connect', async () => {
    const v = await CDP.Version({ host, port });
    client = await CDP({ host, port, target: v.webSocketDebuggerUrl });
    const got = await client.send('Browser.getVersion');
    return typeof got.product;
  })) return;
  await step(LISTING, async () => {
    const { targetInfos } = await client.send('Target.getTargets');
    const listed = await CDP.List({ host, port });
    return [...targetInfos.map((t) => `${t.type} ${t.url} ${t.title}`), ...listed.map((t) => `list ${t.url} ${t.title}`)];
  });
  await step('new page', async () => {
    ({ targetId } = await client.send('Target.createTarget', { url: 'about:blank' }));
    ({ sessionId: session } = await client.send('Target.attachToTarget', { targetId, flatten: true }));
    await client.send('Page.enable', {}, session);
    await client.send('Runtime.enable', {}, session);
    return typeof session;
  });
  await step('list', async () => {
    const list = await CDP.List({ host, port });
    return list.some((t) => t.id === targetId);
  });
  await step('goto', async () => {
    const loaded = new Promise((resolve) => client.on(`Page.loadEventFired.${session}`, resolve));
    const r = await client.send('Page.navigate', { url: `${base}/page` }, session);
    await loaded;
    return typeof r.frameId;
  });
  await step('evaluate', async () => {
    const r = await client.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true }, session);
    return r.result.value;
  });
  await step('screenshot', async () => {
    const r = await client.send('Page.captureScreenshot', {}, session);
    return magic(Buffer.from(r.data, 'base64'));
  });
  await step('network events', async () => {
    await client.send('Network.enable', {}, session);
    const seen = [];
    client.on(`Network.responseReceived.${session}`, (p) => seen.push(p.response.status));
    const loaded = new Promise((resolve) => client.on(`Page.loadEventFired.${session}`, resolve));
    await client.send('Page.navigate', { url: `${base}/page?net` }, session);
    await loaded;
    return seen.includes(200);
  });
  await step('cookies add, read and clear', async () => {
    await client.send('Network.setCookie', { name: 'added', value: 'v1', url: base }, session);
    const read = async () => (await client.send('Network.getCookies', { urls: [base] }, session))
      .cookies.map((c) => `${c.name}=${c.value}`).sort();
    const added = await read();
    if (!added.includes('added=v1')) throw new Error(`the cookie was not set: ${added}`);
    await client.send('Network.deleteCookies', { name: 'added', url: base }, session);
    return [added, await read()];
  });
  await step('protected navigation', async () => {
    const r = await client.send('Page.navigate', { url: protectedUrl }, session);
    return r.errorText || 'navigated';
  });
  await step('usable after protected', async () => {
    const r = await client.send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true }, session);
    return r.result.value;
  });
  // The main-frame ways, read from the events a CDP client sees: the document's request
  // failing (Network.loadingFailed), or a commit on the protected origin.
  const goto = async (url, { leaves = false } = {}) => {
    const loaded = new Promise((resolve) => client.once(`Page.loadEventFired.${session}`, resolve));
    await client.send('Page.navigate', { url }, session);
    await loaded;
    // The load event of the page before may have ended that wait (Chromium orders a domain's
    // events, not one domain's against another's answers): until this page is the one loaded,
    // so that a way's click finds its link (on a loaded machine it found the page before's).
    const here = `location.href === ${JSON.stringify(new URL(url).href)} && document.readyState === 'complete'`;
    // (A page that leaves on its own, the refresh, is not waited for.)
    for (let i = 0; !leaves && i < 50; i++) {
      // (A page may be between documents: asked again.)
      const r = await client.send('Runtime.evaluate', { expression: here, returnByValue: true }, session).catch(() => null);
      if (r && r.result && r.result.value) break;
      await sleep(100);
    }
  };
  for (const how of ['link', 'location', 'form get', 'form post', 'meta refresh', 'redirect']) {
    await step(`way: ${how}`, async () => {
      const origin = new URL(protectedUrl).origin;
      // The 10 s count from the way's trigger (the click, the refresh page's load, the
      // redirect's navigation), not from before the page holding it loaded: on a loaded
      // machine that load alone took seconds, and the straight leg ran out of time.
      let wait;
      const outcome = new Promise((resolve) => {
        const failed = (p) => { if (p.type === 'Document') resolve(`failed ${p.errorText}`); };
        const navigated = (p) => { if (!p.frame.parentId && p.frame.url.startsWith(origin)) resolve('loaded'); };
        client.on(`Network.loadingFailed.${session}`, failed);
        client.on(`Page.frameNavigated.${session}`, navigated);
        wait = () => setTimeout(() => resolve('nothing in 10 s'), 10000);
      });
      if (how === 'redirect') {
        client.send('Page.navigate', { url: `${base}/hop?to=${encodeURIComponent(protectedUrl)}` }, session).catch(() => {});
      } else {
        await goto(navUrl(base, how, protectedUrl), { leaves: how === 'meta refresh' });
        if (how !== 'meta refresh') {
          await client.send('Runtime.evaluate', { expression: "document.getElementById('go').click()" }, session);
        }
      }
      wait();
      const got = await outcome;
      client.removeAllListeners(`Network.loadingFailed.${session}`);
      client.removeAllListeners(`Page.frameNavigated.${session}`);
      return got;
    });
    await step(`usable after: ${how}`, async () => {
      await goto(`${base}/page`);
      // A load event of the page before it may have ended the wait: until this one is in.
      const ready = "location.pathname === '/page' && document.readyState === 'complete'";
      for (let i = 0; i < 50; i++) {
        const r = await client.send('Runtime.evaluate', { expression: ready, returnByValue: true }, session);
        if (r.result.value) break;
        await sleep(100);
      }
      const r = await client.send('Runtime.evaluate', { expression: '[document.title, 6 * 7]', returnByValue: true }, session);
      return r.result.value;
    });
  }
  await step('close page', async () => {
    const r = await client.send('Target.closeTarget', { targetId });
    return r.success;
  });
  await step('close connection', async () => {
    await client.close();
    return true;
  });
  await step('reconnect', async () => {
    const v = await CDP.Version({ host, port });
    client = await CDP({ host, port, target: v.webSocketDebuggerUrl });
    const { targetInfos } = await client.send('Target.getTargets');
    await client.close();
    return Array.isArray(targetInfos);
  });
}

main().catch((e) => {
  console.log(JSON.stringify({ client: which, step: 'script', ok: false, error: String(e && e.stack || e) }));
  process.exit(1);
});
