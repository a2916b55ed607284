// The spec's example (Reference runner), as written, against headless Chromium with no guard.
// The test supplies what the example leaves to its reader (configureTestOrigins,
// connectGuardAndObserver: a Chromium per slot, client and observer straight to it) and limits
// the set to the vectors named on the command line, so that it ends in minutes. Prints the
// summary as JSON.
import { readFileSync } from 'node:fs';
import { connect } from '../../scripts/guard-kit/cdp.mjs';
import { launch } from '../../scripts/guard-kit/chromium.mjs';
import { originsFor } from '../../scripts/test-guard.mjs';

const full = JSON.parse(readFileSync(new URL('../../guard-vectors.json', import.meta.url), 'utf8'));
const ids = process.argv.slice(2);
const set = { ...full, vectors: full.vectors.filter((v) => ids.includes(v.id)) };
const HOSTS = ['ordinary.test', 'plain.example', 'cross.example', 'client.example', 'seven.sliccy.ai', 'vault.sliccy.ai', 'vault-x.sliccy.ai', 'sliccy.ai'];
let port;
const browsers = new Map();
async function configureTestOrigins(p) {
  port = p;
  return originsFor('seven');
}
async function connectGuardAndObserver({ slot }) {
  if (!browsers.has(slot)) browsers.set(slot, launch(HOSTS, port));
  const browser = await browsers.get(slot);
  const client = await connect(browser.wsUrl);
  const unguarded = await connect(browser.wsUrl);
  return { client, unguarded, close: () => { client.close(); unguarded.close(); } };
}

// The example, as the spec writes it:
import { run } from '../../guard-runner.mjs';
import { fixtureServer } from '../../fixture.mjs';
const fixture = await fixtureServer();
const targets = await configureTestOrigins(fixture.port);
const capabilities = {
  autoAttach: true,
  browserSession: true,
  browserContexts: true,
};
const execution = await run(set, {
  clientFactory: (metadata) => connectGuardAndObserver(metadata),
  targets,
  capabilities,
  variant: ['prompt', 'lagging'],
  parallel: 6,
  fixture,
});
console.log(JSON.stringify(execution.summary({ guard: 'my-guard', sha: 'build-sha' })));
await fixture.close();

for (const b of browsers.values()) (await b).kill();
process.exit(0);
