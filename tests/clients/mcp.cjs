// Drives an MCP server over stdio, as an agent does: node mcp.cjs <plan-json> <cmd> [args...]
// (tests/browser/guard_mcp.rs). Starts <cmd>, says initialize, then calls each step's tool in
// order and prints one JSON line per step: {name, tool, ms, isError, timeout, text}; `text` is
// the answer's text parts joined, an image part written as [image]. A step's answer must come
// within its `timeout` (ms) or the step says timeout: true and the run goes on. A step's
// `capture` ({var: regex}) keeps the regex's first group of the answer as `$var`, which later
// steps' arguments may name ("$var" anywhere in a string; a string that is only "$var" of a
// number is that number); the plan is {vars: {starting values}, steps: [...]}; `waitMs` waits
// before the call.
'use strict';
const { spawn } = require('node:child_process');

const [planJson, cmd, ...args] = process.argv.slice(2);
const { vars: startVars, steps } = JSON.parse(planJson);
const server = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
server.stderr.on('data', (d) => {
  stderr = (stderr + d).slice(-4000);
});
let buf = '';
let next = 1;
const waiting = new Map();
server.stdout.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      continue;
    }
    const w = waiting.get(m.id);
    if (w) {
      waiting.delete(m.id);
      w(m);
    }
  }
});
let exited = null;
server.on('exit', (code, signal) => {
  exited = `exited (${code ?? signal})`;
  for (const w of waiting.values()) w({ exited: true });
  waiting.clear();
});
const call = (method, params, ms) =>
  new Promise((resolve) => {
    if (exited) return resolve({ exited: true });
    const id = next++;
    const timer = setTimeout(() => {
      waiting.delete(id);
      resolve({ timeout: true });
    }, ms);
    waiting.set(id, (m) => {
      clearTimeout(timer);
      resolve(m);
    });
    server.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

(async () => {
  const init = await call(
    'initialize',
    { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'slicc-guard-test', version: '0' } },
    30000,
  );
  if (!init.result) {
    console.log(JSON.stringify({ name: 'initialize', error: JSON.stringify(init), stderr }));
    server.kill('SIGKILL');
    process.exit(1);
  }
  server.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  const vars = { ...(startVars || {}) };
  const fill = (v) =>
    typeof v === 'string'
      ? /^\$[a-z_]+$/.test(v) && /^\d+$/.test(String(vars[v.slice(1)]))
        ? Number(vars[v.slice(1)])
        : v.replace(/\$([a-z_]+)/g, (m, k) => (k in vars ? String(vars[k]) : m))
      : Array.isArray(v)
        ? v.map(fill)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]))
          : v;
  for (const s of steps) {
    if (s.waitMs) await sleep(s.waitMs);
    const t0 = Date.now();
    const r = await call('tools/call', { name: s.tool, arguments: fill(s.args || {}) }, s.timeout || 20000);
    const text = r.timeout
      ? 'TIMEOUT'
      : r.exited
        ? 'SERVER ' + exited
        : r.error
          ? 'RPC ' + JSON.stringify(r.error)
          : (r.result.content || []).map((c) => (c.type === 'text' ? c.text : '[' + c.type + ']')).join('\n');
    for (const [k, re] of Object.entries(s.capture || {})) {
      const m = text.match(new RegExp(re));
      if (m) vars[k] = m[1];
    }
    console.log(
      JSON.stringify({
        name: s.name,
        tool: s.tool,
        ms: Date.now() - t0,
        isError: !!(r.timeout || r.exited || r.error || r.result.isError),
        timeout: !!r.timeout,
        text,
      }),
    );
  }
  console.log(JSON.stringify({ name: 'end', stderr: exited ? stderr : '' }));
  server.kill('SIGKILL');
  process.exit(0);
})();
