// guard-runner.mjs: the reference runner for the guard vectors, dependency-free browser ESM (its
// one import is guard-driver.mjs beside it). It runs every row (id, target, variant) the options
// select through a guard's CDP client, observes with an independent unguarded client, and judges
// each row as the crate's runner does: plan, drive, judge.
//
//   import { run } from '@ai-ecoverse/slicc-browsers/guard-runner';
//   const execution = await run(set, { clientFactory, targets, capabilities, variant, parallel, fixture });
//   console.log(execution.summary({ guard: 'my-guard', sha: 'build-sha' }).line);

import * as D from './guard-driver.mjs';

export { summary } from './guard-driver.mjs';

const LOAD_TIMEOUT = 10000;
const CHILD_WAIT = 5000;
const BACKGROUND_WAIT = 10000;
const SETTLE_EXTRA = 600;
const SETTLE_DEFAULT_MS = 10000;
const PROBE_WAIT = 3000;
const POLL = 50;
const MAX_GUESSES = 64;
const CALL_TIMEOUT = 15000;
const LEG_TIMEOUT = 120000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

let tagBase;
let tagNext = 0;
/** A tag unique to the run and leg: alphanumeric, so it survives percent-encoding. */
function newTag() {
  if (tagBase === undefined) tagBase = Math.floor(Math.random() * 36 ** 6).toString(36).padStart(6, '0');
  return `j${tagBase}${(tagNext++).toString(36)}`;
}

function methodNotFound(error) {
  return isObject(error) && (error.code === -32601 || String(error.message ?? '').includes("wasn't found"));
}

function sessionGone(message) {
  const m = String(message).toLowerCase();
  return m.includes('session with given id not found') || m.includes('no session with given id') || m.includes('target closed') || m.includes('session closed');
}

/** The ids between two paused request ids that differ in one number (at most 64). */
export function idsBetween(a, b) {
  const runs = (s) => s.match(/[0-9]+|[^0-9]+/g) || [];
  if (!a || !b) return [];
  const ra = runs(a);
  const rb = runs(b);
  if (ra.length !== rb.length) return [];
  const differing = ra.map((x, i) => i).filter((i) => ra[i] !== rb[i]);
  if (differing.length !== 1) return [];
  const i = differing[0];
  if (!/^[0-9]+$/.test(ra[i]) || !/^[0-9]+$/.test(rb[i])) return [];
  const [x, y] = [Number(ra[i]), Number(rb[i])];
  const out = [];
  for (let n = Math.min(x, y) + 1; n < Math.max(x, y) && out.length < MAX_GUESSES; n++) out.push(ra.map((t, j) => (j === i ? String(n) : t)).join(''));
  return out;
}

function saysPlant(text) {
  const t = String(text).toLowerCase();
  return t.includes('canary') && t.includes('plant');
}

function allSteps(vector) {
  const out = [];
  const go = (list) => {
    for (const s of list || []) {
      out.push(s);
      if (Array.isArray(s.children)) go(s.children);
    }
  };
  go(vector.setup);
  go(vector.trigger);
  return out;
}

/** When a row plants the canary: 'text' (where a text step says so), 'start', or 'no'. */
function plantsCanary(vector) {
  if (allSteps(vector).some((s) => typeof s.text === 'string' && saysPlant(s.text))) return 'text';
  const checks = [vector.liveCheck, ...Object.values(vector.observe || {}).map((o) => o.check)];
  const reads = (v) => isObject(v) && (Object.prototype.hasOwnProperty.call(v, 'state') || (typeof v.served === 'string' && v.served.includes('/plant')));
  const any = (v) => reads(v) || (Array.isArray(v) ? v.some(any) : isObject(v) && Object.values(v).some(any));
  return checks.some(any) ? 'start' : 'no';
}

/** Whether a row works on the default browser context (Storage cookie calls without a context). */
function usesDefaultContext(vector) {
  return allSteps(vector).some((s) => ['Storage.getCookies', 'Storage.setCookies', 'Storage.clearCookies'].includes(s.cdp) && !(isObject(s.params) && 'browserContextId' in s.params));
}

function evalOutcome(answer, error) {
  if (error !== undefined) return { outcome: 'failed', value: D.outcome(undefined, error).error.message };
  if (isObject(answer) && answer.exceptionDetails) {
    const d = answer.exceptionDetails;
    return { outcome: 'failed', value: `evaluation threw: ${(d.exception && d.exception.description) || d.text || 'exception'}` };
  }
  return { outcome: 'value', value: isObject(answer) && isObject(answer.result) && 'value' in answer.result ? answer.result.value : null };
}

function pageOutcome(answer, error) {
  if (error !== undefined) {
    if (error && isObject(error.cdp)) return { outcome: 'value', value: D.outcome(undefined, error) };
    return { outcome: 'failed', value: D.outcome(undefined, error).error.message };
  }
  const e = evalOutcome(answer);
  if (e.outcome !== 'value') return e;
  return { outcome: 'value', value: { ok: true, result: answer, value: e.value } };
}

const answered = (o) => o.outcome === 'value' && !(isObject(o.value) && o.value.ok === false);
const failureText = (o) => (o.outcome === 'value' ? (o.value && o.value.error && o.value.error.message) || 'error' : o.outcome === 'failed' ? o.value : 'pending');

// One leg: the pump, the canary, setup then trigger, background loads, the observer's reads, the log.
class Leg {
  constructor(o) {
    Object.assign(this, o);
    this.record = { tag: o.vars.tag, log: [], events: [], outcomes: {}, refused: [], refusalErrors: {}, sessions: [], detached: [], executed: [], reads: [], observer: !!o.observer, errors: [], navigationErrors: [], unsupported: [] };
    this.page = undefined;
    this.children = [];
    this.childTasks = [];
    this.rules = [];
    this.answers = [];
    this.paused = [];
    this.ownTargets = new Set();
    this.opened = [];
    this.observerOpened = [];
    this.background = new Map();
    this.action = undefined;
    this.plantSessions = new Map();
    this.pageContext = o.context;
    this.selfDetached = new Set();
    this.startEvent = o.client.events.length;
    this.startLog = 0;
    this.probes = 0;
    this.stopped = false;
    this.hasChildrenStep = o.steps.some((s) => Array.isArray(s.children));
  }

