// Checks the declared rust-version without the old toolchain itself (only the current one is
// installed here): node scripts/msrv.mjs [--no-build]
//
// 1. Cargo.toml's rust-version equals clippy.toml's msrv (so clippy's `incompatible_msrv` lint,
//    run by .ci/run's clippy step, flags any std API newer than it in our code) and is at most
//    the published 1.x's 1.83.
// 2. The library's features (every feature but the command line's: `cli`, `cli-full`,
//    `validate`) resolved the way a consumer on that Rust resolves them: a copy of the crate
//    without those features' own dependencies and the dev ones gets
//    a fresh Cargo.lock from Cargo's MSRV-aware resolver (CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS
//    = fallback), then the PINS below (`cargo update -p <name> --precise <version>`, which the
//    README gives consumers on that Rust). Every package the library builds with, on this host
//    and on wasm32-wasip1, must declare a rust-version no higher than ours.
// 3. Unless --no-build: the library builds (cargo check, those features) against exactly
//    those older dependency versions, so our code needs no newer API of theirs.
// 4. The lowest Rust `cli` and `cli-full` build with: the same resolution with each in, the
//    highest rust-version in its graph; the README must say both.
//
// Exit 0 when all hold; otherwise the problems, one a line, and exit 1.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const build = !process.argv.includes('--no-build');
const PUBLISHED_1X = '1.83';
// The resolver prefers versions that fit our rust-version but does not backtrack for them:
// it picks ICU4X crates that fit 1.82 and whose requirements then pull zerovec 0.11.6+ (1.83).
// These downgrades, in this order, give a graph that fits 1.82 (the dependents before zerovec).
const PINS = [
  ['zerotrie', '0.2.2'],
  ['potential_utf', '0.1.2'],
  ['tinystr', '0.8.1'],
  ['zerovec', '0.11.2'],
  ['zerovec-derive', '0.11.1'],
];
const problems = [];

const run = (cmd, args, opts = {}) =>
  execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'inherit'], ...opts });

// Versions as numbers: "1.82" and "1.82.0" are the same version.
const parts = (v) => String(v).split('.').map(Number).concat([0, 0, 0]).slice(0, 3);
const cmp = (a, b) => {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
};
const short = (v) => parts(v).slice(0, 2).join('.');

const own = JSON.parse(run('cargo', ['metadata', '--format-version', '1', '--no-deps'], { cwd: root }))
  .packages.find((p) => p.name === 'slicc-browsers');
const ours = own.rust_version;
if (!ours) {
  console.error('Cargo.toml declares no rust-version');
  process.exit(1);
}

// 1. clippy.toml's msrv and the 1.x ceiling.
const clippyToml = join(root, 'clippy.toml');
const msrv = existsSync(clippyToml)
  ? (readFileSync(clippyToml, 'utf8').match(/^\s*msrv\s*=\s*"([^"]+)"/m) || [])[1]
  : undefined;
if (!msrv) problems.push('clippy.toml: no msrv, so clippy cannot lint std APIs newer than rust-version');
else if (cmp(msrv, ours) !== 0) problems.push(`clippy.toml msrv ${msrv} is not Cargo.toml's rust-version ${ours}`);
if (cmp(ours, PUBLISHED_1X) > 0) problems.push(`rust-version ${ours} is above the published 1.x's ${PUBLISHED_1X}`);

// Features: the library's are every one but default and the command line's (cli, cli-full and
// validate, which cli-full turns on); their own dependencies are the `dep:` names only they
// enable.
const CLI_FEATURES = ['cli', 'cli-full', 'validate'];
const features = Object.keys(own.features).filter((f) => f !== 'default' && !CLI_FEATURES.includes(f));
const depsOf = (f, seen = new Set()) => {
  if (seen.has(f)) return seen;
  seen.add(f);
  for (const x of own.features[f] || []) if (!x.startsWith('dep:') && own.features[x]) depsOf(x, seen);
  return seen;
};
const libDeps = new Set(features.flatMap((f) => [...depsOf(f)].flatMap((g) => own.features[g] || [])).filter((x) => x.startsWith('dep:')).map((x) => x.slice(4)));
const cliOnly = CLI_FEATURES.flatMap((f) => own.features[f] || []).filter((x) => x.startsWith('dep:')).map((x) => x.slice(4)).filter((d) => !libDeps.has(d));

