// node tests/js/serve-fixture.mjs [--tls-key FILE --tls-cert FILE]: serves fixture.mjs on a
// random loopback port (HTTPS with the key and certificate), prints its origin on the first
// line, and stops when stdin closes (the test that started it ends).
import { readFileSync } from 'node:fs';
import { fixtureServer } from '../../fixture.mjs';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const [key, cert] = [arg('--tls-key'), arg('--tls-cert')];
const fixture = await fixtureServer(key && cert ? { tls: { key: readFileSync(key), cert: readFileSync(cert) } } : {});
console.log(fixture.origin);
const stop = async () => {
  await fixture.close();
  process.exit(0);
};
process.stdin.resume();
process.stdin.on('end', stop);
process.stdin.on('close', stop);