  send(method, params, sessionId, ms = this.callTimeout) {
    return D.withTimeout(this.client.send(method, params || {}, sessionId), ms, method);
  }

  osend(method, params, sessionId, ms = this.callTimeout) {
    return D.withTimeout(this.observer.send(method, params || {}, sessionId), ms, method);
  }

  error(text) {
    this.record.errors.push(text);
  }

  setOutcome(name, o) {
    if (typeof name === 'string') this.record.outcomes[name] = o;
  }

  addDetached(role) {
    if (!this.record.detached.includes(role)) this.record.detached.push(role);
  }

  async logNow() {
    return this.readLog();
  }

  async run() {
    this.startLog = (await this.readLog(true)).length;
    const pump = this.pump();
    try {
      const phases = (async () => {
        if (this.plant === 'start') await this.plantNow();
        await this.runSteps(this.steps.filter((s) => s.phase === 'setup'), undefined);
        this.record.executed.push('setup');
        await this.joinChildren();
        await this.runSteps(this.steps.filter((s) => s.phase === 'trigger'), undefined);
        this.record.executed.push('trigger');
        await this.joinChildren();
      })();
      // No leg hangs: one whose steps outlast legTimeout is judged on what it recorded so far.
      let timer;
      const late = new Promise((resolve) => {
        timer = setTimeout(() => resolve('late'), this.legTimeout);
      });
      const ended = await Promise.race([phases.then(() => 'done'), late]);
      clearTimeout(timer);
      if (ended === 'late') this.error(`leg: its steps did not finish within ${this.legTimeout} ms`);
      const deadline = Date.now() + BACKGROUND_WAIT;
      for (const [name, bg] of this.background) {
        const left = Math.max(0, deadline - Date.now());
        const done = await Promise.race([bg, sleep(left).then(() => undefined)]);
        this.record.outcomes[name] = done ?? { outcome: 'pending' };
      }
      await this.refreshSessionUrls();
      for (const r of D.legReads(this.vector, this.side, this.vars)) this.record.reads.push([r, await this.read(r)]);
    } catch (e) {
      this.error(`leg: ${e && e.message ? e.message : e}`);
    } finally {
      this.stopped = true;
      await pump;
      this.record.events = this.client.events.slice(this.startEvent).map((e) => ({ method: e.method, params: e.params ?? {}, ...(typeof e.sessionId === 'string' ? { sessionId: e.sessionId } : {}) }));
      this.record.log = await this.logWithProbes();
      await this.close();
    }
    this.record.refused.sort();
    this.record.detached.sort();
    this.record.executed.sort();
    return this.record;
  }

  // The stand-in's log: the fixture's entries, or the stand-in's /log route.
  async readLog(all = false) {
    const tag = this.vars.tag;
    if (this.fixture && typeof this.fixture.log === 'function') {
      const entries = await this.fixture.log();
      return all ? entries : entries.filter((e) => e.url.includes(tag));
    }
    if (all) return [];
    const log = typeof this.vars.log === 'string' ? this.vars.log : undefined;
    if (!log) return [];
    try {
      const r = await D.withTimeout(fetch(`${log}/log?n=${encodeURIComponent(tag)}`), 5000, 'the stand-in log');
      return (await r.json()).hits || [];
    } catch {
      return [];
    }
  }

  async logWithProbes() {
    const deadline = Date.now() + PROBE_WAIT;
    for (;;) {
      const log = await this.readLog();
      const beacons = log.filter((e) => e.url.includes('probe=1') && e.url.includes(this.vars.tag)).length;
      if (beacons >= this.probes || Date.now() >= deadline) return log;
      await sleep(POLL);
    }
  }

  async pump() {
    let cursor = this.startEvent;
    while (!this.stopped) {
      const events = this.client.events;
      while (cursor < events.length) {
        const e = events[cursor];
        const index = cursor++;
        try {
          if (e.method === 'Fetch.requestPaused') this.onPaused(e, false);
          else if (e.method === 'Fetch.authRequired') this.onPaused(e, true);
          else if (e.method === 'Target.attachedToTarget') this.onAttached(e, index);
          else if (e.method === 'Target.detachedFromTarget' && e.params && e.params.sessionId) this.onDetached(e.params.sessionId);
          else if (e.method === 'Inspector.detached' && e.sessionId) this.onDetached(e.sessionId);
        } catch (err) {
          this.error(`pump: ${err && err.message}`);
        }
      }
      await sleep(10);
    }
  }

  onDetached(sessionId) {
    if (this.selfDetached.has(sessionId)) return;
    const role = this.roleOf(sessionId);
    if (role) this.addDetached(role);
  }

  onPaused(e, auth) {
    const p = e.params || {};
    if (typeof p.requestId !== 'string') return;
    const url = (p.request && p.request.url) || '';
    const responseStage = p.responseStatusCode !== undefined || p.responseErrorReason !== undefined;
    this.paused.push({ url, requestId: p.requestId, session: e.sessionId });
    const rule = this.answers.find((r) => r.url === url && (auth ? r.hold || r.cdp === 'Fetch.continueWithAuth' : r.cdp !== 'Fetch.continueWithAuth' && (r.stage === undefined || (r.stage === 'Response') === responseStage)));
    let method;
    let params;
    if (rule && rule.hold) return;
    if (rule && rule.cdp) [method, params] = [rule.cdp, { ...(rule.params || {}) }];
    else if (auth) [method, params] = ['Fetch.continueWithAuth', { authChallengeResponse: { response: 'Default' } }];
    else [method, params] = ['Fetch.continueRequest', {}];
    params.requestId = p.requestId;
    this.send(method, params, e.sessionId).catch(() => null);
  }

