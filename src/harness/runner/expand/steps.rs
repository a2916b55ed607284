//! A leg's steps: §3.2's flat indexes and refusal names, `on` filtering, placeholders expanded.

use super::leg::{Leg, Phase};
use super::vars::Vars;
use crate::error::Error;
use crate::vectors::{Step, Vector};

/// One step of a leg, ready for the driver.
#[derive(Debug, Clone, PartialEq)]
pub struct LegStep {
    /// The step's flat index (§3.2: `setup` then `trigger`, each `children` step followed by its
    /// nested steps depth-first, `text` steps counted, before `on` filtering).
    pub index: usize,
    /// The phase it belongs to (nested steps take their `children` step's).
    pub phase: Phase,
    /// The step, placeholders expanded with the variables known when the leg was built; a
    /// `page: "tab"` step without `background` gets `background: true`. For a `children` step
    /// run [`LegStep::children`], not the nested steps inside this value.
    pub step: Step,
    /// The refusal name of a refusable step: its `as`, or `refused.<index>`.
    pub refusal_name: Option<String>,
    /// A `children` step's nested steps that run on this leg (a nested step's own `on`
    /// decides), each with its own flat index.
    pub children: Vec<LegStep>,
}

/// The refusal name of each refusable step, with its flat index, in step order (§3.2): the
/// guard module's flattening (that of [`Vector::all_steps`]) and
/// [`refusal_name`](crate::vectors::refusal_name), with the indexes kept.
pub fn refusal_names(vector: &Vector) -> Vec<(usize, String)> {
    crate::vectors::flatten(&vector.setup, &vector.trigger)
        .into_iter()
        .filter(|f| f.step.is_refusable())
        .map(|f| {
            (
                f.index,
                crate::vectors::refusal_name(f.step.name(), f.index),
            )
        })
        .collect()
}

/// The steps of one leg: `on` filtering applied after the flat indexes and refusal names were
/// computed, placeholders expanded with `vars`.
pub fn leg_steps(vector: &Vector, leg: Leg, vars: &Vars) -> Result<Vec<LegStep>, Error> {
    let mut index = 0;
    let mut out = Vec::new();
    build_steps(&vector.setup, Phase::Setup, leg, vars, &mut index, &mut out)
        .map_err(|e| locate(e, &vector.id))?;
    build_steps(
        &vector.trigger,
        Phase::Trigger,
        leg,
        vars,
        &mut index,
        &mut out,
    )
    .map_err(|e| locate(e, &vector.id))?;
    Ok(out)
}

fn locate(e: Error, id: &str) -> Error {
    match e {
        Error::Invalid { path, message } => Error::invalid(format!("{id}/{path}"), message),
        other => other,
    }
}

fn build_steps(
    steps: &[Step],
    phase: Phase,
    leg: Leg,
    vars: &Vars,
    index: &mut usize,
    out: &mut Vec<LegStep>,
) -> Result<(), Error> {
    for step in steps {
        let i = *index;
        *index += 1;
        let runs = step.runs_on(leg.as_str());
        let mut children = Vec::new();
        // nested steps are counted whether or not this step runs on the leg
        build_steps(step.children(), phase, leg, vars, index, &mut children)?;
        if !runs {
            continue;
        }
        let mut expanded = vars
            .expand_step(step)
            .map_err(|e| Error::invalid(format!("step {i}"), e.to_string()))?;
        if let Step::Page(p) = &mut expanded {
            if p.page == "tab" && p.background.is_none() {
                p.background = Some(true);
            }
        }
        out.push(LegStep {
            index: i,
            phase,
            refusal_name: step
                .is_refusable()
                .then(|| crate::vectors::refusal_name(step.name(), i)),
            step: expanded,
            children,
        });
    }
    Ok(())
}
