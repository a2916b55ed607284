//! Locations and the paths derived from them, as pure functions of OS, home and environment.
//!
//! Paths are strings joined with the separator of the OS under test, not of the machine this
//! runs on, so a Windows layout can be computed (and tested) anywhere.

use super::{Browser, Catalog, Location, Os};

/// A view of environment variables: `None` for an unset variable.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The user's home dir on `os`, from the environment: `USERPROFILE` on Windows, `HOME`
/// elsewhere; an empty value counts as unset.
///
/// This is the home every location is resolved under, and the one rule `list` (discovery's
/// `SystemHost`) and `launch` share. It follows what slicc-cli (Go's `os.UserHomeDir`) and
/// SLICC six (Node's `os.homedir()`) read: on Windows `HOME` is often a POSIX-style path set
/// by Git Bash or MSYS, not the profile dir, so it is not consulted there.
///
/// ```
/// use slicc_browsers::catalog::{home_dir, Os};
/// let env = |k: &str| match k {
///     "HOME" => Some("/c/Users/me".to_string()),
///     "USERPROFILE" => Some(r"C:\Users\me".to_string()),
///     _ => None,
/// };
/// assert_eq!(home_dir(Os::Windows, &env).as_deref(), Some(r"C:\Users\me"));
/// assert_eq!(home_dir(Os::Linux, &env).as_deref(), Some("/c/Users/me"));
/// assert_eq!(home_dir(Os::Macos, &|_: &str| Some(String::new())), None);
/// ```
pub fn home_dir(os: Os, env: Env<'_>) -> Option<String> {
    let name = match os {
        Os::Windows => "USERPROFILE",
        Os::Macos | Os::Linux => "HOME",
    };
    env(name).filter(|home| !home.is_empty())
}

/// A path as SLICC six's dirs are compared: lower case, `\` as `/`, runs of separators as
/// one, no trailing separator. Nothing is trimmed: a path with surrounding spaces is another
/// path.
///
/// ```
/// use slicc_browsers::catalog::six_path_key;
/// assert_eq!(six_path_key(r"C:\Users\X\AppData\Local/Slicc//profiles\"), "c:/users/x/appdata/local/slicc/profiles");
/// assert_eq!(six_path_key("/"), "/");
/// ```
pub fn six_path_key(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars().flat_map(char::to_lowercase) {
        let c = if c == '\\' { '/' } else { c };
        if c == '/' && out.ends_with('/') {
            continue;
        }
        out.push(c);
    }
    while out.len() > 1 && out.ends_with('/') {
        out.pop();
    }
    out
}

/// Joins `segments` to `base` with the separator of `os`.
///
/// Separators at the end of `base` are trimmed and separators at the join collapse; on
/// Windows every `/` in the segments becomes `\`.
///
/// ```
/// use slicc_browsers::catalog::{join_path, Os};
/// assert_eq!(join_path(Os::Linux, "/home/me/", &[".config", "google-chrome"]), "/home/me/.config/google-chrome");
/// assert_eq!(join_path(Os::Windows, r"C:\Users\me\", &["AppData/Local", "Google"]), r"C:\Users\me\AppData\Local\Google");
/// ```
pub fn join_path<S: AsRef<str>>(os: Os, base: &str, segments: &[S]) -> String {
    let sep = os.separator();
    let is_sep = |c: char| c == '/' || (os == Os::Windows && c == '\\');
    let mut out = base.trim_end_matches(is_sep).to_string();
    for segment in segments {
        let segment = segment.as_ref();
        let segment = if os == Os::Windows {
            segment.replace('/', "\\")
        } else {
            segment.to_string()
        };
        let segment = segment.trim_start_matches(is_sep).trim_end_matches(is_sep);
        if segment.is_empty() {
            continue;
        }
        out.push(sep);
        out.push_str(segment);
    }
    out
}

impl Location {
    /// Resolves the location: `env` when set and not empty (when `env_must_be_absolute`, only
    /// a value starting with `/`), else `absolute`, else `home` under the home dir. `None` for
    /// a location with neither `absolute` nor `home` and no usable variable.
    ///
    /// ```
    /// use slicc_browsers::catalog::{Location, Os};
    /// let loc = Location { env: Some("XDG_CONFIG_HOME".into()), home: Some(vec![".config".into()]), absolute: None };
    /// let env = |k: &str| (k == "XDG_CONFIG_HOME").then(|| "relative/dir".to_string());
    /// assert_eq!(loc.resolve(Os::Linux, "/home/me", &env, true).unwrap(), "/home/me/.config");
    /// assert_eq!(loc.resolve(Os::Linux, "/home/me", &env, false).unwrap(), "relative/dir");
    /// ```
    pub fn resolve(
        &self,
        os: Os,
        home: &str,
        env: Env<'_>,
        env_must_be_absolute: bool,
    ) -> Option<String> {
        if let Some(value) = self.env.as_deref().and_then(env) {
            if !value.is_empty() && (!env_must_be_absolute || value.starts_with('/')) {
                return Some(value);
            }
        }
        if let Some(absolute) = &self.absolute {
            return Some(absolute.clone());
        }
        self.home
            .as_ref()
            .map(|segments| join_path(os, home, segments))
    }
}

