//! Source §2.4: DevToolsActivePort in each seven profile of the profile roots.

use crate::catalog::{join_path, Os};

use super::active_port;
use super::candidate::Candidate;
use super::Context;

/// The seven profile roots: `<config>/slicc/seven-profiles` and, on Linux, each snap's root.
/// The legacy root is never among them.
pub(crate) fn roots(cx: &Context<'_>) -> Vec<String> {
    let Some(home) = cx.home.as_deref() else {
        return Vec::new();
    };
    let mut roots: Vec<String> = cx
        .catalog
        .seven_profiles_root(cx.os, home, cx.env())
        .into_iter()
        .collect();
    if cx.os == Os::Linux {
        for root in cx.catalog.snap_profile_roots(home) {
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
    }
    roots
}

/// Each sub-directory of each root whose name is a valid profile name (our choice), in name
/// order.
pub(crate) fn collect(cx: &Context<'_>, out: &mut Vec<Candidate>) {
    for root in roots(cx) {
        for entry in cx.host.list_dir(&root) {
            if !entry.is_dir || !cx.catalog.valid_profile_name(&entry.name) {
                continue;
            }
            let dir = join_path(cx.os, &root, &[entry.name.as_str()]);
            if let Some(mut c) = active_port::candidate(cx.host, cx.os, cx.active_port_file(), &dir)
            {
                c.profile = Some(entry.name);
                out.push(c);
            }
        }
    }
}
