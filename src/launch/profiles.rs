//! Seven's and six's profile dirs, as pure functions of OS, home and environment.
//!
//! A [`SevenProfile`] can only be made by these functions, and each refuses a dir that is one
//! of SLICC six's profiles (or inside one), so nothing that prepares a seven profile can ever
//! write into six's. A [`SixProfile`] has no way to be prepared at all: six's profile is used
//! in place.

use crate::catalog::Catalog;
use crate::catalog::{join_path, six_path_key, Env, Os};

use super::{Error, Executable};

/// A seven profile: the user-data dir seven's browser runs in, prepared before each launch
/// (see [`SevenProfile::prepare`](crate::launch::SevenProfile::prepare)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SevenProfile {
    name: Option<String>,
    dir: String,
    os: Os,
    /// Six's dirs this profile was checked against, kept so the check can be repeated on the
    /// real file system after resolving symlinks.
    pub(crate) six_root: Option<String>,
    pub(crate) six_env_dir: Option<String>,
}

impl SevenProfile {
    /// The profile dir, spelled for [`SevenProfile::os`].
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// The profile's name, when it was made from one (not by [`SevenProfile::in_dir`]).
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The OS the dir is spelled for.
    pub fn os(&self) -> Os {
        self.os
    }

    /// Seven's profile `name`: `<config>/<profiles.root>/<name>`
    /// (`<config>/slicc/seven-profiles/<name>`).
    ///
    /// The name must match `profiles.namePattern`; a dir that is six's (such as one that
    /// `SLICC_USER_DATA_DIR` names) is refused.
    ///
    /// ```
    /// use slicc_browsers::catalog::Os;
    /// use slicc_browsers::launch::SevenProfile;
    /// let cat = slicc_browsers::shared_catalog();
    /// let env = |_: &str| None;
    /// let p = SevenProfile::named(cat, Os::Linux, "/home/me", &env, "demo").unwrap();
    /// assert_eq!(p.dir(), "/home/me/.config/slicc/seven-profiles/demo");
    /// assert!(SevenProfile::named(cat, Os::Linux, "/home/me", &env, "../x").is_err());
    /// ```
    pub fn named(
        catalog: &Catalog,
        os: Os,
        home: &str,
        env: Env<'_>,
        name: &str,
    ) -> Result<SevenProfile, Error> {
        check_name(catalog, name)?;
        let root = catalog
            .seven_profiles_root(os, home, env)
            .ok_or_else(|| Error::NoLocation {
                what: format!("the {} config dir", os.catalog_key()),
            })?;
        let dir = join_path(os, &root, &[name]);
        SevenProfile::checked(catalog, os, home, env, Some(name.to_string()), dir)
    }

    /// Seven's profile `name` for a snap browser, which can only write under its own snap dir:
    /// `~/snap/<snap>/common/<profiles.snapRoot>/<name>` (Linux).
    ///
    /// ```
    /// use slicc_browsers::catalog::Os;
    /// use slicc_browsers::launch::SevenProfile;
    /// let cat = slicc_browsers::shared_catalog();
    /// let env = |_: &str| None;
    /// let p = SevenProfile::snap(cat, "/home/me", &env, "chromium", "demo").unwrap();
    /// assert_eq!(p.dir(), "/home/me/snap/chromium/common/slicc/seven-profiles/demo");
    /// ```
    pub fn snap(
        catalog: &Catalog,
        home: &str,
        env: Env<'_>,
        snap: &str,
        name: &str,
    ) -> Result<SevenProfile, Error> {
        check_name(catalog, name)?;
        if snap.is_empty() || snap.contains(['/', '\\']) || snap == "." || snap == ".." {
            return Err(Error::InvalidSnap {
                snap: snap.to_string(),
            });
        }
        let base = join_path(Os::Linux, home, &["snap", snap, "common"]);
        let root = join_path(Os::Linux, &base, &catalog.profiles.snap_root);
        let dir = join_path(Os::Linux, &root, &[name]);
        SevenProfile::checked(catalog, Os::Linux, home, env, Some(name.to_string()), dir)
    }

    /// Seven's profile `name` for a browser run by `executable`: [`SevenProfile::snap`] when it
    /// runs as a snap (which can only write under its snap dir), else [`SevenProfile::named`].
    pub fn for_executable(
        catalog: &Catalog,
        executable: &Executable,
        os: Os,
        home: &str,
        env: Env<'_>,
        name: &str,
    ) -> Result<SevenProfile, Error> {
        match executable.snap(catalog) {
            Some(snap) if os == Os::Linux => SevenProfile::snap(catalog, home, env, snap, name),
            _ => SevenProfile::named(catalog, os, home, env, name),
        }
    }

    /// A seven profile in a dir of the caller's choosing, refused when it is six's (or inside
    /// six's profile).
    pub fn in_dir(
        catalog: &Catalog,
        os: Os,
        home: &str,
        env: Env<'_>,
        dir: &str,
    ) -> Result<SevenProfile, Error> {
        if dir.trim().is_empty() {
            return Err(Error::NoLocation {
                what: "an empty profile dir".into(),
            });
        }
        SevenProfile::checked(catalog, os, home, env, None, dir.to_string())
    }

