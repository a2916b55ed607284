//! Enums beside the catalog's strings: channel, engine and OS.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in the catalog's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value as the catalog spells it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl FromStr for $name {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self, Error> {
                match s {
                    $($text => Ok($name::$variant),)+
                    other => Err(Error::invalid(
                        stringify!($name),
                        format!("unknown value {other:?}"),
                    )),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum! {
    /// A browser's release channel.
    Channel {
        /// The stable release.
        Stable => "stable",
        /// Beta.
        Beta => "beta",
        /// Dev (Opera's "developer").
        Dev => "dev",
        /// Canary (Chrome's and Edge's SxS).
        Canary => "canary",
        /// Nightly (Brave).
        Nightly => "nightly",
        /// Snapshot (Vivaldi).
        Snapshot => "snapshot",
        /// Chrome for Testing.
        Testing => "testing",
    }
}

string_enum! {
    /// A browser engine, as output schema 1's `engine` names it.
    Engine {
        /// A Chromium browser.
        Chromium => "chromium",
        /// An Electron app.
        Electron => "electron",
    }
}

/// An operating system, as the corpus (`darwin`, `linux`, `windows`) and the catalog (`macos`)
/// name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Os {
    /// macOS: `darwin` in the corpus, `macos` in the catalog.
    Macos,
    /// Linux.
    Linux,
    /// Windows.
    Windows,
}

impl Os {
    /// Every OS.
    pub const ALL: &'static [Os] = &[Os::Macos, Os::Linux, Os::Windows];

    /// The corpus's name: `darwin`, `linux` or `windows` (Go's `GOOS`).
    pub fn corpus_name(self) -> &'static str {
        match self {
            Os::Macos => "darwin",
            Os::Linux => "linux",
            Os::Windows => "windows",
        }
    }

    /// The catalog's key: `macos`, `linux` or `windows`.
    pub fn catalog_key(self) -> &'static str {
        match self {
            Os::Macos => "macos",
            Os::Linux => "linux",
            Os::Windows => "windows",
        }
    }

    /// The path separator of this OS.
    pub fn separator(self) -> char {
        match self {
            Os::Windows => '\\',
            _ => '/',
        }
    }

    /// The OS this program runs on, or `None` elsewhere (such as WASI).
    pub fn current() -> Option<Os> {
        match std::env::consts::OS {
            "macos" => Some(Os::Macos),
            "linux" => Some(Os::Linux),
            "windows" => Some(Os::Windows),
            _ => None,
        }
    }
}

impl FromStr for Os {
    type Err = Error;
    /// Accepts `darwin`, `macos`, `linux` and `windows`.
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "darwin" | "macos" => Ok(Os::Macos),
            "linux" => Ok(Os::Linux),
            "windows" => Ok(Os::Windows),
            other => Err(Error::invalid(
                "Os",
                format!("unknown OS {other:?} (expected darwin, macos, linux or windows)"),
            )),
        }
    }
}

impl fmt::Display for Os {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.corpus_name())
    }
}
