//! Filtering (§3), tiers (§4.1) and order (§4.2).

use std::cmp::Ordering;

use crate::catalog::{split_host_port, Catalog};

use super::output::{Endpoint, Entry, Installed, Kind, Output};

/// What an entry sorts by within its tier.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    /// Endpoints: host byte-wise (our choice), then port as a number.
    Endpoint { host: String, port: u16 },
    /// Installed: catalog index (tier 4 only), then name without case, id and path.
    Installed {
        priority: usize,
        name: String,
        id: String,
        path: String,
    },
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Key::Endpoint { host: h1, port: p1 }, Key::Endpoint { host: h2, port: p2 }) => {
                h1.as_bytes().cmp(h2.as_bytes()).then(p1.cmp(p2))
            }
            (
                Key::Installed {
                    priority: a,
                    name: n1,
                    id: i1,
                    path: x1,
                },
                Key::Installed {
                    priority: b,
                    name: n2,
                    id: i2,
                    path: x2,
                },
            ) => a
                .cmp(b)
                .then_with(|| n1.cmp(n2))
                .then_with(|| i1.cmp(i2))
                .then_with(|| x1.cmp(x2)),
            // Tiers never mix endpoints and installed records.
            (Key::Endpoint { .. }, Key::Installed { .. }) => Ordering::Less,
            (Key::Installed { .. }, Key::Endpoint { .. }) => Ordering::Greater,
        }
    }
}

/// The host (an IPv6 one in brackets, as `cdp` writes it) and port of an endpoint's `cdp`
/// (`scheme://host:port`): the order §4 sorts endpoints by within a tier.
fn host_port(cdp: &str) -> (String, u16) {
    let authority = cdp.split_once("://").map_or(cdp, |(_, a)| a);
    match split_host_port(authority) {
        Some((_, Some(port))) => {
            // The host as written, brackets and all: the authority without `:port`.
            let host = &authority[..authority.len() - port.len() - 1];
            (host.to_string(), port.parse().unwrap_or(0))
        }
        _ => (authority.to_string(), 0),
    }
}

/// The tier of an installed record: `rank.chromeId` exactly, else Electron by engine, else
/// any other Chromium browser.
pub fn installed_tier(catalog: &Catalog, record: &Installed) -> u8 {
    let tiers = &catalog.rank.tiers;
    if record.id == catalog.rank.chrome_id {
        tiers.chrome
    } else if record.engine == "electron" {
        tiers.electron
    } else {
        tiers.chromium
    }
}

/// Whether an installed record survives §3.2: only a Chromium-engine record of a catalog
/// browser with `chromiumVersion` whose version starts below the minimum is dropped.
pub fn installed_passes(catalog: &Catalog, record: &Installed) -> bool {
    record.engine != "chromium" || catalog.installed_passes(&record.id, record.version.as_deref())
}

/// Filters, tiers and sorts endpoints and installed records into output schema 1.
///
/// Endpoints whose user agent names a Chromium major below `minChromiumMajor` are dropped, and
/// so are installed records that fail [`installed_passes`]. Entries sort by tier, then as
/// §4.2 says.
pub fn rank(catalog: &Catalog, endpoints: Vec<Endpoint>, installed: &[Installed]) -> Output {
    let tiers = &catalog.rank.tiers;
    let mut keyed: Vec<(u8, Key, Entry)> = Vec::new();
    for e in endpoints {
        if !e
            .user_agent
            .as_deref()
            .is_none_or(|ua| catalog.user_agent_passes(ua))
        {
            continue;
        }
        let tier = if e.six {
            tiers.six
        } else if e.seven_open {
            tiers.seven_open
        } else {
            tiers.endpoint
        };
        let (host, port) = host_port(&e.cdp);
        let entry = Entry {
            id: format!(
                "cdp:{}",
                e.cdp.split_once("://").map_or(e.cdp.as_str(), |(_, a)| a)
            ),
            kind: Kind::Endpoint,
            tier,
            name: e.name.clone(),
            version: e.version.clone(),
            endpoint: Some(e),
            installed: None,
        };
        keyed.push((tier, Key::Endpoint { host, port }, entry));
    }
    for record in installed {
        if !installed_passes(catalog, record) {
            continue;
        }
        let tier = installed_tier(catalog, record);
        let priority = if tier == tiers.chromium {
            catalog.priority(&record.id)
        } else {
            0
        };
        let key = Key::Installed {
            priority,
            name: record.name.to_lowercase(),
            id: record.id.clone(),
            path: record.path.clone(),
        };
        let entry = Entry {
            id: record.id.clone(),
            kind: Kind::Installed,
            tier,
            name: record.name.clone(),
            version: record.version.clone(),
            endpoint: None,
            installed: Some(record.clone()),
        };
        keyed.push((tier, key, entry));
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    Output {
        schema: crate::files::SCHEMA,
        min_chromium: catalog.min_chromium_major,
        entries: keyed.into_iter().map(|(_, _, e)| e).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_splits_ipv6() {
        assert_eq!(
            host_port("http://[fe80::1]:5000"),
            ("[fe80::1]".to_string(), 5000)
        );
        assert_eq!(host_port("https://h:1"), ("h".to_string(), 1));
    }

    #[test]
    fn installed_records_tier_and_filter() {
        let cat = crate::catalog();
        let rec = |id: &str, engine: &str, version: Option<&str>| {
            let mut r = Installed::new(id, id, engine, "/p", "/p", "supported");
            r.version = version.map(str::to_string);
            r
        };
        assert_eq!(installed_tier(&cat, &rec("chrome", "chromium", None)), 3);
        assert_eq!(
            installed_tier(&cat, &rec("chrome-beta", "chromium", None)),
            4
        );
        assert_eq!(
            installed_tier(&cat, &rec("electron:x", "electron", None)),
            5
        );
        assert!(!installed_passes(
            &cat,
            &rec("chrome", "chromium", Some("115.0"))
        ));
        assert!(installed_passes(
            &cat,
            &rec("chrome", "chromium", Some("116.0"))
        ));
        assert!(installed_passes(
            &cat,
            &rec("brave", "chromium", Some("1.60.1"))
        ));
        assert!(installed_passes(
            &cat,
            &rec("chrome", "electron", Some("1.0"))
        ));
        assert!(installed_passes(
            &cat,
            &rec("unknown", "chromium", Some("1.0"))
        ));
    }
}
