// Judges recorded legs with guard-driver.mjs: browser-clean (no Node APIs), so the same code runs
// in Node (tests/js/judge-records-node.mjs) and in a plain page (tests/js/judge-page.html).
//
// A case is what the crate's runner recorded for one row: { id, target, variant, transport,
// transportVariant, origins, observer, runs: [{ name, vars, record }] }; the runs are the
// control's (one, or two for an unguarded control) and then the guarded leg's.

export function judgeCases(driver, sets, cases) {
  return cases.map((c) => {
    const set = sets[c.set];
    const vector = set.vectors.find((v) => v.id === c.id);
    if (!vector) throw new Error(`${c.id}: no such vector in ${c.set}`);
    const spec = { vector, target: c.target, variant: c.variant, transport: c.transport, transportVariant: c.transportVariant };
    const env = { origins: c.origins, capabilities: c.capabilities, observer: c.observer, ownStatic: false };
    const runs = c.runs.map((r) => ({ vars: r.vars, record: r.record }));
    if (runs.length === 0) return driver.judgeRow(spec, env, [], { vars: {}, record: {} });
    const guarded = runs[runs.length - 1];
    return driver.judgeRow(spec, env, runs.slice(0, -1), guarded);
  });
}
