// guard-driver.mjs's driving calls against headless Chromium (no guard): instrument() puts the
// beacon into every new document of a session, load() waits for its own navigation's load,
// popup() finds a popup by its opener, call() and isRefusal() read answers. Prints JSON.
import * as D from '../../guard-driver.mjs';
import { fixtureServer } from '../../fixture.mjs';
import { connect } from '../../scripts/guard-kit/cdp.mjs';
import { launch } from '../../scripts/guard-kit/chromium.mjs';

const fixture = await fixtureServer();
const browser = await launch(['ordinary.test', 'seven.sliccy.ai'], fixture.port);
const out = {};
try {
  const client = await connect(browser.wsUrl);
  await client.send('Target.setDiscoverTargets', { discover: true });
  const { targetId } = await client.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await client.send('Target.attachToTarget', { targetId, flatten: true });
  out.identifier = typeof (await D.instrument(client, sessionId, 'http://ordinary.test', 'tagA')) === 'string';
  out.load = await D.load(client, sessionId, 'http://seven.sliccy.ai/doc?n=tagA');
  await new Promise((r) => setTimeout(r, 500));
  out.beacon = fixture.log().some((e) => e.url.startsWith('http://ordinary.test/beacon?tag=tagA&origin=http%3A%2F%2Fseven.sliccy.ai'));
  out.failedLoad = await D.load(client, sessionId, 'http://127.0.0.1:1/');
  const opened = D.popup(client, targetId);
  await client.send('Runtime.evaluate', { expression: "window.open('http://ordinary.test/doc?n=pop', '_blank'); 1", userGesture: true }, sessionId);
  const info = await opened;
  out.popup = { type: info.type, opener: info.openerId === targetId };
  out.call = await D.call(client, { cdp: 'Page.navigate', params: { url: 'http://ordinary.test/doc?n=x' } }, 'no-such-session');
  out.refusal = D.isRefusal({ ok: false, error: { code: -32000, message: 'slicc: refused: target is on seven\'s origin' } }, { refusal: { match: '[Rr]efused' } });
  out.notRefusal = D.isRefusal(out.call, { refusal: { match: '[Rr]efused' } });
  client.close();
} finally {
  browser.kill();
  await fixture.close();
}
console.log(JSON.stringify(out));
process.exit(0);
