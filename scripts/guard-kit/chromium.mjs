// Launches a headless Chromium of its own for the guard kit's scripts: a temporary profile (and
// HOME), --remote-debugging-port=0 (the port is read from the profile's DevToolsActivePort),
// the given hosts mapped with --host-resolver-rules, its own process group, killed by kill()
// (also on exit). The same flags as the crate's harness (src/harness/chromium.rs).
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// The omnibox popup's WebUI pages (two browser_ui targets and a renderer that Chromium 156
// preloads for every browser context, about half of a vector row's CPU): a headless run never
// shows them (BROWSER_UI_FEATURES in src/harness/chromium.rs).
const BROWSER_UI = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];
const DISABLED = ['HttpsUpgrades', 'HttpsFirstBalancedModeAutoEnable', 'HttpsFirstModeV2ForTypicallySecureUsers', 'LocalNetworkAccessChecks', 'LocalNetworkAccessChecksWebSockets', ...BROWSER_UI];
const launched = new Set();
process.on('exit', () => {
  for (const b of launched) b.kill();
});
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    for (const b of launched) b.kill();
    process.exit(130);
  });
}

/** @returns {Promise<{ wsUrl: string, httpUrl: string, profile: string, kill(): void }>} */
export async function launch(hosts, port, { program = CHROMIUM, timeout = 30000 } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'slicc-guard-kit-'));
  const home = join(profile, 'home');
  mkdirSync(home);
  // Chromium makes its singleton socket's folder in TMPDIR, which a killed browser leaves.
  const tmp = join(profile, 'tmp');
  mkdirSync(tmp);
  const rules = hosts.map((h) => `MAP ${h} 127.0.0.1:${port}`).join(',');
  const args = ['--remote-debugging-port=0', '--no-first-run', '--no-default-browser-check', '--headless=new', `--user-data-dir=${profile}`,
    '--disable-background-timer-throttling', '--disable-backgrounding-occluded-windows', '--disable-renderer-backgrounding',
    `--disable-features=${DISABLED.join(',')}`, '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--disable-default-apps', `--host-resolver-rules=${rules}`,
    `--unsafely-treat-insecure-origin-as-secure=${hosts.map((h) => `http://${h}`).join(',')}`];
  if (process.getuid && process.getuid() === 0) args.push('--no-sandbox');
  const env = { ...process.env, HOME: home, TMPDIR: tmp };
  for (const k of ['XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_DOWNLOAD_DIR']) delete env[k];
  const child = spawn(program, args, { detached: true, stdio: 'ignore', env });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  child.on('error', () => {
    exited = true;
  });
  const browser = {
    profile,
    wsUrl: '',
    httpUrl: '',
    kill() {
      launched.delete(browser);
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
      try {
        rmSync(profile, { recursive: true, force: true });
      } catch {
        // busy
      }
    },
  };
  launched.add(browser);
  const deadline = Date.now() + timeout;
  for (;;) {
    let text = '';
    try {
      text = readFileSync(join(profile, 'DevToolsActivePort'), 'utf8');
    } catch {
      text = '';
    }
    const [p, path] = text.split('\n');
    if (/^[0-9]+$/.test(p || '') && path) {
      browser.wsUrl = `ws://127.0.0.1:${p}${path.trim()}`;
      browser.httpUrl = `http://127.0.0.1:${p}`;
      return browser;
    }
    if (exited) {
      browser.kill();
      throw new Error(`${program} exited before it served CDP`);
    }
    if (Date.now() >= deadline) {
      browser.kill();
      throw new Error(`${program} served no CDP within ${timeout} ms`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
