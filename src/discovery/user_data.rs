//! Source §2.3: DevToolsActivePort in each catalog browser's default user-data dirs.

use super::active_port;
use super::candidate::Candidate;
use super::Context;

/// Every browser's default user-data dirs, in catalog order, each checked for a file.
pub(crate) fn collect(cx: &Context<'_>, out: &mut Vec<Candidate>) {
    let Some(home) = cx.home.as_deref() else {
        return;
    };
    for browser in &cx.catalog.browsers {
        for dir in cx.catalog.user_data_dirs(browser, cx.os, home, cx.env()) {
            if let Some(mut c) = active_port::candidate(cx.host, cx.os, cx.active_port_file(), &dir)
            {
                c.browser = Some(browser.id.clone());
                out.push(c);
            }
        }
    }
}
