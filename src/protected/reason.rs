//! Why a URL is protected: [`Reason`], for messages and the command line.

use std::fmt;

/// Why [`Matcher::explain`](super::Matcher::explain) found a URL protected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// The inner schemes unwrapped before the rule applied, outermost first
    /// (`["blob"]` for `blob:https://seven.sliccy.ai/…`).
    pub inner: Vec<String>,
    /// The rule that protected it.
    pub rule: Rule,
}

/// The rule of `protectedOrigins` that protected a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rule {
    /// The scheme is one of `anySchemes`: protected whatever follows.
    AnyScheme {
        /// The scheme, lower case.
        scheme: String,
    },
    /// The host is one of `hosts`.
    Host {
        /// The host, lower case, without one trailing dot.
        host: String,
    },
    /// The host is one of `domains` or under one.
    Domain {
        /// The host, lower case, without one trailing dot.
        host: String,
        /// The protected domain.
        domain: String,
    },
    /// The host or origin is matched by one of the user's patterns
    /// ([`ProtectPattern`](super::ProtectPattern), the command line's `--protect`).
    Protect {
        /// The host (lower case, without one trailing dot) or, for an origin pattern, the
        /// origin.
        matched: String,
        /// The pattern, as it reads after parsing (`bank.example`, `*.corp.example`,
        /// `https://host:8443`).
        pattern: String,
    },
    /// `scheme://host[:port]` is one of the extra origins.
    ExtraOrigin {
        /// The extra origin, as given to the matcher.
        origin: String,
    },
    /// Not protected by the letter of the rules, but Chromium might load it on a protected
    /// origin where the `url` crate reads it otherwise: the matcher fails closed.
    FailClosed {
        /// Which known difference applies.
        divergence: Divergence,
        /// The host as the matcher saw it (after percent-decoding), when there is one.
        host: Option<String>,
        /// What it could be: the protected domain, host or extra origin.
        could_be: Option<String>,
    },
}

/// A known difference between the `url` crate and Chromium that the matcher fails closed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Divergence {
    /// The `url` crate rejects the host (an invalid `xn--` label, a space, a `％` escape, a
    /// code point it does not know or a context rule) and Chromium might accept it.
    RejectedHost,
    /// Chromium's transitional IDNA maps `ß`, `ẞ`, `ς`, ZWJ and ZWNJ differently, and UTS 46
    /// tables before Unicode 15.1 map `ẞ` to `ss` (a [strict](super::Matcher::strict) matcher).
    Transitional,
    /// The `url` crate rejects an IP-like host and an extra origin is an IP literal.
    NumericHost,
    /// Inner schemes nested deeper than [`MAX_INNER`](super::MAX_INNER) (a
    /// [strict](super::Matcher::strict) matcher).
    Nesting,
    /// A `ws:` or `wss:` URL judged as `http:` or `https:`: Chromium's cookie store treats
    /// them alike, so `wss://seven.sliccy.ai` reads and writes seven's cookies (a
    /// [strict](super::Matcher::strict) matcher, and [`Matcher::cookie_url`](super::Matcher::cookie_url)).
    WebSocket,
    /// C0 controls before an inner URL (`filesystem:\u{1}https://…`): Chromium trims them,
    /// the `url` crate percent-encodes them.
    InnerTrim,
    /// The host of a scheme the URL Standard does not know but Chromium registers as
    /// standard (`chrome-extension:`), read like a special host: percent-decoded, IDNA.
    StandardScheme,
}

impl Divergence {
    /// A short name for messages: `rejected-host`, `transitional`, `numeric-host`, `nesting`,
    /// `websocket`, `inner-trim`, `standard-scheme`.
    pub fn name(self) -> &'static str {
        match self {
            Divergence::RejectedHost => "rejected-host",
            Divergence::Transitional => "transitional",
            Divergence::NumericHost => "numeric-host",
            Divergence::Nesting => "nesting",
            Divergence::WebSocket => "websocket",
            Divergence::InnerTrim => "inner-trim",
            Divergence::StandardScheme => "standard-scheme",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::AnyScheme { scheme } => write!(f, "scheme {scheme}: is always protected"),
            Rule::Host { host } => write!(f, "host {host} is protected"),
            Rule::Domain { host, domain } if host == domain => {
                write!(f, "host {host} is a protected domain")
            }
            Rule::Domain { host, domain } => write!(f, "host {host} is under {domain}"),
            Rule::Protect { matched, pattern } if matched == pattern && pattern.contains("://") => {
                write!(f, "origin {matched} is protected by the pattern {pattern}")
            }
            Rule::Protect { matched, pattern } if matched == pattern => {
                write!(f, "host {matched} is the protected site {pattern}")
            }
            Rule::Protect { matched, pattern } => {
                write!(f, "host {matched} is under the protected pattern {pattern}")
            }
            Rule::ExtraOrigin { origin } => write!(f, "origin {origin} is an extra origin"),
            Rule::FailClosed {
                divergence,
                host,
                could_be,
            } => {
                write!(f, "fail closed ({})", divergence.name())?;
                if let Some(host) = host {
                    write!(f, ": host {host:?}")?;
                }
                if let Some(could_be) = could_be {
                    write!(f, " could be {could_be} in Chromium")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.rule)?;
        if !self.inner.is_empty() {
            write!(f, " (inside {}:)", self.inner.join(": "))?;
        }
        Ok(())
    }
}

/// Collects what the matcher found; the quiet one lets [`Matcher::url`](super::Matcher::url)
/// run without building a [`Reason`].
pub(crate) trait Record {
    /// An inner scheme was unwrapped.
    fn inner(&mut self, scheme: &str);
    /// A rule protected the URL; `rule` builds it only when it is wanted.
    fn found(&mut self, rule: impl FnOnce() -> Rule);
    /// From here on, a rule found is reported as this fail-closed divergence.
    fn fail_closed_as(&mut self, divergence: Divergence);
}

/// Records nothing.
pub(crate) struct Quiet;

impl Record for Quiet {
    #[inline]
    fn inner(&mut self, _: &str) {}
    #[inline]
    fn found(&mut self, _: impl FnOnce() -> Rule) {}
    #[inline]
    fn fail_closed_as(&mut self, _: Divergence) {}
}

/// Records the reason.
#[derive(Default)]
pub(crate) struct Explain {
    pub(crate) inner: Vec<String>,
    pub(crate) rule: Option<Rule>,
    /// Set once the matcher judges text that differs from the letter of the rules.
    pub(crate) divergence: Option<Divergence>,
}

impl Record for Explain {
    fn inner(&mut self, scheme: &str) {
        self.inner.push(scheme.to_string());
    }
    fn found(&mut self, rule: impl FnOnce() -> Rule) {
        if self.rule.is_none() {
            let rule = match (rule(), self.divergence) {
                (rule @ Rule::FailClosed { .. }, _) | (rule, None) => rule,
                (rule, Some(divergence)) => Rule::FailClosed {
                    divergence,
                    host: None,
                    could_be: Some(rule.to_string()),
                },
            };
            self.rule = Some(rule);
        }
    }
    fn fail_closed_as(&mut self, divergence: Divergence) {
        self.divergence.get_or_insert(divergence);
    }
}
