//! [`Layout`]: where a case's tokens point on the OS under test, and token expansion.
//!
//! Every path comes from the catalog's own path functions ([`Catalog::config_dir`],
//! [`Catalog::seven_profiles_root`], [`Catalog::six_root`], [`Catalog::user_data_dirs`] and
//! [`join_path`]), so the corpus and discovery can never disagree on a location.

use std::fmt;

use crate::catalog::Catalog;
use crate::catalog::{join_path, Env, Os};

/// The five token forms a case may use, without braces; `userData:` takes a browser id.
pub const TOKENS: [&str; 5] = [
    "home",
    "config",
    "sevenProfiles",
    "sixProfiles",
    "userData:<id>",
];

/// The machine a case is laid out on: the OS under test, the fake home dir, the case's
/// environment and the catalog that turns them into paths.
///
/// ```
/// use slicc_browsers::corpus::Layout;
/// let cat = slicc_browsers::catalog();
/// let env = |_: &str| None;
/// let l = Layout { os: "windows", home: r"C:\Users\me", env: &env, catalog: &cat };
/// assert_eq!(l.config(), r"C:\Users\me\AppData\Roaming");
/// assert_eq!(l.expand("{home}/a/b --x"), r"C:\Users\me\a\b --x");
/// ```
#[derive(Clone, Copy)]
pub struct Layout<'a> {
    /// The OS under test: `darwin`, `linux` or `windows` (`macos` is accepted too).
    pub os: &'a str,
    /// The fake home dir, spelled for the OS under test.
    pub home: &'a str,
    /// The case's environment, as the case writes it (`None` for an unset variable). Token
    /// values in it are expanded before a location reads them.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The catalog the locations come from.
    pub catalog: &'a Catalog,
}

impl fmt::Debug for Layout<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Layout")
            .field("os", &self.os)
            .field("home", &self.home)
            .finish_non_exhaustive()
    }
}

impl<'a> Layout<'a> {
    /// The OS under test, or `None` for a name this crate does not know.
    pub fn os(&self) -> Option<Os> {
        self.os.parse().ok()
    }

    /// The config dir (`{config}`): catalog `platforms.<os>.config`. Empty for an unknown OS.
    pub fn config(&self) -> String {
        self.token("config").unwrap_or_default()
    }

    /// SLICC's profile root (`{sevenProfiles}`): the config dir joined with `profiles.root`.
    pub fn seven_profiles(&self) -> String {
        self.token("sevenProfiles").unwrap_or_default()
    }

    /// SLICC six's profile root (`{sixProfiles}`), from `profiles.six.roots`.
    pub fn six_profiles(&self) -> String {
        self.token("sixProfiles").unwrap_or_default()
    }

    /// Every default user-data dir of browser `id` on this OS, in the order discovery checks
    /// them; empty for an unknown id or a browser without one here.
    pub fn user_data_dirs(&self, id: &str) -> Vec<String> {
        let (Some(os), Some(browser)) = (self.os(), self.catalog.browser(id)) else {
            return Vec::new();
        };
        let env = |k: &str| self.env_value(k);
        self.catalog.user_data_dirs(browser, os, self.home, &env)
    }

    /// The value of a token, named without braces (`home`, `config`, `sevenProfiles`,
    /// `sixProfiles`, `userData:<id>`; braces are tolerated). `None` for any other name, an
    /// unknown browser id, a browser with no user-data dir on this OS, or an unknown OS.
    pub fn token(&self, name: &str) -> Option<String> {
        let env = |k: &str| self.env_value(k);
        self.token_with(&env, name)
    }

    /// Expands every token in `text`: a known `{token}` and the path characters after it, up
    /// to the first whitespace, `"`, `'` or `,`, become one path joined with the OS
    /// separator (on Windows every `/` in that span becomes `\`). Whatever follows the stop
    /// character, and every unknown or malformed `{…}`, is left unchanged.
    pub fn expand(&self, text: &str) -> String {
        let env = |k: &str| self.env_value(k);
        self.expand_with(&env, text)
    }

    /// A variable of the case's environment with its tokens expanded. The tokens inside a
    /// variable are resolved against the environment as written, so a value never depends
    /// on itself.
    fn env_value(&self, key: &str) -> Option<String> {
        let raw = (self.env)(key)?;
        Some(self.expand_with(self.env, &raw))
    }

    fn token_with(&self, env: Env<'_>, name: &str) -> Option<String> {
        let os = self.os()?;
        let name = name
            .strip_prefix('{')
            .and_then(|n| n.strip_suffix('}'))
            .unwrap_or(name);
        let cat = self.catalog;
        match name {
            "home" => Some(self.home.to_string()),
            "config" => cat.config_dir(os, self.home, env),
            "sevenProfiles" => cat.seven_profiles_root(os, self.home, env),
            "sixProfiles" => cat.six_root(os, self.home, env),
            _ => {
                let id = user_data_id(name)?;
                let browser = cat.browser(id)?;
                cat.user_data_dirs(browser, os, self.home, env)
                    .into_iter()
                    .next()
            }
        }
    }

    fn expand_with(&self, env: Env<'_>, text: &str) -> String {
        let Some(os) = self.os() else {
            return text.to_string();
        };
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let value = after
                .find('}')
                .and_then(|close| Some((close, self.token_with(env, &after[..close])?)));
            match value {
                Some((close, value)) => {
                    let tail = &after[close + 1..];
                    let end = tail.find(is_stop).unwrap_or(tail.len());
                    out.push_str(&join_path(os, &value, &[&tail[..end]]));
                    rest = &tail[end..];
                }
                None => {
                    // Not a token: keep the brace and look again from the next character.
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// Whether `c` ends the path characters that follow a token.
fn is_stop(c: char) -> bool {
    c.is_whitespace() || matches!(c, '"' | '\'' | ',')
}

/// The browser id of a `userData:<id>` token name, when the id has the allowed form
/// (lower-case letters, digits and `-`, at least one).
fn user_data_id(name: &str) -> Option<&str> {
    let id = name.strip_prefix("userData:")?;
    let ok = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    ok.then_some(id)
}

/// Every `{name}` in `text` whose name looks like a token (a letter, then letters, digits, `:`
/// and `-`), with its byte offset: what a validator checks with [`is_token`].
///
/// ```
/// use slicc_browsers::corpus::token_names;
/// assert_eq!(token_names("{home}/a {x:y} {} {{config}"), vec![(0, "home"), (9, "x:y"), (19, "config")]);
/// ```
pub fn token_names(text: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    let mut start = 0;
    while let Some(open) = text[start..].find('{') {
        let open = start + open;
        let after = &text[open + 1..];
        if let Some(close) = after.find(['}', '{']) {
            let name = &after[..close];
            let looks = after[close..].starts_with('}')
                && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == ':' || c == '-');
            if looks {
                found.push((open, name));
            }
        }
        start = open + 1;
    }
    found
}

/// Whether `name` (without braces) has one of the five token forms. A `userData:` id is not
/// checked against the catalog here: [`Layout::token`] does that.
pub fn is_token(name: &str) -> bool {
    matches!(name, "home" | "config" | "sevenProfiles" | "sixProfiles")
        || user_data_id(name).is_some()
}
