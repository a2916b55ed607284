// The npm package @ai-ecoverse/slicc-browsers (package.json at the repository root).
//
//   node scripts/npm-package.mjs files   `npm pack --dry-run`: the package holds exactly what
//                                        package.json exports (and the guard kit's .d.mts),
//                                        plus package.json, README.md and LICENSE, and every
//                                        export's file is in it
//   node scripts/npm-package.mjs test    `npm pack`, then install the tarball into a temp dir
//                                        (offline: the package has no dependencies), import it
//                                        by name there and run every vector of its
//                                        protected.json through its protected.mjs
//
// Each ends with "N passed, N failed" and exits 1 on any failure.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

function files() {
  const [packed] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], root));
  const got = packed.files.map((f) => f.path).sort();
  const exported = [...new Set(Object.values(pkg.exports).map((p) => p.replace(/^\.\//, '')))];
  // The guard kit's modules ship their type declarations beside them (TypeScript reads
  // `x.d.mts` for `x.mjs`).
  const types = exported.filter((f) => /^(guard-driver|guard-runner|fixture)\.mjs$/.test(f)).map((f) => f.replace(/\.mjs$/, '.d.mts'));
  const want = [...new Set([...exported, ...types, 'package.json', 'README.md', 'LICENSE'])].sort();
  const problems = [];
  for (const f of want) if (!got.includes(f)) problems.push(`missing from the package: ${f}`);
  for (const f of got) if (!want.includes(f)) problems.push(`in the package but not exported: ${f}`);
  if (types.length !== 3) problems.push(`the guard kit's type declarations: ${types.join(', ')}`);
  // Every schema of the repository is exported, as the spec lists them.
  for (const f of ['catalog', 'browsers', 'corpus', 'protected', 'guard-vectors']) {
    if (!pkg.exports[`./schema/${f}.schema.json`]) problems.push(`not exported: ./schema/${f}.schema.json`);
  }
  if (pkg.exports['.'] !== './catalog.json') problems.push('the "." export is not ./catalog.json');
  if (Object.keys(pkg.dependencies ?? {}).length) problems.push('the package has dependencies');
  // The guard kit: the three modules in, as the spec names them; no test or script out.
  for (const [name, file] of [['./guard-driver.mjs', 'guard-driver.mjs'], ['./guard-runner', 'guard-runner.mjs'], ['./fixture', 'fixture.mjs']]) {
    if (pkg.exports[name] !== `./${file}`) problems.push(`${name} is not exported as ./${file}`);
    if (!got.includes(file)) problems.push(`missing from the package: ${file}`);
  }
  for (const f of got) if (/^(tests?|scripts)\//.test(f)) problems.push(`a test or script is in the package: ${f}`);
  if (pkg.engines?.node !== '>=18.20') problems.push(`engines.node is ${pkg.engines?.node}, not >=18.20`);
  const crate = readFileSync(join(root, 'Cargo.toml'), 'utf8').match(/^version = "([^"]+)"/m)[1];
  if (pkg.version !== crate) problems.push(`package.json version ${pkg.version} is not the crate's ${crate}`);
  for (const p of problems) console.log(p);
  console.log(`npm pack --dry-run: ${got.length} files, ${packed.size} bytes packed`);
  const checks = want.length + got.length + 5 + 3 + 6 + got.length + 2;
  return [checks - problems.length, problems.length];
}

async function test() {
  const dir = mkdtempSync(join(tmpdir(), 'slicc-browsers-npm-'));
  try {
    const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], root));
    const tarball = join(dir, packed.filename);
    const consumer = join(dir, 'consumer');
    execFileSync('mkdir', ['-p', consumer]);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    npm(['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], consumer);
    // The consumer imports the package by its name, as the spec writes it.
    const program = `
import catalog from '${pkg.name}' with { type: 'json' };
import vectors from '${pkg.name}/protected.json' with { type: 'json' };
import { protectedOrigins } from '${pkg.name}/protected.mjs';
const schemas = await Promise.all(['catalog', 'browsers', 'corpus', 'protected', 'guard-vectors'].map(
  (s) => import('${pkg.name}/schema/' + s + '.schema.json', { with: { type: 'json' } })));
const corpus = (await import('${pkg.name}/corpus.json', { with: { type: 'json' } })).default;
const guard = (await import('${pkg.name}/guard-vectors.json', { with: { type: 'json' } })).default;
let passed = 0, failed = 0;
const check = (what, ok) => { if (ok) passed++; else { failed++; console.log('failed: ' + what); } };
check('catalog schema 1', catalog.schema === 1 && Array.isArray(catalog.browsers));
check('every schema is JSON Schema', schemas.every((m) => typeof m.default.$schema === 'string'));
check('corpus cases', Array.isArray(corpus.cases) && corpus.cases.length > 0);
check('guard vectors', Array.isArray(guard.vectors) && guard.vectors.length > 0);
const m = protectedOrigins(catalog.protectedOrigins, vectors.origins);
for (const v of vectors.urls) check('url ' + JSON.stringify(v), m.url(v.url) === v.protected);
for (const v of vectors.targets) check('target ' + JSON.stringify(v), m.target(v) === v.protected);
for (const v of vectors.cookieDomains) check('cookie domain ' + JSON.stringify(v), m.cookieDomain(v.domain) === v.protected);
for (const v of vectors.storageKeys) check('storage key ' + JSON.stringify(v), m.storageKey(v.key) === v.protected);
let threw = false;
try { protectedOrigins(catalog.protectedOrigins, ['localhost:5710']); } catch (e) { threw = e instanceof TypeError; }
check('a bad extra origin throws', threw);
// The guard kit, by its export names: the driver judges, the runner checks its input, the
// fixture serves and logs.
const driver = await import('${pkg.name}/guard-driver.mjs');
const runner = await import('${pkg.name}/guard-runner');
const { fixtureServer } = await import('${pkg.name}/fixture');
check('guard-runner exports run and summary', typeof runner.run === 'function' && typeof runner.summary === 'function');
const s = driver.summary({ guard: 'g', sha: 's', set: guard, results: [] });
check('an empty run never passes', s.pass === false && s.line.startsWith('GUARD-FAIL g@s (vectors @ai-ecoverse/slicc-browsers@'));
let refused = false;
try { await runner.run(guard, { client: {}, targets: {} }); } catch (e) { refused = /send/.test(e.message); }
check('a client of the wrong shape is refused', refused);
const f = await fixtureServer();
const r = await fetch(f.origin + '/data?n=x');
check('the fixture serves /data', (await r.text()) === 'real-x' && f.log().some((e) => e.url === f.origin + '/data?n=x'));
await f.close();
console.log(JSON.stringify([passed, failed]));
`;
    writeFileSync(join(consumer, 'run.mjs'), program);
    const out = execFileSync(process.execPath, ['--no-warnings', 'run.mjs'], { cwd: consumer, encoding: 'utf8' });
    const lines = out.trim().split('\n');
    for (const l of lines.slice(0, -1)) console.log(l);
    const [passed, failed] = JSON.parse(lines[lines.length - 1]);
    console.log(`installed ${pkg.name}@${pkg.version} from ${packed.filename} into a temp dir; its protected.mjs ran its protected.json`);
    return [passed, failed];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const mode = process.argv[2];
if (mode !== 'files' && mode !== 'test') {
  console.error('usage: node scripts/npm-package.mjs files|test');
  process.exit(2);
}
const [passed, failed] = mode === 'files' ? files() : await test();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