    fn checked(
        catalog: &Catalog,
        os: Os,
        home: &str,
        env: Env<'_>,
        name: Option<String>,
        dir: String,
    ) -> Result<SevenProfile, Error> {
        let profile = SevenProfile {
            name,
            dir,
            os,
            six_root: catalog.six_root(os, home, env),
            six_env_dir: catalog.six_env_dir(env),
        };
        if profile.is_six(catalog, &profile.dir) {
            return Err(Error::SixProfile { dir: profile.dir });
        }
        Ok(profile)
    }

    /// Whether `dir` is, or is inside, one of six's profile dirs this profile knows of.
    pub(crate) fn is_six(&self, catalog: &Catalog, dir: &str) -> bool {
        is_six_dir_in(
            catalog,
            dir,
            self.six_root.as_deref(),
            self.six_env_dir.as_deref(),
        )
    }
}

/// SLICC six's profile for a serve port: used in place, never seeded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SixProfile {
    dir: String,
    port: u16,
    from_env: bool,
}

impl SixProfile {
    /// Six's profile dir for its serve `port`: the trimmed `SLICC_USER_DATA_DIR` when it is not
    /// empty, else `<six root>/<defaultName>`, with `portSuffix` for any port but `defaultPort`.
    ///
    /// ```
    /// use slicc_browsers::catalog::Os;
    /// use slicc_browsers::launch::SixProfile;
    /// let cat = slicc_browsers::shared_catalog();
    /// let env = |_: &str| None;
    /// let six = SixProfile::for_port(cat, Os::Linux, "/home/me", &env, 5711).unwrap();
    /// assert_eq!(six.dir(), "/home/me/.local/state/slicc/profiles/browser-coding-agent-chrome-5711");
    /// ```
    pub fn for_port(
        catalog: &Catalog,
        os: Os,
        home: &str,
        env: Env<'_>,
        port: u16,
    ) -> Result<SixProfile, Error> {
        if let Some(dir) = catalog.six_env_dir(env) {
            return Ok(SixProfile {
                dir,
                port,
                from_env: true,
            });
        }
        let six = &catalog.profiles.six;
        let root = catalog
            .six_root(os, home, env)
            .ok_or_else(|| Error::NoLocation {
                what: format!("SLICC six's {} profile root", os.catalog_key()),
            })?;
        let mut name = six.default_name.clone();
        if port != six.default_port {
            name.push_str(&six.port_suffix.replace("{port}", &port.to_string()));
        }
        Ok(SixProfile {
            dir: join_path(os, &root, &[name]),
            port,
            from_env: false,
        })
    }

    /// The profile dir.
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// The serve port it was asked for.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Whether the dir came from `profiles.six.userDataDirEnv` (`SLICC_USER_DATA_DIR`).
    pub fn from_env(&self) -> bool {
        self.from_env
    }
}

/// Whether `dir` is one of SLICC six's profile dirs on `os`, or inside one: the dir
/// `SLICC_USER_DATA_DIR` names, or a dir in six's root whose name matches
/// `profiles.sixProfilePattern` (case-insensitively). Paths are compared case-insensitively,
/// with `/` and `\` alike; symlinks are not resolved here.
///
/// ```
/// use slicc_browsers::catalog::Os;
/// let cat = slicc_browsers::shared_catalog();
/// let env = |_: &str| None;
/// let six = "/Users/me/Library/Application Support/slicc/profiles/Browser-Coding-Agent-Chrome-5711";
/// assert!(slicc_browsers::launch::is_six_dir(cat, Os::Macos, "/Users/me", &env, six));
/// ```
pub fn is_six_dir(catalog: &Catalog, os: Os, home: &str, env: Env<'_>, dir: &str) -> bool {
    let root = catalog.six_root(os, home, env);
    let env_dir = catalog.six_env_dir(env);
    is_six_dir_in(catalog, dir, root.as_deref(), env_dir.as_deref())
}

/// The six-dir rule over given six dirs (six's root and the `SLICC_USER_DATA_DIR` dir): `dir`
/// is six's when it or one of its parents is ([`Catalog::is_six_dir_key`]).
pub(crate) fn is_six_dir_in(
    catalog: &Catalog,
    dir: &str,
    root: Option<&str>,
    env_dir: Option<&str>,
) -> bool {
    let root = root.map(six_path_key);
    let env_dir = env_dir.map(six_path_key);
    let mut key = six_path_key(dir);
    loop {
        if catalog.is_six_dir_key(&key, root.as_deref(), env_dir.as_deref()) {
            return true;
        }
        match key.rfind('/') {
            Some(cut) if cut > 0 => key.truncate(cut),
            _ => return false,
        }
    }
}

fn check_name(catalog: &Catalog, name: &str) -> Result<(), Error> {
    if catalog.valid_profile_name(name) {
        Ok(())
    } else {
        Err(Error::InvalidProfileName {
            name: name.to_string(),
            pattern: catalog.profiles.name_pattern.clone(),
        })
    }
}
