//! Where a JSON pointer's value stands in the text it was parsed from: the line and column a
//! problem is reported at, so that a reader goes to the fault, not to the file.

/// The 1-based line and column (in characters) where the value at `pointer` starts in the JSON
/// `text`; `None` when the text does not hold it (or is not JSON).
pub(crate) fn locate(text: &str, pointer: &str) -> Option<(usize, usize)> {
    let segments: Vec<String> = if pointer.is_empty() {
        Vec::new()
    } else {
        pointer
            .strip_prefix('/')?
            .split('/')
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect()
    };
    let bytes = text.as_bytes();
    let mut at = ws(bytes, 0);
    for segment in &segments {
        at = match bytes.get(at)? {
            b'{' => member(bytes, at, segment)?,
            b'[' => element(bytes, at, segment.parse().ok()?)?,
            _ => return None,
        };
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    Some((line, column))
}

/// The first byte at or after `at` that is not JSON white space.
fn ws(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The end of the string starting at `at` (just past its closing quote).
fn string_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    at += 1;
    loop {
        match bytes.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
}

/// The end of the value starting at `at`.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match bytes.get(i)? {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let mut i = at;
            while !matches!(
                bytes.get(i),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                i += 1;
            }
            Some(i)
        }
    }
}

/// The start of the value of member `key` of the object at `at`.
fn member(bytes: &[u8], at: usize, key: &str) -> Option<usize> {
    let mut i = ws(bytes, at + 1);
    loop {
        if bytes.get(i)? != &b'"' {
            return None;
        }
        let end = string_end(bytes, i)?;
        let name: String = serde_json::from_slice(&bytes[i..end]).ok()?;
        i = ws(bytes, end);
        if bytes.get(i)? != &b':' {
            return None;
        }
        i = ws(bytes, i + 1);
        if name == key {
            return Some(i);
        }
        i = ws(bytes, value_end(bytes, i)?);
        match bytes.get(i)? {
            b',' => i = ws(bytes, i + 1),
            _ => return None,
        }
    }
}

/// The start of element `index` of the array at `at`.
fn element(bytes: &[u8], at: usize, index: usize) -> Option<usize> {
    let mut i = ws(bytes, at + 1);
    for _ in 0..index {
        i = ws(bytes, value_end(bytes, i)?);
        match bytes.get(i)? {
            b',' => i = ws(bytes, i + 1),
            _ => return None,
        }
    }
    if bytes.get(i)? == &b']' {
        None
    } else {
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::locate;

    #[test]
    fn pointers_are_found_where_the_text_has_them() {
        let text =
            "{\n  \"a\": [1, {\"b/c\": \"x\\\"}\"},\n    true],\n  \"é\": {\"k\": null}\n}\n";
        assert_eq!(locate(text, ""), Some((1, 1)));
        assert_eq!(locate(text, "/a"), Some((2, 8)));
        assert_eq!(locate(text, "/a/0"), Some((2, 9)));
        assert_eq!(locate(text, "/a/1/b~1c"), Some((2, 20)));
        assert_eq!(locate(text, "/a/2"), Some((3, 5)));
        assert_eq!(locate(text, "/é/k"), Some((4, 14)));
        assert_eq!(locate(text, "/a/3"), None);
        assert_eq!(locate(text, "/nope"), None);
        assert_eq!(locate(text, "/a/x"), None);
    }
}
