//! Standard output without `print!`/`println!`, which panic (exit 101, with a backtrace under
//! `RUST_BACKTRACE`) when the reader has gone: `slicc-browsers corpus dump | head -1`.
//! [`write`] returns the failure instead, so the command ends like any other that could not
//! run: one line on stderr and exit 2.

use std::fmt;
use std::io::Write;

/// Writes `args` to standard output and flushes it; a failure (a closed pipe, a full disk) is
/// the command's error, `standard output: <why>`.
pub fn write(args: fmt::Arguments<'_>) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.flush())
        .map_err(|e| format!("standard output: {e}"))
}

/// `print!` that returns [`write`]'s result.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write(format_args!($($arg)*))
    };
}

/// `println!` that returns [`write`]'s result.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::output::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};