  frameUrl(frameId, before) {
    const events = this.client.events;
    for (let i = Math.min(before, events.length) - 1; i >= this.startEvent; i--) {
      const e = events[i];
      const p = e.params || {};
      let id;
      let url;
      if (e.method === 'Page.frameStartedNavigating' || e.method === 'Page.frameRequestedNavigation') [id, url] = [p.frameId, p.url];
      else if (e.method === 'Page.frameNavigated') [id, url] = [p.frame && p.frame.id, p.frame && p.frame.url];
      else continue;
      if (id === frameId && typeof url === 'string') return url;
    }
    return undefined;
  }

  onAttached(e, index) {
    const p = e.params || {};
    const info = p.targetInfo;
    if (typeof p.sessionId !== 'string' || !isObject(info)) return;
    const targetId = info.targetId || '';
    if (this.ownTargets.has(targetId)) {
      // A tab of the leg's own, auto-attached by what an earlier leg of the row set on the same
      // connection (Chromium keeps a browser session's auto-attach): it must not wait.
      if (p.waitingForDebugger === true) this.send('Runtime.runIfWaitingForDebugger', {}, p.sessionId).catch(() => null);
      return;
    }
    const url = info.url ? info.url : this.frameUrl(targetId, index) || '';
    const opener = info.openerId;
    const pageTarget = this.vars.pageTarget;
    const waiting = p.waitingForDebugger === true;
    const rules = this.rules.filter((r) => r.fromEvent <= index).filter((r) => {
      if (!r.where) return true;
      const openerOk = r.where.openerId === undefined || (opener !== undefined && opener === pageTarget);
      const prefixOk = r.where.urlPrefix === undefined || url.startsWith(r.where.urlPrefix);
      return openerOk && prefixOk;
    });
    const sid = p.sessionId;
    const child = { sessionId: sid, targetId, parent: e.sessionId };
    const recordSession = () => this.record.sessions.push({ role: 'child', sessionId: sid, targetId, url });
    if (rules.length === 0) {
      const implicit = !this.hasChildrenStep && (info.type === 'page' || info.type === 'iframe');
      if (implicit) {
        recordSession();
        this.children.push(child);
      }
      if (waiting || implicit) this.send('Runtime.runIfWaitingForDebugger', {}, sid).catch(() => null);
      return;
    }
    recordSession();
    const task = (async () => {
      for (const r of rules) await this.runSteps(r.steps, child);
      if (!this.record.executed.includes('child')) this.record.executed.push('child');
      const pageEnabled = rules.some((r) => r.steps.some((s) => s.cdp === 'Page.enable'));
      const from = this.client.events.length;
      await this.send('Runtime.runIfWaitingForDebugger', {}, sid).catch(() => null);
      if (pageEnabled) await this.waitDocument([sid], from, undefined, true, CHILD_WAIT).catch(() => null);
    })();
    this.childTasks.push(task);
    this.children.push(child);
  }

  async joinChildren() {
    while (this.childTasks.length > 0) {
      const tasks = this.childTasks.splice(0);
      await Promise.allSettled(tasks);
    }
  }

  roleOf(sessionId) {
    if (this.page && this.page.sessionId === sessionId) return 'page';
    if (this.children.some((c) => c.sessionId === sessionId)) return 'child';
    const s = this.record.sessions.find((x) => x.sessionId === sessionId);
    return s ? s.role : undefined;
  }

  async runSteps(steps, child) {
    for (const indexed of steps) {
      if (JSON.stringify(indexed).includes('{popupTarget}')) await this.findPopup();
      const step = D.expand(indexed, this.vars);
      if (Array.isArray(indexed.children)) step.children = indexed.children;
      const kind = D.stepKind(step);
      try {
        if (kind === 'text') {
          if (this.plant === 'text' && saysPlant(step.text)) await this.plantNow();
        } else if (kind === 'wait') await sleep(Number(step.wait) || 0);
        else if (kind === 'cdp') await this.cdpStep(step, indexed.index, step.refusal && step.refusal.name, child);
        else if (kind === 'page') await this.pageStep(step, child);
        else if (kind === 'answer') this.answers.push({ ...step.answer, hold: step.answer.hold === true });
        else if (kind === 'children') this.rules.push({ fromEvent: this.client.events.length, steps: indexed.children, where: step.where });
        else if (kind === 'settle') await this.settleStep(step.settle);
        else if (kind === 'guess') await this.guessStep(step);
        else this.error(`step ${indexed.index}: not a step of one kind`);
      } catch (e) {
        this.error(`step ${indexed.index}: ${e && e.message ? e.message : e}`);
      }
    }
  }

  async findPopup() {
    const page = this.vars.pageTarget;
    if (typeof page !== 'string') return;
    const deadline = Date.now() + CHILD_WAIT;
    for (;;) {
      const evs = this.client.events.slice(this.startEvent).reverse();
      const e = evs.find((x) => ['Target.targetCreated', 'Target.targetInfoChanged', 'Target.attachedToTarget'].includes(x.method) && x.params && x.params.targetInfo && x.params.targetInfo.openerId === page && x.params.targetInfo.type === 'page');
      if (e) {
        this.vars.popupTarget = e.params.targetInfo.targetId;
        return;
      }
      if (Date.now() >= deadline) return;
      await sleep(POLL);
    }
  }

  async sessionFor(session, child) {
    const which = session ?? (child ? 'child' : 'page');
    if (which === 'browser') return undefined;
    if (which === 'child') {
      if (child) return child.sessionId;
      await this.joinChildren();
      const deadline = Date.now() + CHILD_WAIT;
      for (;;) {
        const last = this.children[this.children.length - 1];
        if (last) {
          await this.joinChildren();
          return last.sessionId;
        }
        if (Date.now() >= deadline) throw new Error(`no child target attached within ${CHILD_WAIT} ms`);
        await sleep(POLL);
      }
    }
    return this.pageSession();
  }

  async pageSession() {
    if (this.page) return this.page.sessionId;
    await this.openTab('about:blank', this.context, true);
    if (!this.page) throw new Error('no page');
    return this.page.sessionId;
  }

