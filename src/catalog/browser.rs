//! The browser entries of the catalog: one per Chromium browser, with its paths per OS.

use serde::{Deserialize, Serialize};

use super::{Channel, Engine};

/// A Chromium browser: one entry of `browsers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Browser {
    /// `<vendor>[-<channel>]`, such as `chrome` or `edge-canary`.
    pub id: String,
    /// The display name, such as `Google Chrome`.
    pub name: String,
    /// `stable`, `beta`, `dev`, `canary`, `nightly`, `snapshot` or `testing`; see [`Browser::channel`].
    pub channel: String,
    /// Always `chromium`.
    pub engine: String,
    /// Whether the browser's version is the Chromium version (so `minChromiumMajor` applies).
    pub chromium_version: bool,
    /// Where and how it is installed on macOS.
    pub macos: MacosBrowser,
    /// Where and how it is installed on Windows, when it ships there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windows: Option<WindowsBrowser>,
    /// Where and how it is installed on Linux, when it ships there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linux: Option<LinuxBrowser>,
}

impl Browser {
    /// The channel as an enum, or `None` for a channel this crate does not know.
    pub fn channel(&self) -> Option<Channel> {
        self.channel.parse().ok()
    }

    /// The engine as an enum, or `None` for an engine this crate does not know.
    pub fn engine(&self) -> Option<Engine> {
        self.engine.parse().ok()
    }
}

/// A browser on macOS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MacosBrowser {
    /// The bundle identifier, such as `com.google.Chrome`.
    pub bundle_id: String,
    /// The bundle's file name, such as `Google Chrome.app`.
    pub app: String,
    /// The file name under `Contents/MacOS`.
    pub executable: String,
    /// The default user-data dir under the macOS config dir (empty when unknown).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub data_dir: Vec<String>,
}

/// A browser on Windows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowsBrowser {
    /// Names of `platforms.windows.roots`, searched in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<String>,
    /// Relative executable paths, each tried under each root.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub executables: Vec<Vec<String>>,
    /// The root (a name of `platforms.windows.roots`) of the default user-data dir.
    pub data_root: String,
    /// The default user-data dir under `data_root`.
    pub data_dir: Vec<String>,
    /// The browser's subkey names under the StartMenuInternet registry keys.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub start_menu_internet: Vec<String>,
}

/// A browser on Linux.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinuxBrowser {
    /// Executable names looked up on `PATH`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bins: Vec<String>,
    /// `.desktop` file names without the suffix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub desktop_ids: Vec<String>,
    /// The flatpak app id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flatpak: Option<String>,
    /// The snap name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snap: Option<String>,
    /// The user-data dir under `~/snap/<snap>/common`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snap_data_dir: Vec<String>,
    /// The user-data dir under the Linux config dir (and a flatpak's `~/.var/app/<id>/config`).
    pub config_dir: Vec<String>,
    /// dpkg package names queried for the version.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub debs: Vec<String>,
}
