// npm run test:guard / npm run test:guard-target: the JavaScript runner (guard-runner.mjs)
// against headless Chromium with no guard, the stand-in from fixture.mjs, one target per
// Chromium. A row behaves when its control passes and its guarded leg fails with at least one
// guarded expectation observed the other way (the spec: "controls must pass and guarded
// expectations must fail"); a text row is not run; a skip says why.
//
//   node scripts/test-guard.mjs [--target T]... [--id ID]... [--variant V]... [--parallel N]
//        [--vectors FILE] [--origins FILE] [--proxy <slicc-browsers binary>] [--certify]
//        [--standin <origin>] [--json]
//
// GUARD_TARGET=seven picks one target (test:guard-target); without it, seven and own.
// --proxy runs every row's guarded client through `<binary> guard proxy` in front of the
// browser (the observer goes straight to it); with --certify, rows must pass (GUARD-PASS rules)
// instead of behaving as unguarded ones (a pass counts as behaved, a text row as skipped).
// --standin uses a stand-in already serving at <origin> (the crate's `slicc-browsers guard
// fixture`) instead of fixture.mjs. Ends with `test:guard: <rows> rows, <b> behaved,
// <m> misbehaved, <s> skipped`, exit 1 when a row misbehaved.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../guard-runner.mjs';
import { fixtureServer } from '../fixture.mjs';
import { connect } from './guard-kit/cdp.mjs';
import { launch } from './guard-kit/chromium.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const HOSTS = ['ordinary.test', 'plain.example', 'plain.ordinary.test', 'cross.example', 'client.example', 'other.client.example', 'seven.sliccy.ai', 'vault.sliccy.ai', 'vault-x.sliccy.ai', 'sliccy.ai', 'www.sliccy.ai'];

/** The self-test's origin map for rows on `target` (the crate's `selftest::origins_for`). */
export function originsFor(target) {
  return {
    ordinary: 'http://ordinary.test', plain: 'http://plain.example', log: 'http://ordinary.test', cross: 'http://cross.example',
    client: 'http://client.example', own: 'http://client.example', seven: 'http://seven.sliccy.ai', vault: 'http://vault.sliccy.ai',
    'vault-x': 'http://vault-x.sliccy.ai', apex: 'http://sliccy.ai', 'ordinary-same-site': target === 'own' ? 'http://other.client.example' : null,
  };
}

function args(argv) {
  const o = { targets: [], ids: [], variants: [], parallel: 2, json: false, certify: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--target') o.targets.push(value());
    else if (a === '--id') o.ids.push(value());
    else if (a === '--variant') o.variants.push(value());
    else if (a === '--parallel') o.parallel = Number(value());
    else if (a === '--vectors') o.vectors = value();
    else if (a === '--origins') o.origins = value();
    else if (a === '--proxy') o.proxy = value();
    else if (a === '--standin') o.standin = value();
    else if (a === '--json') o.json = true;
    else if (a === '--certify') o.certify = true;
    else if (a === '--require-target') o.requireTarget = true;
    else throw new Error(`unknown argument ${a} (see the header of scripts/test-guard.mjs)`);
  }
  if (o.requireTarget && !process.env.GUARD_TARGET) throw new Error('test:guard-target needs GUARD_TARGET (GUARD_TARGET=seven npm run test:guard-target)');
  if (o.targets.length === 0) o.targets = process.env.GUARD_TARGET ? [process.env.GUARD_TARGET] : ['seven', 'own'];
  if (!Number.isInteger(o.parallel) || o.parallel < 1) throw new Error('--parallel needs a whole number, 1 or more');
  return o;
}

/** The spec's self-test rule on a judged row: behaved, skipped (why) or misbehaved (why). */
export function verdict(vector, row) {
  if ([row.control, row.guarded, row.live].includes('skip')) return ['skipped', [row.reason ?? 'skip']];
  if ([row.control, row.guarded, row.live].includes('not-run')) return ['skipped', ['not-run']];
  if (row.control !== 'pass') return ['misbehaved', [`control: ${row.control}`, ...row.errors]];
  const seen = (row.observations && row.observations.guarded) || {};
  const worked = Object.entries(vector.expected).some(([name, want]) => typeof want === 'boolean' && seen[name] === !want);
  if (row.guarded === 'fail' && worked) return ['behaved', []];
  return ['misbehaved', [`guarded: ${row.guarded}, and no guarded expectation came out the other way (the attack should work unguarded)`, ...row.errors.filter((e) => !(e.startsWith('guarded: ') && e.includes(', expected ')))]];
}

