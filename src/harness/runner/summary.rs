//! Report rows and the certification summary. No I/O.
//!
//! A row is one (id, target, variant, transport). As JSON (one object per line with `--json`):
//!
//! ```json
//! {"id": "C1.script-nav", "target": "vault", "variant": "lagging", "transport": "cdp",
//!  "via": "guard", "control": "pass", "guarded": "pass", "live": "pass",
//!  "observations": {"control": {"arrived": true, "beaconed": true, "detached": false},
//!                   "guarded": {"beaconed": false, "detached": null, "initScript": true}},
//!  "errors": [], "transportVariant": false}
//! ```
//!
//! - `control`, `guarded`, `live`: `"pass"`, `"fail"`, `"skip"` or `"not-run"` (text rows).
//! - `reason`: present exactly when a status is `"skip"`. A row skips as a whole, so the three
//!   statuses are then all `"skip"` with this one reason, such as `not-supported:autoAttach`,
//!   `not-observable`, `not-applicable:no-vault-x-origin`, `not-supported:unguarded-observer`
//!   or the vector's own `skip.reason`.
//! - `observations`: per run (`control`; with an unguarded control also `controlProtected`,
//!   its run against the protected stand-in; `guarded`), each judged name to `true`, `false`,
//!   or `null` when skipped because a refusal it `dependsOn` was recorded; and each refusal
//!   name recorded on that run to `true`.
//! - `errors`: why a status is `fail` (mismatches, leg errors, invalid checks, liveness that
//!   proves nothing), each prefixed with its run.
//! - `transportVariant`: whether the guard's factory acknowledged the variant's delay.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::vectors::Vectors;

/// The skip reason of a row that needs an unguarded observer when none was supplied.
pub const SKIP_OBSERVER: &str = "not-supported:unguarded-observer";

/// The status of a row's control, guarded leg or liveness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// `pass`
    Pass,
    /// `fail`
    Fail,
    /// `skip` (the row's `reason` says why)
    Skip,
    /// `not-run`: a text row, described in words
    NotRun,
}

impl Status {
    /// `pass`, `fail`, `skip` or `not-run`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::NotRun => "not-run",
        }
    }
}

/// Observations of one run: name to `true`, `false` or `null` (skipped).
pub type Observed = BTreeMap<String, Option<bool>>;

/// One report row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// The vector's id.
    pub id: String,
    /// The protected target.
    pub target: String,
    /// The detach variant's name.
    pub variant: String,
    /// The transport's name (the guard's, such as `cdp` or `extension`).
    pub transport: String,
    /// How the control ran: `guard` or `unguarded`.
    pub via: String,
    /// The control's status.
    pub control: Status,
    /// The guarded leg's status.
    pub guarded: Status,
    /// The liveness status.
    pub live: Status,
    /// Why the row skipped (present exactly when it did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Per run (`control`, `controlProtected`, `guarded`), the observations.
    #[serde(default)]
    pub observations: BTreeMap<String, Observed>,
    /// Why a status is `fail`.
    #[serde(default)]
    pub errors: Vec<String>,
    /// Whether the guard's factory acknowledged the variant's delay.
    #[serde(default)]
    pub transport_variant: bool,
}

impl Row {
    /// A row with every status `status` and no observations.
    pub fn uniform(
        id: &str,
        target: &str,
        variant: &str,
        transport: &str,
        via: &str,
        status: Status,
        reason: Option<String>,
    ) -> Row {
        Row {
            id: id.to_string(),
            target: target.to_string(),
            variant: variant.to_string(),
            transport: transport.to_string(),
            via: via.to_string(),
            control: status,
            guarded: status,
            live: status,
            reason,
            observations: BTreeMap::new(),
            errors: Vec::new(),
            transport_variant: false,
        }
    }

    /// The three statuses.
    pub fn statuses(&self) -> [Status; 3] {
        [self.control, self.guarded, self.live]
    }

    /// Whether a status is `fail`.
    pub fn failed(&self) -> bool {
        self.statuses().contains(&Status::Fail)
    }

    /// Whether the row skipped.
    pub fn skipped(&self) -> bool {
        self.statuses().contains(&Status::Skip)
    }

    /// Whether the row is a text row reported `not-run`.
    pub fn not_run(&self) -> bool {
        self.statuses().contains(&Status::NotRun)
    }

    /// The row's key: (id, target, variant, transport).
    pub fn key(&self) -> RowKey {
        RowKey {
            id: self.id.clone(),
            target: self.target.clone(),
            variant: self.variant.clone(),
            transport: self.transport.clone(),
        }
    }
}

/// What identifies a row; a missing row is reported by its key.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RowKey {
    /// The vector's id.
    pub id: String,
    /// The protected target.
    pub target: String,
    /// The variant.
    pub variant: String,
    /// The transport.
    pub transport: String,
}

