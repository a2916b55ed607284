// npm run validate [DIR]: the repository's data files checked against the spec's rules.
//
// 1. `slicc-browsers validate [DIR]`: the schemas and every rule a schema can't say, the same
//    findings the crate prints (binary from $SLICC_BROWSERS, else target/{release,debug}, else
//    `cargo run`); 2. every protected-origin vector of protected.json through protected.mjs;
//    3. what a JavaScript guard needs on top: guard-vectors.json reads with guard-driver.mjs's
//    checkSet, and every `refusal.match` and `$regex` compiles with `new RegExp` (the engine the
//    JavaScript guards use). Ends with "validate: N problems"; exit 1 on any.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSet } from '../guard-driver.mjs';
import { protectedOrigins } from '../protected.mjs';

const root = resolve(join(dirname(fileURLToPath(import.meta.url)), '..'));
const dir = resolve(process.argv[2] ?? root);
const problems = [];

function crateValidate() {
  const bin = process.env.SLICC_BROWSERS || ['release', 'debug'].map((p) => join(root, 'target', p, 'slicc-browsers')).find(existsSync);
  const [cmd, args] = bin ? [bin, ['validate', dir]] : ['cargo', ['run', '--quiet', '--features', 'cli-full', '--bin', 'slicc-browsers', '--', 'validate', dir]];
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8' });
  if (r.error) return problems.push(`slicc-browsers validate: ${r.error.message} (set SLICC_BROWSERS to the binary)`);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  if (r.status !== 0) problems.push(`slicc-browsers validate exited ${r.status}`);
  return undefined;
}

function protectedVectors() {
  const catalog = JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8'));
  const vectors = JSON.parse(readFileSync(join(dir, 'protected.json'), 'utf8'));
  const m = protectedOrigins(catalog.protectedOrigins, vectors.origins);
  let n = 0;
  const check = (what, got, want) => {
    n++;
    if (got !== want) problems.push(`protected.mjs: ${what}: ${got}, the vector says ${want}`);
  };
  for (const v of vectors.urls) check(`url ${v.url}`, m.url(v.url), v.protected);
  for (const v of vectors.targets) check(`target ${JSON.stringify(v)}`, m.target(v), v.protected);
  for (const v of vectors.cookieDomains) check(`cookie domain ${v.domain}`, m.cookieDomain(v.domain), v.protected);
  for (const v of vectors.storageKeys) check(`storage key ${v.key}`, m.storageKey(v.key), v.protected);
  console.log(`protected.mjs: ${n} vectors`);
}

function javascriptGuards() {
  const file = join(dir, 'guard-vectors.json');
  const set = JSON.parse(readFileSync(file, 'utf8'));
  try {
    checkSet(set);
  } catch (e) {
    problems.push(`guard-driver.mjs: ${e.message}`);
  }
  let n = 0;
  const walk = (v, at) => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${at}/${i}`));
    if (v === null || typeof v !== 'object') return undefined;
    for (const [k, x] of Object.entries(v)) {
      const pattern = (k === '$regex' && typeof x === 'string') ? x : (k === 'refusal' && x && typeof x.match === 'string') ? x.match : undefined;
      if (pattern !== undefined) {
        n++;
        try {
          new RegExp(pattern.replace(/\{[A-Za-z][A-Za-z-]*\}/g, 'x'));
        } catch (e) {
          problems.push(`${at}/${k}: ${JSON.stringify(pattern)} is no JavaScript regular expression: ${e.message}`);
        }
      }
      walk(x, `${at}/${k}`);
    }
    return undefined;
  };
  walk(set.vectors, 'guard-vectors.json/vectors');
  console.log(`guard-vectors.json: ${set.vectors.length} vectors read by guard-driver.mjs, ${n} patterns compiled with RegExp`);
}

crateValidate();
protectedVectors();
javascriptGuards();
for (const p of problems) console.log(p);
console.log(`validate: ${problems.length} problems`);
process.exit(problems.length ? 1 : 0);
