//! Preparing a seven profile: the catalog's prefs, clean-exit values and discard exceptions
//! merged into `<profile>/Default/Preferences`.
//!
//! The merge keeps every other key (and the order of keys), writes only when something
//! changed, and writes atomically (a temporary file in the same dir, then a rename), so a
//! second run leaves the file byte for byte as it was. A file that is not a JSON object, or
//! whose keys run through a value of another type, is reported and never overwritten.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use crate::catalog::Catalog;
use crate::catalog::{Origin, Pref};
use crate::json::pointer;

use super::profiles::is_six_dir_in;
use super::{Error, SevenProfile};

/// Seconds from 1601-01-01 to 1970-01-01 UTC (Chrome's `base::Time` epoch to Unix's).
const SECONDS_1601_TO_1970: u64 = 11_644_473_600;

/// A time as Chrome stores it in prefs: microseconds since 1601-01-01 UTC (0 before then).
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use slicc_browsers::launch::chrome_time;
/// assert_eq!(chrome_time(UNIX_EPOCH), 11_644_473_600_000_000);
/// assert_eq!(chrome_time(UNIX_EPOCH + Duration::from_micros(1)), 11_644_473_600_000_001);
/// ```
pub fn chrome_time(time: SystemTime) -> u64 {
    let base = SECONDS_1601_TO_1970 * 1_000_000;
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => base.saturating_add(u64::try_from(after.as_micros()).unwrap_or(u64::MAX)),
        Err(before) => {
            base.saturating_sub(u64::try_from(before.duration().as_micros()).unwrap_or(u64::MAX))
        }
    }
}

/// The current time as Chrome stores it: [`chrome_time`] of now.
pub fn chrome_time_now() -> u64 {
    chrome_time(SystemTime::now())
}

/// The sites seven's tabs are kept on: `seven.sitePattern`, then the host of each extra seven
/// origin, without duplicates.
///
/// An extra origin is read by [`Origin::parse_extra`], the protected-origin matcher's reader,
/// so it fails with [`Error::InvalidOrigin`] where the matcher refuses the origin (user info, a
/// path, query or fragment), and its host is the one the matcher compares (`http://0x7f.1:5710`
/// gives `127.0.0.1`, `http://LOCALHOST.:5710` gives `localhost`).
///
/// ```
/// let cat = slicc_browsers::shared_catalog();
/// let sites = slicc_browsers::launch::seven_sites(cat, &["http://127.0.0.1:5710"]).unwrap();
/// assert_eq!(sites, ["[*.]sliccy.ai", "127.0.0.1"]);
/// ```
pub fn seven_sites<S: AsRef<str>>(
    catalog: &Catalog,
    extra_origins: &[S],
) -> Result<Vec<String>, Error> {
    let mut sites = vec![catalog.seven.site_pattern.clone()];
    for origin in extra_origins {
        let origin = origin.as_ref();
        // The protected-origin matcher's reader: a value it refuses is refused here too.
        let host =
            Origin::parse_extra(origin)
                .map(|o| o.host)
                .map_err(|_| Error::InvalidOrigin {
                    origin: origin.to_string(),
                })?;
        if !sites.contains(&host) {
            sites.push(host);
        }
    }
    Ok(sites)
}

/// Merges the catalog's `seven.prefs` and `seven.cleanExit` into a Preferences object, and
/// adds `sites` to each of `seven.discardExceptions` (a list: appended when missing; a
/// chrome-time-map: added when missing with `now`, a [`chrome_time`], as a decimal string).
///
/// Returns whether anything changed. On an error nothing useful is left in `prefs`: the caller
/// discards it. The error's path is `Preferences`, its message names the key path.
pub fn merge_preferences(
    catalog: &Catalog,
    prefs: &mut Value,
    sites: &[String],
    now: u64,
) -> Result<bool, Error> {
    let Some(root) = prefs.as_object_mut() else {
        return Err(Error::prefs(
            "Preferences",
            format!("the top level is {}, not a JSON object", kind(prefs)),
        ));
    };
    let mut changed = false;
    for pref in catalog.seven.prefs.iter().chain(&catalog.seven.clean_exit) {
        changed |= set_pref(root, pref)?;
    }
    for exception in &catalog.seven.discard_exceptions {
        let (leaf, parent) = parent_object(root, &exception.path)?;
        let at = pointer(&exception.path);
        match exception.kind.as_str() {
            "list" => {
                let existed = parent.contains_key(leaf);
                let list = parent
                    .entry(leaf.to_string())
                    .or_insert_with(|| Value::Array(Vec::new()));
                let Some(list) = list.as_array_mut() else {
                    return Err(not_a(&at, "a list", list));
                };
                let before = list.len();
                for site in sites {
                    if !list.iter().any(|v| v.as_str() == Some(site)) {
                        list.push(Value::String(site.clone()));
                    }
                }
                changed |= !existed || list.len() != before;
            }
            "chrome-time-map" => {
                let existed = parent.contains_key(leaf);
                let map = parent
                    .entry(leaf.to_string())
                    .or_insert_with(|| Value::Object(Map::new()));
                let Some(map) = map.as_object_mut() else {
                    return Err(not_a(&at, "an object", map));
                };
                changed |= !existed;
                for site in sites {
                    if !map.contains_key(site) {
                        map.insert(site.clone(), Value::String(now.to_string()));
                        changed = true;
                    }
                }
            }
            other => {
                return Err(Error::prefs(
                    "Preferences",
                    format!("{at}: the catalog's discard-exception type {other:?} is not known"),
                ))
            }
        }
    }
    Ok(changed)
}