/** A stand-in served elsewhere, in the fixture's shape: its log read from `<origin>/log?n=`. */
function remoteStandIn(origin) {
  const port = Number(new URL(origin).port);
  if (!port) throw new Error(`--standin ${origin}: needs an explicit port`);
  return {
    origin,
    port,
    log: async () => (await (await fetch(`${origin}/log?n=`)).json()).hits,
    reset() {},
    close: async () => {},
  };
}

function startProxy(binary, upstream, own) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['guard', 'proxy', '--upstream', upstream, '--origin', own], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    const timer = setTimeout(() => {
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
      reject(new Error('guard proxy printed no webSocketDebuggerUrl within 30 s'));
    }, 30000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`guard proxy: ${e.message}`));
    });
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/webSocketDebuggerUrl (\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ wsUrl: m[1], kill: () => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } } });
      }
    });
  });
}

async function main() {
  const o = args(process.argv.slice(2));
  const set = JSON.parse(readFileSync(o.vectors ?? join(root, 'guard-vectors.json'), 'utf8'));
  const fixedOrigins = o.origins ? JSON.parse(readFileSync(o.origins, 'utf8')) : undefined;
  const counts = { rows: 0, behaved: 0, misbehaved: 0, skipped: 0 };
  const failures = [];
  for (const target of o.targets) {
    // Another stand-in (the crate's `slicc-browsers guard fixture`), read through its /log route.
    const fixture = o.standin ? remoteStandIn(o.standin) : await fixtureServer();
    // One browser (and proxy) per parallel slot: browser-wide settings of one row (a
    // browser-session Fetch, auto-attach) must not reach another (the spec's `slot`).
    const slots = new Map();
    const slotBrowser = async (slot) => {
      if (!slots.has(slot)) {
        slots.set(slot, (async () => {
          const browser = await launch(HOSTS, fixture.port);
          const proxy = o.proxy ? await startProxy(o.proxy, browser.httpUrl, 'http://client.example').catch((e) => { browser.kill(); throw e; }) : undefined;
          return { browser, proxy };
        })());
      }
      return slots.get(slot);
    };
    try {
      const execution = await run(set, {
        targets: fixedOrigins ?? originsFor(target),
        capabilities: { autoAttach: true, browserSession: true, browserContexts: true },
        variant: o.variants.length ? o.variants : ['prompt'],
        parallel: o.parallel,
        fixture,
        ids: o.ids.length ? o.ids : undefined,
        transport: o.proxy ? 'proxy' : 'cdp',
        runTargets: [target],
        clientFactory: async ({ slot }) => {
          const { browser, proxy } = await slotBrowser(slot);
          const client = await connect(proxy ? proxy.wsUrl : browser.wsUrl);
          const unguarded = await connect(browser.wsUrl).catch((e) => { client.close(); throw e; });
          return { client, unguarded, close: () => { client.close(); unguarded.close(); } };
        },
        log: (row) => {
          const vector = set.vectors.find((v) => v.id === row.id);
          const passed = [row.control, row.guarded, row.live].every((x) => x === 'pass');
          const skipped = [row.control, row.guarded, row.live].some((x) => x === 'skip' || x === 'not-run');
          const [v, why] = o.certify ? (passed ? ['behaved', []] : skipped ? ['skipped', [row.reason ?? 'not-run']] : ['misbehaved', row.errors]) : verdict(vector, row);
          counts.rows++;
          counts[v]++;
          if (v === 'misbehaved') failures.push(`MISBEHAVED ${row.id} ${row.target} ${row.variant}\n  ${why.join('\n  ')}`);
          if (o.json) console.log(JSON.stringify({ ...row, selftest: v, why }));
        },
      });
      if (!o.json) console.error(`${target}: ${execution.summary({ guard: o.proxy ? 'slicc-browsers-proxy' : 'no-guard', sha: 'local' }).line}`);
    } finally {
      for (const s of slots.values()) {
        const { browser, proxy } = await s.catch(() => ({}));
        if (proxy) proxy.kill();
        if (browser) browser.kill();
      }
      await fixture.close();
    }
  }
  for (const f of failures) console.log(f);
  console.log(`test:guard: ${counts.rows} rows, ${counts.behaved} behaved, ${counts.misbehaved} misbehaved, ${counts.skipped} skipped`);
  process.exit(counts.misbehaved > 0 || counts.rows === 0 ? 1 : 0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main().catch((e) => {
    console.error(`test:guard: ${e && e.message ? e.message : e}`);
    process.exit(2);
  });
}