  async openTab(url, context, background) {
    const params = { url: 'about:blank', background };
    if (context) params.browserContextId = context;
    this.pageContext = context || undefined;
    const created = await this.send('Target.createTarget', params);
    const targetId = created && created.targetId;
    if (!targetId) throw new Error('Target.createTarget answered no targetId');
    this.ownTargets.add(targetId);
    this.opened.push(targetId);
    const attached = await this.send('Target.attachToTarget', { targetId, flatten: true });
    const sessionId = attached && attached.sessionId;
    if (!sessionId) throw new Error('Target.attachToTarget answered no sessionId');
    this.record.sessions.push({ role: 'page', sessionId, targetId, url });
    this.page = { sessionId, targetId };
    this.vars.pageTarget = targetId;
    await this.send('Page.enable', {}, sessionId);
    if (url !== 'about:blank') await this.navigate(sessionId, url);
  }

  async navigate(sessionId, url) {
    const from = this.client.events.length;
    let answer;
    try {
      answer = await this.send('Page.navigate', { url }, sessionId);
    } catch (e) {
      throw new Error(`navigate to ${url}: ${D.outcome(undefined, e).error.message}`);
    }
    if (answer && answer.errorText) throw new Error(`navigate to ${url}: ${answer.errorText}`);
    await this.waitDocument([sessionId], from, answer && answer.loaderId, false, LOAD_TIMEOUT);
    return answer;
  }

  async waitEvents(from, predicate, ms) {
    const deadline = Date.now() + ms;
    for (;;) {
      const evs = this.client.events;
      for (let i = from; i < evs.length; i++) if (predicate(evs[i])) return [i, evs[i]];
      if (Date.now() >= deadline) return undefined;
      await sleep(20);
    }
  }

  async waitDocument(sessions, from, loader, skipBlank, ms) {
    const deadline = Date.now() + ms;
    const committed = await this.waitEvents(from, (e) => e.method === 'Page.frameNavigated' && sessions.includes(e.sessionId) && e.params && e.params.frame && !e.params.frame.parentId && (loader === undefined || e.params.frame.loaderId === loader) && !(skipBlank && e.params.frame.url === 'about:blank'), ms);
    if (!committed) throw new Error(`no commit within ${ms} ms`);
    const [index, commit] = committed;
    const loaded = await this.waitEvents(index + 1, (e) => e.method === 'Page.loadEventFired' && e.sessionId === commit.sessionId, Math.max(0, deadline - Date.now()));
    if (!loaded) throw new Error(`no load within ${ms} ms`);
  }

  navError(sessionId, url, error) {
    this.record.navigationErrors.push({ session: this.roleOf(sessionId) || 'page', url, error });
  }

  async noteSessionFailure(sessionId) {
    if (this.roleOf(sessionId) !== 'child') return;
    try {
      await this.send('Runtime.evaluate', { expression: '1' }, sessionId);
    } catch (e) {
      if (sessionGone(D.outcome(undefined, e).error.message)) this.addDetached('child');
    }
  }

  markSelfDetached(method, params, session) {
    const attached = this.record.sessions.map((s) => [s.sessionId, s.targetId]);
    let out = [];
    if (method === 'Target.detachFromTarget') {
      if (params.sessionId) out = [params.sessionId];
      else if (params.targetId) out = attached.filter(([, t]) => t === params.targetId).map(([s]) => s);
    } else if (method === 'Target.closeTarget' && params.targetId) out = attached.filter(([, t]) => t === params.targetId).map(([s]) => s);
    else if (method === 'Target.setAutoAttach' && params.autoAttach === false) out = this.children.filter((c) => c.parent === session).map((c) => c.sessionId);
    for (const s of out) this.selfDetached.add(s);
    return [...new Set(out)];
  }

  async cdpStep(step, index, refusalName, child) {
    let session;
    try {
      session = await this.sessionFor(step.session, child);
    } catch (e) {
      this.setOutcome(step.as, { outcome: 'failed', value: e.message });
      return;
    }
    if (step.session === 'page-or-browser' && isObject(step.params) && 'browserContextId' in step.params) session = undefined;
    if (step.cdp === 'Target.detachFromTarget' && this.detachDelay > 0) await sleep(this.detachDelay);
    const params = isObject(step.params) ? step.params : {};
    const explicitAttach = step.cdp === 'Target.attachToTarget' && typeof params.targetId === 'string' ? params.targetId : undefined;
    if (explicitAttach) this.ownTargets.add(explicitAttach);
    const detaching = this.markSelfDetached(step.cdp, params, session);
    if (detaching.length > 0) await this.refreshSessionUrls();
    let answer;
    let error;
    try {
      answer = await this.send(step.cdp, params, session);
    } catch (e) {
      error = e;
    }
    const result = D.outcome(answer, error);
    const protocol = error !== undefined && error && isObject(error.cdp);
    if (protocol && methodNotFound(result.error) && !this.record.unsupported.includes(step.cdp)) this.record.unsupported.push(step.cdp);
    if (error !== undefined) for (const s of detaching) this.selfDetached.delete(s);
    if (explicitAttach && answer && typeof answer.sessionId === 'string') this.record.sessions.push({ role: 'attached', sessionId: answer.sessionId, targetId: explicitAttach, url: '' });
    if (step.cdp === 'Target.createBrowserContext' && answer && typeof answer.browserContextId === 'string' && typeof step.as === 'string') this.vars[step.as] = answer.browserContextId;
    const outcome = error === undefined || protocol ? { outcome: 'value', value: result } : { outcome: 'failed', value: result.error.message };
    if (error !== undefined && session !== undefined) {
      const role = this.roleOf(session);
      const byClient = this.selfDetached.has(session);
      if (role === 'child' && !byClient && (this.record.detached.includes('child') || sessionGone(result.error.message))) {
        this.addDetached('child');
        this.setOutcome(step.as, outcome);
        return;
      }
    }
    if (step.refusable === true && error !== undefined) {
      const name = refusalName || (typeof step.as === 'string' ? step.as : `refused.${index}`);
      this.record.refusalErrors[name] = result.error.message;
      if (protocol && D.isRefusal(result, step) && !this.record.refused.includes(name)) this.record.refused.push(name);
    }
    this.setOutcome(step.as, outcome);
  }

