//! What can go wrong while preparing or launching a browser for seven.

use std::fmt;

/// A launch error: each variant names the profile, browser, file or port it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The profile name does not match the catalog's `profiles.namePattern`.
    InvalidProfileName {
        /// The name given.
        name: String,
        /// The pattern it must match.
        pattern: String,
    },
    /// The dir is one of SLICC six's profiles: six's profile is used in place, never seeded,
    /// and never treated as a seven profile.
    SixProfile {
        /// The dir that was refused.
        dir: String,
    },
    /// A location the catalog describes could not be resolved (no home, no variable).
    NoLocation {
        /// What was being resolved, such as `the linux config dir`.
        what: String,
    },
    /// A snap name that is empty or holds a path separator.
    InvalidSnap {
        /// The snap name given.
        snap: String,
    },
    /// An extra seven origin that is not a `scheme://host[:port]` origin (as
    /// [`Origin::parse_extra`](crate::catalog::Origin::parse_extra) reads it).
    InvalidOrigin {
        /// The text given.
        origin: String,
    },
    /// A caller's extra argument sets a switch the launch itself sets (profile, debugging port).
    ConflictingSwitch {
        /// The caller's argument.
        arg: String,
    },
    /// The Electron app blocks remote debugging (`electron.debugBlocked`): it is never launched.
    DebugBlocked {
        /// The app's name.
        app: String,
    },
    /// Every port from `launch.electron.minPort` up is reserved or taken.
    NoFreePort {
        /// The first port tried.
        min_port: u16,
    },
    /// No browser with this id in the catalog.
    UnknownBrowser {
        /// The id given.
        id: String,
    },
    /// The browser (or, with no id, any catalog browser) is not installed on this machine.
    NotInstalled {
        /// The browser id, or `any browser`.
        browser: String,
    },
    /// `Default/Preferences` cannot be merged: not JSON, not an object, or a key path runs
    /// through a value of another type. The file is left untouched.
    Preferences {
        /// The Preferences file.
        path: String,
        /// What is wrong, with the key path where one applies.
        message: String,
    },
    /// A file system operation failed.
    Io {
        /// The path operated on.
        path: String,
        /// The operation and the system's message.
        message: String,
    },
    /// The browser process could not be started, or exited before it was ready.
    Spawn {
        /// The program.
        program: String,
        /// What happened.
        message: String,
    },
    /// The browser did not write a usable DevToolsActivePort in time.
    Timeout {
        /// The file waited for.
        path: String,
        /// How long was waited, in milliseconds.
        waited_ms: u64,
    },
    /// The DevTools HTTP endpoint did not answer as expected.
    Endpoint {
        /// The URL asked.
        url: String,
        /// What was wrong.
        message: String,
    },
}

impl Error {
    /// An [`Error::Io`] for `path`, naming the operation.
    pub(crate) fn io(path: impl Into<String>, op: &str, err: &std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            message: format!("{op}: {err}"),
        }
    }

    /// An [`Error::Preferences`] for the file at `path`.
    pub(crate) fn prefs(path: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Preferences {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidProfileName { name, pattern } => {
                write!(f, "profile name {name:?} is not valid (it must match {pattern})")
            }
            Error::SixProfile { dir } => write!(
                f,
                "{dir} is SLICC six's profile: it is used in place and never seeded as a seven profile"
            ),
            Error::NoLocation { what } => write!(f, "cannot resolve {what}"),
            Error::InvalidSnap { snap } => write!(f, "snap name {snap:?} is not valid"),
            Error::InvalidOrigin { origin } => {
                write!(f, "extra seven origin {origin:?} is not a scheme://host[:port] origin")
            }
            Error::ConflictingSwitch { arg } => write!(
                f,
                "argument {arg:?} sets a switch the launch sets itself (profile or debugging port)"
            ),
            Error::DebugBlocked { app } => write!(
                f,
                "{app} blocks remote debugging (catalog electron.debugBlocked): it is never launched"
            ),
            Error::NoFreePort { min_port } => {
                write!(f, "no free port from {min_port} up for an Electron app")
            }
            Error::UnknownBrowser { id } => write!(f, "no browser {id:?} in the catalog"),
            Error::NotInstalled { browser } => write!(f, "{browser} is not installed"),
            Error::Preferences { path, message } => {
                write!(f, "{path}: {message} (the file was left untouched)")
            }
            Error::Io { path, message } => write!(f, "{path}: {message}"),
            Error::Spawn { program, message } => write!(f, "{program}: {message}"),
            Error::Timeout { path, waited_ms } => {
                write!(f, "no usable {path} after {waited_ms} ms")
            }
            Error::Endpoint { url, message } => write!(f, "{url}: {message}"),
        }
    }
}

impl std::error::Error for Error {}
