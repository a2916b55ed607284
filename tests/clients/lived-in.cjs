// Leaves a browser lived in, straight over CDP, before any client connects through the guard
// (tests/browser/guard_clients.rs): a tab whose back/forward list holds a protected page, a protected
// origin's service worker registered, a protected tab and its titled about:blank popup, an
// internal page, an ordinary page framing a protected one (another process) and a second
// browser context with a protected tab. The pages are the attack suite's app
// (tests/attacks/app.rs) on <seven> and <vault>, and its ordinary pages on <ordinary>.
//
//   node lived-in.cjs <node_modules dir> <endpoint http://host:port> <seven> <vault> <ordinary>
//
// Prints one JSON line: {"targets": [{type, url, title}, ...]} as the browser lists them
// straight, once the state is there; exits non-zero when it could not make it.
'use strict';
const path = require('path');

const [modules, endpoint, seven, vault, ordinary] = process.argv.slice(2);
const CDP = require(path.join(modules, 'chrome-remote-interface'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const { hostname: host, port } = new URL(endpoint);
  const version = await CDP.Version({ host, port });
  const c = await CDP({ host, port, target: version.webSocketDebuggerUrl });
  const sessions = [];
  const open = async (url, browserContextId) => {
    const { targetId } = await c.send('Target.createTarget', { url, ...(browserContextId ? { browserContextId } : {}) });
    return targetId;
  };
  const attach = async (targetId) => {
    const { sessionId } = await c.send('Target.attachToTarget', { targetId, flatten: true });
    sessions.push(sessionId);
    return sessionId;
  };
  const evaluate = async (session, expression) => {
    const r = await c.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true, userGesture: true }, session);
    return r.result.value;
  };
  const until = async (session, expression, what) => {
    for (let i = 0; i < 100; i++) {
      if (await evaluate(session, expression).catch(() => false)) return;
      await sleep(100);
    }
    throw new Error(`lived-in: ${what} did not happen within 10 s`);
  };
  const navigate = async (session, url) => {
    await c.send('Page.navigate', { url }, session);
    await until(session, `location.href === ${JSON.stringify(url)} && document.readyState === 'complete'`, `the load of ${url}`);
  };

  // A tab that went to seven (which registered its service worker) and then on to an
  // ordinary page: its back/forward list holds seven.
  const history = await open(`${seven}/app?t=history&sw=1`);
  const h = await attach(history);
  await until(h, "document.readyState === 'complete' && navigator.serviceWorker.getRegistration().then((r) => !!r)", 'the service worker registration');
  await navigate(h, `${ordinary}/page?t=after`);
  // A protected tab and the about:blank popup it opened, titled by it.
  const vaultTab = await open(`${vault}/popup?t=popup`);
  const v = await attach(vaultTab);
  await until(v, "document.readyState === 'complete' && typeof openBlank === 'function'", 'the vault page');
  if (!await evaluate(v, 'openBlank()')) throw new Error('lived-in: no popup');
  // An internal page.
  const internal = await open('about:blank');
  await navigate(await attach(internal), 'chrome://version/');
  // An ordinary page framing seven (a cross-site frame: another process).
  const framing = await open(`${ordinary}/page?t=framing&frame=${encodeURIComponent(`${seven}/app?t=framed`)}`);
  await until(await attach(framing), "document.readyState === 'complete'", 'the framing page');
  // A second browser context with a protected tab.
  const { browserContextId } = await c.send('Target.createBrowserContext');
  const other = await open(`${vault}/app?t=context`, browserContextId);
  await until(await attach(other), "document.readyState === 'complete'", 'the other context\'s vault page');

  for (const sessionId of sessions) await c.send('Target.detachFromTarget', { sessionId }).catch(() => {});
  await sleep(300);
  const { targetInfos } = await c.send('Target.getTargets');
  console.log(JSON.stringify({ targets: targetInfos.map((t) => ({ type: t.type, url: t.url, title: t.title })) }));
  await c.close();
}

main().then(() => process.exit(0), (e) => {
  console.error(String(e && e.stack || e));
  process.exit(1);
});