// A copy of the crate: Cargo.toml without the dev dependencies and targets (and, for the
// library, without cli and its own dependencies), and the files the library includes.
function copyCrate(dir, withCli) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const f of ['src', 'schema', 'catalog.json', 'corpus.json', 'protected.json', 'guard-vectors.json', 'README.md']) {
    if (existsSync(join(root, f))) cpSync(join(root, f), join(dir, f), { recursive: true });
  }
  const out = [];
  let section = '';
  for (const line of readFileSync(join(root, 'Cargo.toml'), 'utf8').split('\n')) {
    const header = line.match(/^\s*(\[\[?[^\]]+\]\]?)/);
    if (header) section = header[1];
    if (/^\[(dev-dependencies|profile\.[^\]]*|target\.[^\]]*\.dev-dependencies)\]$/.test(section)) continue;
    if (/^\[\[(bin|bench|example|test)\]\]$/.test(section)) continue;
    const cliFeature = section === '[features]' && CLI_FEATURES.find((f) => new RegExp(`^\\s*${f}\\s*=`).test(line));
    if (!withCli && cliFeature) {
      out.push(`${cliFeature} = []`); // still a known cfg value for the code it gates; never enabled here
      continue;
    }
    if (!withCli && section === '[dependencies]' && cliOnly.some((d) => new RegExp(`^\\s*${d}\\s*=`).test(line))) continue;
    out.push(line);
  }
  writeFileSync(join(dir, 'Cargo.toml'), out.join('\n'));
  run('cargo', ['generate-lockfile', '--quiet'], {
    cwd: dir,
    env: { ...process.env, CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS: 'fallback' },
  });
  const locked = readFileSync(join(dir, 'Cargo.lock'), 'utf8');
  for (const [name, version] of PINS) {
    // A pin for a package the graph no longer has is skipped; one that no longer applies fails.
    if (!locked.includes(`name = "${name}"`)) continue;
    run('cargo', ['update', '--quiet', '-p', name, '--precise', version], { cwd: dir });
  }
}

// The packages a build of the lib with `feats` compiles (normal and build dependencies, as
// resolved for `platform`), each with its declared rust-version.
function graph(dir, feats, platform) {
  const m = JSON.parse(
    run('cargo', ['metadata', '--format-version', '1', '--locked', '--features', feats.join(','), '--filter-platform', platform], { cwd: dir }),
  );
  const pkgs = new Map(m.packages.map((p) => [p.id, p]));
  const nodes = new Map(m.resolve.nodes.map((n) => [n.id, n]));
  const seen = new Set();
  const stack = [m.resolve.root];
  while (stack.length) {
    const id = stack.pop();
    if (seen.has(id)) continue;
    seen.add(id);
    for (const d of nodes.get(id).deps) {
      if (d.dep_kinds.some((k) => k.kind !== 'dev')) stack.push(d.pkg);
    }
  }
  seen.delete(m.resolve.root);
  return [...seen].map((id) => pkgs.get(id)).sort((a, b) => a.name.localeCompare(b.name));
}

const host = run('rustc', ['-vV']).match(/^host: (.+)$/m)[1];
const tmp = join(root, 'target', 'msrv-check');

// 2. The library's graph, resolved for our rust-version.
const lib = join(tmp, 'lib');
copyCrate(lib, false);
let highest = { v: '0', who: 'nothing' };
for (const platform of [host, 'wasm32-wasip1']) {
  for (const p of graph(lib, features, platform)) {
    const v = p.rust_version;
    if (v && cmp(v, highest.v) > 0) highest = { v, who: `${p.name} ${p.version}` };
    if (v && cmp(v, ours) > 0) problems.push(`${platform}: ${p.name} ${p.version} declares rust-version ${v}, above ours (${ours})`);
  }
}
if (!problems.length) {
  console.log(`library (features ${features.join(', ')}): every dependency declares rust-version <= ${ours} (highest ${short(highest.v)}: ${highest.who}); the lock: ${lib}/Cargo.lock`);
}

// 3. Our code against those versions.
if (build && !problems.length) {
  const env = { ...process.env, CARGO_TARGET_DIR: join(tmp, 'build') };
  run('cargo', ['check', '--quiet', '--locked', '--lib', '--features', features.join(',')], { cwd: lib, env, stdio: ['ignore', 'inherit', 'inherit'] });
  run('cargo', ['check', '--quiet', '--locked', '--lib'], { cwd: lib, env, stdio: ['ignore', 'inherit', 'inherit'] });
  console.log('library: cargo check (every feature but cli, and no feature) passes against those versions');
}

// 4. What cli and cli-full need, and that the README says so.
const cli = join(tmp, 'cli');
copyCrate(cli, true);
const readme = readFileSync(join(root, 'README.md'), 'utf8');
for (const feature of ['cli', 'cli-full']) {
  let needs = { v: ours, who: 'the library' };
  for (const p of graph(cli, [feature], host)) {
    if (p.rust_version && cmp(p.rust_version, needs.v) > 0) needs = { v: p.rust_version, who: `${p.name} ${p.version}` };
  }
  console.log(`${feature}: needs Rust ${short(needs.v)} (${needs.who}), resolved for ${ours} with fallback`);
  if (!readme.includes(`\`${feature}\` feature needs Rust ${short(needs.v)}`)) {
    problems.push(`README.md: say "the \`${feature}\` feature needs Rust ${short(needs.v)}" (${needs.who} declares it)`);
  }
}

for (const p of problems) console.error(p);
console.log(problems.length ? `msrv: ${problems.length} problem(s)` : `msrv: rust-version ${ours} holds`);
process.exit(problems.length ? 1 : 0);