  markAction(sessionId, finalUrl) {
    this.action = { mark: undefined, event: this.client.events.length, session: sessionId, finalUrl };
    return this.readLog(true).then((l) => {
      if (this.action) this.action.mark = l.length;
    });
  }

  async preHeartbeat(sessionId, url) {
    const pre = D.preUrl(this.vars.log ?? '', this.vars.tag, url);
    await this.send('Runtime.evaluate', { expression: `fetch(${JSON.stringify(pre)}, { mode: 'no-cors', keepalive: true }).then(function () { return true; }, function () { return false; })`, awaitPromise: true, returnByValue: true }, sessionId).catch(() => null);
  }

  async evaluate(sessionId, params) {
    try {
      return pageOutcome(await this.send('Runtime.evaluate', params, sessionId));
    } catch (e) {
      return pageOutcome(undefined, e);
    }
  }

  async pageStep(step, child) {
    const name = step.as;
    let url = step.url ?? '';
    const hasHops = Array.isArray(step.hops) && step.hops.length > 0;
    if (hasHops) url = D.chainUrls(step.hops, url)[0];
    const finalUrl = hasHops ? step.url : undefined;
    const action = step.page;
    if (action === 'tab') {
      try {
        await this.openTab(url, step.context ?? this.context, step.background !== false);
      } catch (e) {
        this.error(`tab ${url}: ${e.message}`);
      }
      return;
    }
    let session;
    try {
      session = await this.sessionFor(step.session, child);
      if (session === undefined) session = await this.pageSession();
    } catch (e) {
      this.setOutcome(name, { outcome: 'failed', value: e.message });
      if (step.session !== 'child') this.error(`page ${action}: ${e.message}`);
      return;
    }
    const log = this.vars.log ?? '';
    const tag = this.vars.tag;
    if (action === 'navigate') {
      await this.markAction(session, finalUrl);
      try {
        this.setOutcome(name, { outcome: 'value', value: D.outcome(await this.navigate(session, url)) });
      } catch (e) {
        this.navError(session, url, e.message);
        this.setOutcome(name, { outcome: 'failed', value: e.message });
      }
    } else if (['href', 'replace', 'form', 'post', 'open'].includes(action)) {
      await this.markAction(session, finalUrl);
      const o = await this.evaluate(session, { expression: D.pageAction(action, url, log, tag), userGesture: true, returnByValue: true });
      if (!answered(o)) {
        await this.noteSessionFailure(session);
        this.navError(session, url, failureText(o));
      }
      this.setOutcome(name, o);
    } else if (action === 'iframe' || action === 'framed') {
      await this.markAction(session, finalUrl);
      await this.preHeartbeat(session, url);
      await sleep(50);
      let o;
      if (action === 'framed') {
        const framed = `${step.from ?? ''}/framed?src=${encodeURIComponent(url)}`;
        try {
          o = { outcome: 'value', value: D.outcome(await this.navigate(session, framed)) };
        } catch (e) {
          this.navError(session, framed, e.message);
          o = { outcome: 'failed', value: e.message };
        }
      } else {
        o = await this.evaluate(session, { expression: D.iframe(url), returnByValue: true });
      }
      this.setOutcome(name, o);
    } else if (['fetch', 'xhr', 'image'].includes(action)) {
      const src = D.loader(action, url, step.status === true, step.credentials);
      await this.preHeartbeat(session, url);
      const params = { expression: src, awaitPromise: true, returnByValue: true };
      if (step.background === true) {
        const done = this.evaluate(session, params).then((o) => {
          if (!answered(o)) this.navError(session, url, failureText(o));
          return o;
        });
        if (typeof name === 'string') this.background.set(name, done);
        await sleep(20);
      } else {
        const o = await this.evaluate(session, params);
        if (!answered(o)) this.navError(session, url, failureText(o));
        this.setOutcome(name, o);
      }
    } else if (action === 'eval') {
      const expression = step.expression ?? '';
      const o = await this.evaluate(session, { expression, awaitPromise: true, returnByValue: true });
      if (!answered(o)) await this.noteSessionFailure(session);
      else if (expression.includes("'&probe=1&canary='")) this.probes += 1;
      this.setOutcome(name, o);
    } else {
      this.error(`unknown page action ${JSON.stringify(action)}`);
    }
  }

