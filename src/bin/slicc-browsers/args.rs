//! The command line's arguments, read by `lexopt` and taken by each command as it needs them.
//!
//! `lexopt` does the reading: long options with `=value`, short options, `--` (after which
//! everything is positional) and arguments that are not Unicode. Commands then take
//! positionals, `--flag`s and `--name value` options from the read tokens; whatever no command
//! took is an unexpected argument. Every mistake in the command line is a usage error (exit 2,
//! with the command's usage), told apart from a failure of the work itself by [`usage_error`].

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set when an [`Args`] method rejected the command line.
static USAGE_ERROR: AtomicBool = AtomicBool::new(false);

/// Whether the error being reported came from reading the command line (so the command's usage
/// follows it).
pub fn usage_error() -> bool {
    USAGE_ERROR.load(Ordering::Relaxed)
}

/// A usage error: remembered for [`usage_error`], then returned.
pub fn usage<T>(message: String) -> Result<T, String> {
    USAGE_ERROR.store(true, Ordering::Relaxed);
    Err(message)
}

/// One argument as `lexopt` read it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// `--name`, or `--name=value` with its value.
    Long(String, Option<String>),
    /// `-c`.
    Short(char),
    /// A positional (everything after `--` is one).
    Value(String),
}

/// The arguments after the program name, consumed as each command reads them.
pub struct Args {
    rest: VecDeque<Token>,
}

impl Args {
    /// The process's arguments, without the program name.
    pub fn from_env() -> Result<Args, String> {
        Args::read(lexopt::Parser::from_env())
    }

    /// Arguments from a list (for tests).
    #[allow(dead_code)]
    pub fn from_vec(args: Vec<String>) -> Result<Args, String> {
        Args::read(lexopt::Parser::from_args(args))
    }

    fn read(mut parser: lexopt::Parser) -> Result<Args, String> {
        use lexopt::Arg;
        let mut rest = VecDeque::new();
        loop {
            let token = match parser.next() {
                Ok(None) => break,
                Ok(Some(Arg::Long(name))) => {
                    let name = format!("--{name}");
                    let value =
                        match parser.optional_value() {
                            Some(v) => Some(v.into_string().or_else(|v| {
                                usage(format!("{name}: {v:?} is not valid Unicode"))
                            })?),
                            None => None,
                        };
                    Token::Long(name, value)
                }
                Ok(Some(Arg::Short(c))) => Token::Short(c),
                Ok(Some(Arg::Value(v))) => Token::Value(
                    v.into_string()
                        .or_else(|v| usage(format!("{v:?} is not valid Unicode")))?,
                ),
                Err(e) => return usage(e.to_string()),
            };
            rest.push_back(token);
        }
        Ok(Args { rest })
    }

    /// Whether `--help` or `-h` is anywhere among the arguments.
    pub fn wants_help(&self) -> bool {
        self.rest.iter().any(|t| {
            matches!(t, Token::Long(n, None) if n == "--help") || matches!(t, Token::Short('h'))
        })
    }

    /// Whether `--version` or `-V` is the first argument.
    pub fn wants_version(&self) -> bool {
        matches!(self.rest.front(), Some(Token::Long(n, None)) if n == "--version")
            || matches!(self.rest.front(), Some(Token::Short('V')))
    }

    /// Takes the next positional argument, if any.
    pub fn next_positional(&mut self) -> Option<String> {
        let i = self
            .rest
            .iter()
            .position(|t| matches!(t, Token::Value(_)))?;
        match self.rest.remove(i) {
            Some(Token::Value(v)) => Some(v),
            _ => None,
        }
    }

    /// The next positional argument, left in place.
    pub fn peek_positional(&self) -> Option<&str> {
        self.rest.iter().find_map(|t| match t {
            Token::Value(v) => Some(v.as_str()),
            _ => None,
        })
    }

    /// Takes every remaining positional argument.
    #[allow(dead_code)]
    pub fn positionals(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(p) = self.next_positional() {
            out.push(p);
        }
        out
    }