impl Catalog {
    /// The config dir of `os` (`platforms.<os>.config`): on Linux the variable counts only
    /// when it holds an absolute path.
    pub fn config_dir(&self, os: Os, home: &str, env: Env<'_>) -> Option<String> {
        let location = match os {
            Os::Macos => &self.platforms.macos.config,
            Os::Linux => &self.platforms.linux.config,
            Os::Windows => &self.platforms.windows.config,
        };
        location.resolve(os, home, env, os == Os::Linux)
    }

    /// Seven's profile root: the config dir joined with `profiles.root`.
    pub fn seven_profiles_root(&self, os: Os, home: &str, env: Env<'_>) -> Option<String> {
        let config = self.config_dir(os, home, env)?;
        Some(join_path(os, &config, &self.profiles.root))
    }

    /// The legacy profile root (never scanned): the config dir joined with `profiles.legacyRoot`.
    pub fn legacy_profiles_root(&self, os: Os, home: &str, env: Env<'_>) -> Option<String> {
        let config = self.config_dir(os, home, env)?;
        Some(join_path(os, &config, &self.profiles.legacy_root))
    }

    /// SLICC six's profile root on `os`: its base (any non-empty variable) and path.
    pub fn six_root(&self, os: Os, home: &str, env: Env<'_>) -> Option<String> {
        let root = match os {
            Os::Macos => &self.profiles.six.roots.macos,
            Os::Linux => &self.profiles.six.roots.linux,
            Os::Windows => &self.profiles.six.roots.windows,
        };
        let base = root.base.resolve(os, home, env, false)?;
        Some(join_path(os, &base, &root.path))
    }

    /// Six's profile named by `profiles.six.userDataDirEnv`, trimmed, when it is not empty.
    pub fn six_env_dir(&self, env: Env<'_>) -> Option<String> {
        let value = env(&self.profiles.six.user_data_dir_env)?;
        let trimmed = value.trim();
        (!trimmed.is_empty()).then(|| trimmed.to_string())
    }

    /// Whether the path key `dir` (see [`six_path_key`]) is one of SLICC six's profile dirs:
    /// the `SLICC_USER_DATA_DIR` dir (`env_dir`), or a dir right in six's root (`root`) whose
    /// name matches `profiles.sixProfilePattern`. Every argument is a [`six_path_key`].
    ///
    /// This is the one six-dir rule: discovery asks it of each dir as written and as resolved,
    /// launch of a dir and each of its parents. (Feature `patterns`.)
    #[cfg(feature = "patterns")]
    pub fn is_six_dir_key(&self, dir: &str, root: Option<&str>, env_dir: Option<&str>) -> bool {
        if env_dir == Some(dir) {
            return true;
        }
        match (root, dir.rsplit_once('/')) {
            (Some(root), Some((parent, last))) => parent == root && self.is_six_profile_name(last),
            _ => false,
        }
    }

    /// A Windows root by name (`platforms.windows.roots`), resolved.
    pub fn windows_root(&self, name: &str, home: &str, env: Env<'_>) -> Option<String> {
        self.platforms
            .windows
            .roots
            .get(name)?
            .resolve(Os::Windows, home, env, false)
    }

    /// A browser's default user-data dirs on `os`, in the order discovery checks them.
    ///
    /// macOS: the config dir + `macos.dataDir`. Windows: the `dataRoot` root + `dataDir`.
    /// Linux: the config dir + `configDir`, then the flatpak's `~/.var/app/<id>/config` +
    /// `configDir`, then the snap's `~/snap/<snap>/common` + `snapDataDir`.
    pub fn user_data_dirs(
        &self,
        browser: &Browser,
        os: Os,
        home: &str,
        env: Env<'_>,
    ) -> Vec<String> {
        let mut dirs = Vec::new();
        match os {
            Os::Macos => {
                if !browser.macos.data_dir.is_empty() {
                    if let Some(config) = self.config_dir(os, home, env) {
                        dirs.push(join_path(os, &config, &browser.macos.data_dir));
                    }
                }
            }
            Os::Windows => {
                if let Some(w) = &browser.windows {
                    if let Some(root) = self.windows_root(&w.data_root, home, env) {
                        dirs.push(join_path(os, &root, &w.data_dir));
                    }
                }
            }
            Os::Linux => {
                if let Some(l) = &browser.linux {
                    if let Some(config) = self.config_dir(os, home, env) {
                        dirs.push(join_path(os, &config, &l.config_dir));
                    }
                    if let Some(flatpak) = &l.flatpak {
                        let base = join_path(os, home, &[".var", "app", flatpak, "config"]);
                        dirs.push(join_path(os, &base, &l.config_dir));
                    }
                    if let (Some(snap), false) = (&l.snap, l.snap_data_dir.is_empty()) {
                        let base = join_path(os, home, &["snap", snap, "common"]);
                        dirs.push(join_path(os, &base, &l.snap_data_dir));
                    }
                }
            }
        }
        dirs
    }

    /// The snap seven-profile roots on Linux: `~/snap/<snap>/common` + `profiles.snapRoot` for
    /// each catalog browser with a snap, in catalog order.
    pub fn snap_profile_roots(&self, home: &str) -> Vec<String> {
        self.browsers
            .iter()
            .filter_map(|b| b.linux.as_ref()?.snap.as_deref())
            .map(|snap| {
                let base = join_path(Os::Linux, home, &["snap", snap, "common"]);
                join_path(Os::Linux, &base, &self.profiles.snap_root)
            })
            .collect()
    }
}