  async settleStep(s) {
    if (s.variant === true) {
      await sleep(this.detachDelay);
      await this.waitActionDocument(SETTLE_DEFAULT_MS).catch(() => null);
      await sleep(SETTLE_EXTRA);
      return;
    }
    const ms = Number.isInteger(s.ms) ? s.ms : SETTLE_DEFAULT_MS;
    const deadline = Date.now() + ms;
    if (typeof s.beacon === 'string') {
      const tag = this.vars.tag;
      const since = this.action && this.action.mark !== undefined ? this.action.mark : this.startLog;
      const finalUrl = this.action && this.action.finalUrl;
      let met = false;
      while (!met && Date.now() < deadline) {
        const all = await this.readLog(true);
        const log = (all.length >= since ? all.slice(since) : all).filter((e) => e.url.includes(tag));
        met = log.some((e) => isBeaconOf(e, tag, s.beacon)) && (finalUrl === undefined || log.some((e) => e.url === finalUrl));
        if (!met) await sleep(POLL);
      }
      if (!met && s.required === true) {
        const excused = Array.isArray(s.dependsOn) && s.dependsOn.some((n) => this.record.refused.includes(n));
        if (!excused) this.error(`settle: no beacon from ${s.beacon} within ${ms}ms`);
      }
    } else if (typeof s.title === 'string') {
      let met = false;
      while (!met && Date.now() < deadline) {
        try {
          const r = await this.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true }, await this.pageSession());
          met = r && r.result && r.result.value === s.title;
        } catch {
          met = false;
        }
        if (!met) await sleep(POLL);
      }
    } else if (typeof s.session === 'string') {
      while (!this.record.detached.includes(s.session) && Date.now() < deadline) await sleep(POLL);
    } else {
      try {
        const sid = await this.pageSession();
        await this.waitDocument([sid], this.client.events.length, undefined, false, ms);
      } catch {
        // not met
      }
    }
    await sleep(SETTLE_EXTRA);
  }

  async waitActionDocument(ms) {
    const a = this.action;
    const from = a ? a.event : this.client.events.length;
    const session = a && a.session ? a.session : await this.pageSession();
    await this.waitDocument([session, ...this.children.map((c) => c.sessionId)], from, undefined, true, ms);
  }

  async guessStep(step) {
    const g = step.guess;
    const find = (u) => this.paused.find((p) => p.url === u);
    const a = find(g.between[0]);
    const b = find(g.between[1]);
    if (!a || !b) {
      this.setOutcome(step.as, { outcome: 'failed', value: `guess: no paused request for ${g.between.join(' or ')}` });
      return;
    }
    const attempts = [];
    for (const id of idsBetween(a.requestId, b.requestId)) {
      let answer;
      let error;
      try {
        answer = await this.send(g.cdp, { ...(g.params || {}), requestId: id }, a.session);
      } catch (e) {
        error = e;
      }
      const r = D.outcome(answer, error);
      attempts.push({ ...(error === undefined || (error && isObject(error.cdp)) ? r : { ok: false, error: { message: r.error.message } }), requestId: id });
    }
    this.setOutcome(step.as, { outcome: 'value', value: { ok: attempts.some((x) => x.ok === true), result: attempts, value: attempts } });
  }

  async refreshSessionUrls() {
    for (const s of this.record.sessions) {
      if (s.role === 'page' || !(s.url === '' || s.url === 'about:blank')) continue;
      try {
        const r = await this.send('Runtime.evaluate', { expression: 'location.href', returnByValue: true }, s.sessionId, Math.min(3000, this.callTimeout));
        if (r && r.result && typeof r.result.value === 'string') s.url = r.result.value;
      } catch {
        // keep
      }
    }
  }

  // The observer: the canary and the reads, never through the guard.
  async plantNow() {
    if (this.plantSessions.size > 0) return;
    try {
      if (!this.observer) throw new Error('no unguarded observer');
      const target = this.vars.target;
      const tag = this.vars.tag;
      const cookie = this.vars.cookie;
      const url = `${target}/plant?tag=${encodeURIComponent(tag)}&name=${encodeURIComponent(cookie)}&value=${encodeURIComponent(tag)}`;
      const session = await this.observerTab(url);
      const o = evalOutcome(...(await this.osend('Runtime.evaluate', { expression: D.canary.plant(tag, cookie), awaitPromise: true, returnByValue: true }, session).then((r) => [r], (e) => [undefined, e])));
      if (o.outcome === 'failed') throw new Error(`the canary on ${target}: ${o.value}`);
      this.plantSessions.set(target, session);
    } catch (e) {
      this.error(`plant: ${e.message}`);
    }
  }

  async observerTab(url) {
    const params = { url: 'about:blank', background: true };
    const context = this.pageContext || this.context;
    if (context) params.browserContextId = context;
    const created = await this.osend('Target.createTarget', params);
    this.observerOpened.push(created.targetId);
    const { sessionId } = await this.osend('Target.attachToTarget', { targetId: created.targetId, flatten: true });
    await this.osend('Page.enable', {}, sessionId);
    const from = this.observer.events.length;
    const answer = await this.osend('Page.navigate', { url }, sessionId);
    if (answer && answer.errorText) throw new Error(`navigate to ${url}: ${answer.errorText}`);
    const deadline = Date.now() + LOAD_TIMEOUT;
    for (;;) {
      if (this.observer.events.slice(from).some((e) => e.method === 'Page.loadEventFired' && e.sessionId === sessionId)) return sessionId;
      if (Date.now() >= deadline) throw new Error(`no load of ${url} within ${LOAD_TIMEOUT} ms`);
      await sleep(20);
    }
  }

  async onObserverSession(targetId, f) {
    const { sessionId } = await this.osend('Target.attachToTarget', { targetId, flatten: true });
    try {
      return await f(sessionId);
    } finally {
      this.osend('Target.detachFromTarget', { sessionId }).catch(() => null);
    }
  }

  readTarget(session) {
    if (session === 'child') return this.children.length ? this.children[this.children.length - 1].targetId : undefined;
    return this.page ? this.page.targetId : undefined;
  }

  async read(r) {
    if (!this.observer) return { outcome: 'failed', value: 'no unguarded observer' };
    const fail = (e) => ({ outcome: 'failed', value: e && e.message ? e.message : String(e) });
    try {
      if (r.read === 'state') return await this.readState(r);
      const target = this.readTarget(r.session);
      if (!target) return { outcome: 'failed', value: `no ${r.session} target` };
      if (r.read === 'title') {
        const info = await this.osend('Target.getTargetInfo', { targetId: target });
        return { outcome: 'value', value: info && info.targetInfo && typeof info.targetInfo.title === 'string' ? info.targetInfo.title : null };
      }
      if (r.read === 'expression') {
        return await this.onObserverSession(target, (sid) => this.osend('Runtime.evaluate', { expression: r.expression, awaitPromise: true, returnByValue: true }, sid).then((a) => evalOutcome(a), (e) => evalOutcome(undefined, e)));
      }
      if (r.read === 'history') {
        const h = await this.onObserverSession(target, (sid) => this.osend('Page.getNavigationHistory', {}, sid));
        return { outcome: 'value', value: (h.entries || []).map((e) => e.url).filter((u) => u !== undefined) };
      }
      return await this.readErrors(target, r.frame);
    } catch (e) {
      return fail(e);
    }
  }

  async readErrors(target, frame) {
    const out = [];
    const ids = new Set();
    const tree = await this.onObserverSession(target, (sid) => this.osend('Page.getFrameTree', {}, sid));
    if (tree && tree.frameTree) collectErrorFrames(tree.frameTree, false, out, ids);
    if (frame) {
      const targets = await this.osend('Target.getTargets', {}).then((t) => t.targetInfos || [], () => []);
      for (const info of targets) {
        if (info.type !== 'iframe') continue;
        if (info.parentFrameId !== undefined && !ids.has(info.parentFrameId)) continue;
        try {
          const t = await this.onObserverSession(info.targetId, (sid) => this.osend('Page.getFrameTree', {}, sid));
          const inner = [];
          if (t && t.frameTree) collectErrorFrames(t.frameTree, true, inner, new Set());
          for (const f of inner) {
            if (f.parentId === undefined && info.parentFrameId !== undefined) f.parentId = info.parentFrameId;
            out.push(f);
          }
        } catch {
          // a frame that went away
        }
      }
    }
    return { outcome: 'value', value: out };
  }

  async readState(r) {
    const session = this.plantSessions.get(r.origin);
    if (!session) return { outcome: 'failed', value: `no canary was planted on ${r.origin}` };
    if (r.storage) {
      const o = await this.osend('Runtime.evaluate', { expression: D.canary.read(r.cookie), awaitPromise: true, returnByValue: true }, session).then((a) => evalOutcome(a), (e) => evalOutcome(undefined, e));
      if (o.outcome !== 'value') return o;
      return { outcome: 'value', value: isObject(o.value) && typeof o.value.storage === 'string' ? o.value.storage : '' };
    }
    try {
      const c = await this.osend('Network.getCookies', { urls: [`${r.origin}/`] }, session);
      const found = (c.cookies || []).find((x) => x.name === r.cookie);
      return { outcome: 'value', value: found && typeof found.value === 'string' ? found.value : '' };
    } catch (e) {
      return { outcome: 'failed', value: `Network.getCookies: ${D.outcome(undefined, e).error.message}` };
    }
  }

  async close() {
    // What a leg set on the connection's browser session stays with the connection, and the
    // row's next leg shares it: auto-attach (a new tab would wait for a debugger), a
    // browser-wide Fetch, discovery.
    for (const [m, p] of [['Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false }], ['Fetch.disable', {}], ['Target.setDiscoverTargets', { discover: false }]]) {
      await this.send(m, p, undefined, Math.min(5000, this.callTimeout)).catch(() => null);
    }
    const pages = new Set(this.opened);
    const popups = [];
    for (const e of this.client.events.slice(this.startEvent)) {
      const info = e.params && e.params.targetInfo;
      if (!info || !info.openerId || !info.targetId) continue;
      if (pages.has(info.openerId) && !pages.has(info.targetId) && !popups.includes(info.targetId)) popups.push(info.targetId);
    }
    for (const t of [...popups, ...this.opened.splice(0)]) await this.send('Target.closeTarget', { targetId: t }, undefined, Math.min(5000, this.callTimeout)).catch(() => null);
    if (this.observer) for (const t of this.observerOpened.splice(0)) await this.osend('Target.closeTarget', { targetId: t }, undefined, Math.min(5000, this.callTimeout)).catch(() => null);
  }
}

function isBeaconOf(entry, tag, origin) {
  const i = entry.url.indexOf('?');
  const q = new URLSearchParams(i < 0 ? '' : entry.url.slice(i + 1).split('#')[0]);
  const path = entry.url.slice((D.originOf(entry.url) || '').length).split(/[?#]/)[0];
  if (q.get('tag') !== tag || path !== '/beacon') return false;
  return q.has('origin') ? q.get('origin') === origin : D.originOf(entry.url) === origin;
}

function collectErrorFrames(node, oopif, out, ids) {
  const f = node.frame;
  if (f) {
    if (typeof f.id === 'string') ids.add(f.id);
    if (typeof f.unreachableUrl === 'string') {
      const entry = { url: f.url ?? null, unreachableUrl: f.unreachableUrl, frameId: f.id ?? null, oopif };
      if (f.parentId !== undefined) entry.parentId = f.parentId;
      out.push(entry);
    }
  }
  for (const c of node.childFrames || []) collectErrorFrames(c, oopif, out, ids);
}

// ---------------------------------------------------------------------------------------------

function normalizeClients(made, what) {
  if (made && typeof made.send === 'function') return { client: made, unguarded: undefined, close: undefined, transportVariant: false };
  if (!isObject(made) || !made.client) throw new D.GuardVectorError(what, 'must return a client, or { client, unguarded?, close?, transportVariant? }');
  return { client: made.client, unguarded: made.unguarded, close: made.close, transportVariant: made.transportVariant === true };
}

/**
 * Runs the rows the options select and judges them.
 * @param {object} set the parsed guard-vectors.json
 * @param {{ clientFactory?: (m: { variant: string, detachDelay: number, vector: object, target: string, slot: number }) => any,
 *   client?: import('./guard-driver.mjs').Client, unguarded?: import('./guard-driver.mjs').Client,
 *   slot?: number, parallel?: number, variant?: string | string[], targets: Record<string, string | null>,
 *   capabilities?: Record<string, boolean> | string[], fixture?: { log(): any[] }, log?: (row: object) => void,
 *   ids?: string[], runTargets?: string[], transport?: string, ownStatic?: boolean, callTimeout?: number,
 *   legTimeout?: number }} options
 *   (`ids` and `runTargets` limit the rows run; a limited run misses rows, so its summary fails;
 *   `callTimeout`, default 15 s, bounds each call; `legTimeout`, default 120 s, each leg's steps)
 * @returns {Promise<{ results: object[], summary(metadata: { guard: string, sha: string }): object }>}
 */
export async function run(set, options = {}) {
  D.checkSet(set);
  if (!isObject(options)) throw new D.GuardVectorError('run options', 'must be an object');
  const { clientFactory, parallel = 1, fixture, log, transport = 'cdp', ownStatic = false } = options;
  if (clientFactory === undefined && options.client === undefined) throw new D.GuardVectorError('run options', 'need clientFactory (per row) or client (the guarded client)');
  if (clientFactory !== undefined && typeof clientFactory !== 'function') throw new D.GuardVectorError('run options/clientFactory', 'must be a function returning a client or { client, unguarded, close, transportVariant }');
  if (options.client !== undefined) D.checkClient(options.client, 'run options/client');
  if (options.unguarded !== undefined) D.checkClient(options.unguarded, 'run options/unguarded');
  if (!isObject(options.targets)) throw new D.GuardVectorError('run options/targets', 'must map ordinary, ordinary-same-site, seven, vault, vault-x, apex, own and client to origins (null for an unavailable one)');
  D.checkOrigins(options.targets);
  if (fixture !== undefined && (fixture === null || typeof fixture.log !== 'function')) throw new D.GuardVectorError('run options/fixture', 'must have log() returning the request log (fixtureServer() does)');
  if (log !== undefined && typeof log !== 'function') throw new D.GuardVectorError('run options/log', 'must be a function receiving each completed row');
  if (!Number.isInteger(parallel) || parallel < 1) throw new D.GuardVectorError('run options/parallel', `must be a whole number of slots, 1 or more, not ${JSON.stringify(parallel)}`);
  const caps = D.capabilitySet(options.capabilities);
  const callTimeout = options.callTimeout || CALL_TIMEOUT;
  const scope = isObject(options.capabilities) && typeof options.capabilities.scope === 'string' ? options.capabilities.scope : undefined;
  const variants = options.variant === undefined ? Object.keys(set.variants) : [].concat(options.variant);
  for (const v of variants) if (!(v in set.variants) && !/^[a-z0-9-]+$/.test(v)) throw new D.GuardVectorError('run options/variant', `${JSON.stringify(v)} is not a variant name`);
  const delayOf = (v) => (v in set.variants ? set.variants[v] : Number((v.match(/([0-9]+)(m?s)?$/) || [])[1] || 0) * (/[0-9]s$/.test(v) && !/ms$/.test(v) ? 1000 : 1));
  const ids = options.ids;
  const jobs = [];
  for (const vector of set.vectors) {
    if (!(vector.scope === 'any' || vector.scope === scope)) continue;
    if (Array.isArray(ids) && !ids.includes(vector.id)) continue;
    for (const target of vector.targets) {
      if (Array.isArray(options.runTargets) && !options.runTargets.includes(target)) continue;
      for (const variant of variants) jobs.push({ vector, target, variant, order: jobs.length });
    }
  }
  const env = (observer) => ({ origins: options.targets, capabilities: caps, observer, ownStatic });
  const results = new Array(jobs.length);
  let serial = Promise.resolve();
  const runJob = async (job, slot) => {
    const { vector, target, variant } = job;
    const made = clientFactory ? await clientFactory({ variant, detachDelay: delayOf(variant), vector, target, slot }) : { client: options.client, unguarded: options.unguarded };
    const clients = normalizeClients(made, 'clientFactory');
    D.checkClient(clients.client, 'clientFactory(…).client');
    if (clients.unguarded !== undefined) D.checkClient(clients.unguarded, 'clientFactory(…).unguarded');
    const e = env(clients.unguarded !== undefined);
    const spec = { vector, target, variant, transport, transportVariant: clients.transportVariant };
    try {
      const decided = D.precheck(spec, e);
      if (decided) return decided;
      const unguardedControl = vector.control.via === 'unguarded';
      const runs = unguardedControl
        ? [['control', 'control', clients.unguarded], ['control', 'guarded', clients.unguarded], ['guarded', 'guarded', clients.client]]
        : [['control', 'control', clients.client], ['guarded', 'guarded', clients.client]];
      const fresh = caps.browserContexts && !usesDefaultContext(vector);
      const done = [];
      for (const [side, varsLeg, client] of runs) {
        const tag = newTag();
        const vars = D.legVars({ origins: options.targets, leg: varsLeg, target, tag });
        const steps = D.steps(vector, side, vars);
        let context;
        if (fresh) {
          context = await D.withTimeout(client.send('Target.createBrowserContext', {}, undefined), callTimeout, 'Target.createBrowserContext').then((r) => r.browserContextId, () => undefined);
        }
        const leg = new Leg({ vector, side, vars, steps, client, observer: clients.unguarded, fixture, context, plant: plantsCanary(vector), detachDelay: delayOf(variant), callTimeout, legTimeout: options.legTimeout || LEG_TIMEOUT });
        const record = await leg.run();
        if (context) await D.withTimeout(client.send('Target.disposeBrowserContext', { browserContextId: context }, undefined), callTimeout, 'Target.disposeBrowserContext').catch(() => null);
        done.push({ vars, record });
      }
      const row = D.judgeRow(spec, e, done.slice(0, -1), done[done.length - 1]);
      return row;
    } finally {
      if (typeof clients.close === 'function') await Promise.resolve(clients.close()).catch(() => null);
    }
  };
  const needsSerial = (v) => !caps.browserContexts && (plantsCanary(v) !== 'no' || usesDefaultContext(v));
  const queue = [...jobs];
  const slots = clientFactory ? Math.min(parallel, Math.max(1, jobs.length)) : 1;
  const worker = async (slot) => {
    for (;;) {
      const job = queue.shift();
      if (!job) return;
      let row;
      const go = async () => {
        try {
          row = await runJob(job, options.slot ?? slot);
        } catch (err) {
          const spec = { vector: job.vector, target: job.target, variant: job.variant, transport };
          row = D.result(job.vector, { ...spec, via: job.vector.control.via, control: 'fail', guarded: 'fail', live: 'fail', errors: [`row: ${err && err.message ? err.message : err}`] });
        }
      };
      if (needsSerial(job.vector)) {
        const turn = serial.then(go);
        serial = turn.catch(() => null);
        await turn;
      } else {
        await go();
      }
      results[job.order] = row;
      if (log) {
        try {
          log(row);
        } catch {
          // a logger's error does not stop the run
        }
      }
    }
  };
  await Promise.all(Array.from({ length: slots }, (_, i) => worker(i)));
  const rows = results.filter(Boolean);
  return {
    results: rows,
    summary: (metadata = {}) => D.summary({ guard: metadata.guard ?? 'guard', sha: metadata.sha ?? 'unknown', set, results: rows, variants, transports: [transport], scope }),
  };
}
