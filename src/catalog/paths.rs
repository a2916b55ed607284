//! Locations and the paths derived from them, as pure functions of OS, home and environment.
//!
//! Paths are strings joined with the separator of the OS under test, not of the machine this
//! runs on, so a Windows layout can be computed (and tested) anywhere.

use super::{Browser, Catalog, Location, Os};

/// A view of environment variables: `None` for an unset variable.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

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