    /// Takes a boolean `--name`; true when present. `--name=value` is a usage error.
    #[allow(dead_code)]
    pub fn flag(&mut self, name: &str) -> bool {
        let before = self.rest.len();
        self.rest
            .retain(|t| !matches!(t, Token::Long(n, None) if n == name));
        self.rest.len() != before
    }

    /// Takes every `--name value` and `--name=value`, in order.
    #[allow(dead_code)]
    pub fn values(&mut self, name: &str) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.rest.len() {
            match &self.rest[i] {
                Token::Long(n, Some(v)) if n == name => {
                    out.push(v.clone());
                    self.rest.remove(i);
                }
                Token::Long(n, None) if n == name => {
                    self.rest.remove(i);
                    match self.rest.remove(i) {
                        Some(Token::Value(v)) => out.push(v),
                        _ => return usage(format!("{name} needs a value")),
                    }
                }
                _ => i += 1,
            }
        }
        Ok(out)
    }

    /// Takes at most one `--name value`.
    #[allow(dead_code)]
    pub fn value(&mut self, name: &str) -> Result<Option<String>, String> {
        let mut values = self.values(name)?;
        if values.len() > 1 {
            return usage(format!("{name} is given more than once"));
        }
        Ok(values.pop())
    }

    /// The value of the option `name`, which the command needs: a usage error (exit 2, with
    /// the usage text) naming it and `what` when it is missing.
    #[allow(dead_code)] // Only the guard tools (cli-full) have a required option.
    pub fn required(&mut self, name: &str, what: &str) -> Result<String, String> {
        match self.value(name)? {
            Some(v) => Ok(v),
            None => usage(format!("{name} {what} is needed")),
        }
    }

    /// A usage error about this command line (exit 2, with the command's usage).
    #[allow(dead_code)]
    pub fn error<T>(&self, message: impl Into<String>) -> Result<T, String> {
        usage(message.into())
    }

    /// Fails on any argument no command took.
    pub fn finish(self) -> Result<(), String> {
        match self.rest.front() {
            None => Ok(()),
            Some(Token::Long(name, Some(value))) => {
                usage(format!("unexpected argument {name}={value}"))
            }
            Some(Token::Long(name, None)) => usage(format!("unexpected argument {name}")),
            Some(Token::Short(c)) => usage(format!("unexpected argument -{c}")),
            Some(Token::Value(v)) => usage(format!("unexpected argument {v:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Args;

    fn args(list: &[&str]) -> Args {
        Args::from_vec(list.iter().map(|s| s.to_string()).collect()).unwrap()
    }

    #[test]
    fn options_flags_and_positionals_are_taken_in_any_order() {
        let mut a = args(&["x", "--cdp", "1", "--json", "--cdp=2", "y", "--", "--z"]);
        assert_eq!(a.values("--cdp").unwrap(), ["1", "2"]);
        assert!(a.flag("--json"));
        assert!(!a.flag("--json"));
        assert_eq!(a.positionals(), ["x", "y", "--z"]);
        assert!(a.finish().is_ok());
    }

    #[test]
    fn mistakes_are_usage_errors() {
        let mut a = args(&["--browser"]);
        assert!(a.value("--browser").is_err());
        assert!(args(&["--x=1", "--x=2"]).value("--x").is_err());
        assert!(args(&["--what"]).finish().is_err());
        assert!(args(&["-q"]).finish().is_err());
        assert!(super::usage_error());
    }

    #[test]
    fn help_and_version_are_recognised() {
        assert!(args(&["list", "-h"]).wants_help());
        assert!(args(&["--help"]).wants_help());
        assert!(!args(&["--", "--help"]).wants_help());
        assert!(args(&["--version"]).wants_version());
        assert!(args(&["-V"]).wants_version());
        assert!(!args(&["list", "--version"]).wants_version());
    }
}
