// The runner's errors and bounds without a browser: a bad vector file and a client of the wrong
// shape are refused before anything runs, with what and where; a client that never answers
// does not hang the run (every call and every leg is bounded). Prints one JSON object.
import { readFileSync } from 'node:fs';
import { run } from '../../guard-runner.mjs';
import { originsFor } from '../../scripts/test-guard.mjs';

const set = JSON.parse(readFileSync(new URL('../../guard-vectors.json', import.meta.url), 'utf8'));
const out = {};
const message = async (f) => {
  try {
    await f();
    return null;
  } catch (e) {
    return e.message;
  }
};
const never = { send: () => new Promise(() => {}), waitEvent: () => new Promise(() => {}), events: [] };
const targets = originsFor('seven');
out.badVersion = await message(() => run({ ...set, schemaVersion: 2 }, { client: never, targets }));
out.noCheck = await message(() => run({ ...set, vectors: [{ ...set.vectors.find((v) => v.id === 'C1.script-nav'), observe: {} }] }, { client: never, targets }));
out.wrongClient = await message(() => run(set, { client: { send: 1 }, targets }));
out.wrongFactory = await message(() => run({ ...set, vectors: [set.vectors.find((v) => v.id === 'C1.script-nav')] }, { clientFactory: () => ({ nope: true }), targets, runTargets: ['seven'], variant: 'prompt' }).then((r) => { if (r.results[0].errors.length) throw new Error(r.results[0].errors.join('; ')); }));
out.badOrigin = await message(() => run(set, { client: never, targets: { ...targets, seven: 'seven.sliccy.ai' } }));
const started = Date.now();
const r = await run({ ...set, vectors: [set.vectors.find((v) => v.id === 'C1.script-nav')] }, {
  client: never, unguarded: never, targets, runTargets: ['seven'], variant: 'prompt', callTimeout: 200, legTimeout: 3000,
  fixture: { log: () => [] },
});
out.hung = { ms: Date.now() - started, row: r.results[0] };
console.log(JSON.stringify(out));
process.exit(0);