/// Sets one pref; true when the value was not already there.
fn set_pref(root: &mut Map<String, Value>, pref: &Pref) -> Result<bool, Error> {
    let (leaf, parent) = parent_object(root, &pref.path)?;
    if parent.get(leaf) == Some(&pref.value) {
        return Ok(false);
    }
    parent.insert(leaf.to_string(), pref.value.clone());
    Ok(true)
}

/// The object that holds the last key of `path`, creating missing objects on the way.
fn parent_object<'m>(
    root: &'m mut Map<String, Value>,
    path: &'m [String],
) -> Result<(&'m str, &'m mut Map<String, Value>), Error> {
    let Some((leaf, parents)) = path.split_last() else {
        return Err(Error::prefs(
            "Preferences",
            "the catalog gives an empty key path",
        ));
    };
    let mut object = root;
    for (i, key) in parents.iter().enumerate() {
        let value = object
            .entry(key.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        if !value.is_object() {
            return Err(not_a(&pointer(&path[..=i]), "an object", value));
        }
        object = value.as_object_mut().expect("checked to be an object");
    }
    Ok((leaf, object))
}

fn not_a(at: &str, wanted: &str, found: &Value) -> Error {
    Error::prefs(
        "Preferences",
        format!("{at} is {}, not {wanted}", kind(found)),
    )
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// What [`SevenProfile::prepare`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// The Preferences file.
    pub path: PathBuf,
    /// The file did not exist and was created.
    pub created: bool,
    /// The file was written (false when it already held every value).
    pub changed: bool,
}

impl SevenProfile {
    /// Merges the catalog's prefs, clean-exit values and seven's discard exceptions (the site
    /// pattern and the hosts of `extra_origins`) into `<dir>/Default/Preferences`, creating
    /// it when missing. `now` is the [`chrome_time`] written for new time-map entries.
    ///
    /// The dir is checked again after resolving symlinks: a path that leads into SLICC six's
    /// profile is refused. A Preferences file that is not a JSON object is left untouched.
    pub fn prepare<S: AsRef<str>>(
        &self,
        catalog: &Catalog,
        extra_origins: &[S],
        now: u64,
    ) -> Result<Prepared, Error> {
        let real_dir = resolved(self.dir());
        let root = self.six_root.as_deref().map(resolved);
        let env_dir = self.six_env_dir.as_deref().map(resolved);
        if self.is_six(catalog, &real_dir)
            || is_six_dir_in(catalog, &real_dir, root.as_deref(), env_dir.as_deref())
        {
            return Err(Error::SixProfile {
                dir: self.dir().to_string(),
            });
        }
        let sites = seven_sites(catalog, extra_origins)?;
        let default_dir = Path::new(self.dir()).join("Default");
        let path = default_dir.join("Preferences");
        let shown = path.display().to_string();

        let existing = match fs::read(&path) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io(&shown, "read", &e)),
        };
        let mut prefs = match &existing {
            None => Value::Object(Map::new()),
            Some(bytes) => serde_json::from_slice(bytes)
                .map_err(|e| Error::prefs(&shown, format!("not JSON: {e}")))?,
        };
        let changed = merge_preferences(catalog, &mut prefs, &sites, now).map_err(|e| match e {
            Error::Preferences { message, .. } => Error::prefs(&shown, message),
            other => other,
        })?;
        if !changed && existing.is_some() {
            return Ok(Prepared {
                path,
                created: false,
                changed: false,
            });
        }
        let text = serde_json::to_string(&prefs)
            .map_err(|e| Error::prefs(&shown, format!("cannot serialise: {e}")))?;
        fs::create_dir_all(&default_dir)
            .map_err(|e| Error::io(default_dir.display().to_string(), "create dir", &e))?;
        write_atomically(&path, text.as_bytes())?;
        Ok(Prepared {
            path,
            created: existing.is_none(),
            changed: true,
        })
    }

    /// [`SevenProfile::prepare`] with the current time.
    pub fn prepare_now<S: AsRef<str>>(
        &self,
        catalog: &Catalog,
        extra_origins: &[S],
    ) -> Result<Prepared, Error> {
        self.prepare(catalog, extra_origins, chrome_time_now())
    }
}

/// Writes `bytes` to a new file beside `path`, then renames it over `path`, keeping the old
/// file's permissions. The temporary file is removed when anything fails.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let shown = path.display().to_string();
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // No process id on WASI: a counter and the clock make the name unique enough, and
    // create_new refuses to reuse one that exists.
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.slicc-{nanos}-{n}.tmp"));
    let result = (|| -> io::Result<()> {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(bytes)?;
        if let Ok(meta) = fs::metadata(path) {
            file.set_permissions(meta.permissions())?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io(&shown, "write", &e)
    })
}

/// `path` with its longest existing ancestor's symlinks resolved (unchanged where the system
/// cannot resolve them, as on WASI).
fn resolved(path: &str) -> String {
    let path = Path::new(path);
    let mut tail = Vec::new();
    let mut head = path;
    loop {
        if let Ok(real) = fs::canonicalize(head) {
            let mut out = real;
            for part in tail.iter().rev() {
                out.push(part);
            }
            return out.display().to_string();
        }
        match (head.parent(), head.file_name()) {
            (Some(parent), Some(name)) => {
                tail.push(name.to_os_string());
                head = parent;
            }
            _ => return path.display().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_path_in_a_message_is_an_escaped_json_pointer() {
        let mut root = serde_json::json!({"a/b": {"m~n": 1}});
        let root = root.as_object_mut().unwrap();
        let path = ["a/b".to_string(), "m~n".to_string(), "leaf".to_string()];
        match parent_object(root, &path) {
            Err(Error::Preferences { message, .. }) => {
                assert_eq!(message, "/a~1b/m~0n is a number, not an object")
            }
            other => panic!("expected a Preferences error, got {other:?}"),
        }
    }
}
