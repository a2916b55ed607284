//! Merging by host and port (§2.10) and describing each endpoint (§1.3).

use serde_json::Value;

use crate::catalog::{Catalog, SourceRank};

use super::candidate::Found;
use super::output::{Endpoint, SevenTab, Source};
use crate::http::authority;
use crate::http::Http;

/// One endpoint: the candidates that found the same host and port, reduced to the winner.
#[derive(Debug, Clone)]
pub(crate) struct Merged {
    /// The candidate with the lowest source rank, first found on a tie.
    pub winner: Found,
    /// Whether any candidate in the group is six's.
    pub six: bool,
    /// The winner's dir, else a six candidate's.
    pub user_data_dir: Option<String>,
}

fn rank_of(ranks: &SourceRank, source: Source) -> u32 {
    match source {
        Source::DevtoolsActivePort => ranks.devtools_active_port,
        Source::Flag => ranks.flag,
        Source::Process => ranks.process,
        Source::Probe => ranks.probe,
    }
}

/// Groups the candidates that passed their checks by host and port, in first-found order.
pub(crate) fn merge(found: Vec<Found>, ranks: &SourceRank) -> Vec<Merged> {
    let mut groups: Vec<Vec<Found>> = Vec::new();
    for f in found {
        match groups
            .iter_mut()
            .find(|g| g[0].host == f.host && g[0].port == f.port)
        {
            Some(group) => group.push(f),
            None => groups.push(vec![f]),
        }
    }
    groups
        .into_iter()
        .map(|group| {
            let mut best = 0;
            for (i, f) in group.iter().enumerate() {
                if rank_of(ranks, f.candidate.source) < rank_of(ranks, group[best].candidate.source)
                {
                    best = i;
                }
            }
            let six = group.iter().any(|f| f.candidate.six);
            let user_data_dir = group[best].candidate.user_data_dir.clone().or_else(|| {
                group
                    .iter()
                    .filter(|f| f.candidate.six)
                    .find_map(|f| f.candidate.user_data_dir.clone())
            });
            let mut group = group;
            let winner = group.swap_remove(best);
            Merged {
                winner,
                six,
                user_data_dir,
            }
        })
        .collect()
}

/// The endpoint's name (§1.3.1): a known browser dir's browser, else Electron by user agent,
/// else the (mapped) product, else the fallback.
fn name(catalog: &Catalog, m: &Merged) -> String {
    let names = &catalog.discovery.names;
    if let Some(browser) = m
        .winner
        .candidate
        .browser
        .as_deref()
        .and_then(|id| catalog.browser(id))
    {
        return browser.name.clone();
    }
    let info = m.winner.info.as_ref();
    if info
        .and_then(|i| i.user_agent.as_deref())
        .is_some_and(|ua| ua.contains(&names.electron_user_agent))
    {
        return names.electron.clone();
    }
    if let Some(browser) = info.and_then(|i| i.browser.as_deref()) {
        let product = browser.split('/').next().unwrap_or(browser);
        if !product.is_empty() {
            return names
                .products
                .get(product)
                .cloned()
                .unwrap_or_else(|| product.to_string());
        }
    }
    names.fallback.clone()
}

/// The page targets on a seven origin in a `/json/list` answer, in its order (§1.3.2).
pub(crate) fn seven_tabs<S: AsRef<str>>(
    catalog: &Catalog,
    list: &Http,
    origins: &[S],
) -> Vec<SevenTab> {
    let Http::Response { status: 200, body } = list else {
        return Vec::new();
    };
    let Ok(Value::Array(targets)) = serde_json::from_slice::<Value>(body) else {
        return Vec::new();
    };
    let text = |t: &Value, key: &str| t.get(key).and_then(Value::as_str).map(str::to_string);
    targets
        .iter()
        .filter(|t| t.get("type").and_then(Value::as_str) == Some("page"))
        .filter_map(|t| {
            let url = text(t, "url")?;
            catalog.is_seven_origin(&url, origins).then(|| SevenTab {
                id: text(t, "id").unwrap_or_default(),
                url,
                title: text(t, "title").unwrap_or_default(),
            })
        })
        .collect()
}

/// The endpoint object of a merged endpoint, with its tabs.
pub(crate) fn describe(catalog: &Catalog, m: &Merged, tabs: Vec<SevenTab>) -> Endpoint {
    let w = &m.winner;
    let info = w.info.as_ref();
    let browser = info.and_then(|i| i.browser.as_deref());
    Endpoint {
        cdp: format!("{}://{}", w.scheme, authority(&w.host, w.port)),
        web_socket_debugger_url: w.ws_url.clone(),
        name: name(catalog, m),
        version: browser
            .and_then(|b| b.split_once('/'))
            .map(|(_, v)| v.to_string())
            .filter(|v| !v.is_empty()),
        product: browser.map(str::to_string),
        user_agent: info.and_then(|i| i.user_agent.clone()),
        source: w.candidate.source,
        browser: w.candidate.browser.clone(),
        user_data_dir: m.user_data_dir.clone(),
        profile: w.candidate.profile.clone(),
        ws_only: w.ws_only(),
        six: m.six,
        seven_open: !tabs.is_empty(),
        seven_tabs: tabs,
    }
}
