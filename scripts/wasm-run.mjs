// Runs a wasm32-wasip1 program under Node's WASI support and exits with its exit code.
//
//   node scripts/wasm-run.mjs path/to/program.wasm [args...]
//
// With SLICC_WASM_TIMING=1 it prints to stderr how long reading, compiling, instantiating and
// running the program took (milliseconds, from performance.now()), and the time since Node's
// own process start (performance.timeOrigin) when the program returned.
import { readFile } from 'node:fs/promises';
import { argv, exit, env, stderr } from 'node:process';
import { performance } from 'node:perf_hooks';
import { WASI } from 'node:wasi';
import { basename } from 'node:path';

const file = argv[2];
if (!file) {
  stderr.write('usage: node scripts/wasm-run.mjs program.wasm [args...]\n');
  exit(2);
}
const t0 = performance.now();
const bytes = await readFile(file);
const t1 = performance.now();
const module = await WebAssembly.compile(bytes);
const t2 = performance.now();
const wasi = new WASI({
  version: 'preview1',
  args: [basename(file, '.wasm'), ...argv.slice(3)],
  env: {},
  returnOnExit: true,
});
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
const t3 = performance.now();
const code = wasi.start(instance);
const t4 = performance.now();
if (env.SLICC_WASM_TIMING === '1') {
  const ms = (x) => x.toFixed(2);
  stderr.write(
    `timing: node start to script ${ms(t0)} ms, read ${ms(t1 - t0)} ms, compile ${ms(t2 - t1)} ms, ` +
      `instantiate ${ms(t3 - t2)} ms, run ${ms(t4 - t3)} ms, node start to exit ${ms(t4)} ms\n`,
  );
}
exit(code);
