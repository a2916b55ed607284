//! A small argument reader: positionals, `--flag`, and repeatable `--name value` /
//! `--name=value` options. The command line is small enough not to need a parser crate.

use std::collections::VecDeque;

/// The arguments after the program name, consumed as each command reads them.
pub struct Args {
    rest: VecDeque<String>,
}

impl Args {
    /// The process's arguments, without the program name.
    pub fn from_env() -> Args {
        Args {
            rest: std::env::args().skip(1).collect(),
        }
    }

    /// Arguments from a list (for tests).
    #[allow(dead_code)]
    pub fn from_vec(args: Vec<String>) -> Args {
        Args { rest: args.into() }
    }

    /// Takes the next argument that is not an option, if any.
    pub fn next_positional(&mut self) -> Option<String> {
        let i = self
            .rest
            .iter()
            .position(|a| !a.starts_with("--") || a == "--")?;
        if self.rest[i] == "--" {
            self.rest.remove(i);
            return if i < self.rest.len() {
                self.rest.remove(i)
            } else {
                None
            };
        }
        self.rest.remove(i)
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

    /// Takes a boolean `--name`; true when present.
    #[allow(dead_code)]
    pub fn flag(&mut self, name: &str) -> bool {
        let before = self.rest.len();
        self.rest.retain(|a| a != name);
        self.rest.len() != before
    }

    /// Takes every `--name value` and `--name=value`, in order.
    #[allow(dead_code)]
    pub fn values(&mut self, name: &str) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        let prefix = format!("{name}=");
        let mut i = 0;
        while i < self.rest.len() {
            if self.rest[i] == name {
                self.rest.remove(i);
                match self.rest.remove(i) {
                    Some(v) => out.push(v),
                    None => return Err(format!("{name} needs a value")),
                }
            } else if let Some(v) = self.rest[i].strip_prefix(&prefix) {
                out.push(v.to_string());
                self.rest.remove(i);
            } else {
                i += 1;
            }
        }
        Ok(out)
    }

    /// Takes at most one `--name value`.
    #[allow(dead_code)]
    pub fn value(&mut self, name: &str) -> Result<Option<String>, String> {
        let mut values = self.values(name)?;
        if values.len() > 1 {
            return Err(format!("{name} is given more than once"));
        }
        Ok(values.pop())
    }

    /// Fails on any argument no command took.
    pub fn finish(self) -> Result<(), String> {
        match self.rest.front() {
            None => Ok(()),
            Some(extra) => Err(format!("unexpected argument {extra:?}")),
        }
    }
}