/// What a summary is made of.
#[derive(Debug, Clone, Copy)]
pub struct SummaryInput<'a> {
    /// The guard's name, as the line prints it.
    pub guard: &'a str,
    /// The guard's build (commit) as the line prints it.
    pub sha: &'a str,
    /// The vector set the rows ran.
    pub set: &'a Vectors,
    /// The guard's scope: vectors with this scope count besides `any` ones (`None`: `any`
    /// only).
    pub scope: Option<&'a str>,
    /// The variants expected. `None` (a certification) expects every variant of the set; a
    /// run limited to some variants passes them here. Variants found in the rows always count.
    pub variants: Option<&'a [String]>,
    /// The transports the run used; those found in the rows always count.
    pub transports: &'a [String],
    /// The rows.
    pub rows: &'a [Row],
}

/// The certification summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The set's `setVersion`.
    pub set: String,
    /// The set's `schemaVersion`.
    pub schema_version: u32,
    /// The guard's name.
    pub guard: String,
    /// The guard's build.
    pub sha: String,
    /// The variants expected.
    pub variants: Vec<String>,
    /// The targets of the vectors in scope.
    pub targets: Vec<String>,
    /// The transports expected.
    pub transports: Vec<String>,
    /// How many rows there are.
    pub rows: usize,
    /// Rows whose three statuses are `pass`.
    pub passed: usize,
    /// Rows with a `fail`.
    pub failed: usize,
    /// Rows that skipped.
    pub skipped: usize,
    /// Rows that skipped because no unguarded observer was supplied.
    pub observer_skipped: usize,
    /// Text rows (`not-run`).
    pub not_run: usize,
    /// Skipped rows per reason.
    pub skips: BTreeMap<String, usize>,
    /// Every expected row that has no result.
    pub missing: Vec<RowKey>,
    /// Nothing missing, no `fail`, and at least one row.
    pub pass: bool,
    /// `GUARD-PASS <guard>@<sha> (vectors slicc-browsers@X.Y.Z)` or `GUARD-FAIL …`, with
    /// ` skips <n> (<reason>=<count>, …)` when rows skipped.
    pub line: String,
}

/// Summarises rows: counts, skips per reason, the rows missing, and the certification line.
///
/// Expected rows: every vector whose scope is `any` or the guard's, every target it lists,
/// every expected variant, every transport. The line names the set as
/// `slicc-browsers@<setVersion>`, as issue 10 writes it (the spec's prose once writes
/// `@ai-ecoverse/slicc-browsers@…`, the npm name).
pub fn summarize(input: SummaryInput<'_>) -> Summary {
    let rows = input.rows;
    let mut variants: BTreeSet<String> = match input.variants {
        Some(v) => v.iter().cloned().collect(),
        None => input.set.variants.keys().map(str::to_string).collect(),
    };
    variants.extend(rows.iter().map(|r| r.variant.clone()));
    let mut transports: BTreeSet<String> = input.transports.iter().cloned().collect();
    transports.extend(rows.iter().map(|r| r.transport.clone()));

    let have: BTreeSet<RowKey> = rows.iter().map(Row::key).collect();
    let mut targets = BTreeSet::new();
    let mut missing = Vec::new();
    for v in input.set.vectors.iter().filter(|v| v.is_for(input.scope)) {
        for target in &v.targets {
            targets.insert(target.clone());
            for variant in &variants {
                for transport in &transports {
                    let key = RowKey {
                        id: v.id.clone(),
                        target: target.clone(),
                        variant: variant.clone(),
                        transport: transport.clone(),
                    };
                    if !have.contains(&key) {
                        missing.push(key);
                    }
                }
            }
        }
    }

    let mut skips: BTreeMap<String, usize> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.skipped()) {
        let reason = r.reason.clone().unwrap_or_else(|| "unknown".to_string());
        *skips.entry(reason).or_default() += 1;
    }
    let skipped = rows.iter().filter(|r| r.skipped()).count();
    let failed = rows.iter().filter(|r| r.failed()).count();
    let pass = missing.is_empty() && failed == 0 && !rows.is_empty();
    let mut line = format!(
        "{} {}@{} (vectors slicc-browsers@{})",
        if pass { "GUARD-PASS" } else { "GUARD-FAIL" },
        input.guard,
        input.sha,
        input.set.set_version
    );
    if skipped > 0 {
        let parts: Vec<String> = skips.iter().map(|(r, n)| format!("{r}={n}")).collect();
        line.push_str(&format!(" skips {skipped} ({})", parts.join(", ")));
    }
    Summary {
        set: input.set.set_version.clone(),
        schema_version: input.set.schema_version,
        guard: input.guard.to_string(),
        sha: input.sha.to_string(),
        variants: variants.into_iter().collect(),
        targets: targets.into_iter().collect(),
        transports: transports.into_iter().collect(),
        rows: rows.len(),
        passed: rows
            .iter()
            .filter(|r| r.statuses() == [Status::Pass; 3])
            .count(),
        failed,
        skipped,
        observer_skipped: skips.get(SKIP_OBSERVER).copied().unwrap_or(0),
        not_run: rows.iter().filter(|r| r.not_run()).count(),
        skips,
        missing,
        pass,
        line,
    }
}
