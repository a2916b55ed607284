// Runs the wasm32-wasip1 build of examples/wasm_conformance.rs under Node's WASI support and
// exits with its exit code. It prints the corpus failures and `N passed, M failed`.
//
//   node scripts/wasm-conformance.mjs [path/to/wasm_conformance.wasm] [darwin|linux|windows]...
import { readFile } from 'node:fs/promises';
import { argv, exit } from 'node:process';
import { WASI } from 'node:wasi';

const file = argv[2] ?? 'target/wasm32-wasip1/debug/examples/wasm_conformance.wasm';
const wasi = new WASI({
  version: 'preview1',
  args: ['wasm_conformance', ...argv.slice(3)],
  env: {},
  returnOnExit: true,
});
const module = await WebAssembly.compile(await readFile(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
exit(wasi.start(instance));
