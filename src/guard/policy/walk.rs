//! One walk over a message's values: every string in it, with the name of the member holding
//! it. Each judge that reads what a message names goes through it (the table's parameter
//! judges walk by the table's own shape instead: deny.rs; the filters that rewrite an answer
//! or event walk it mutably: scrub.rs).

use std::ops::ControlFlow;

use serde_json::Value;

/// Calls `f` on every string in `v`, depth first in the message's order, with the name of the
/// member whose value it is (`None` for an item of a list, and for `v` itself), until `f`
/// breaks; returns what it broke with.
pub(super) fn strings<'a, B>(
    v: &'a Value,
    f: &mut impl FnMut(Option<&'a str>, &'a str) -> ControlFlow<B>,
) -> ControlFlow<B> {
    walk(v, None, f)
}

fn walk<'a, B>(
    v: &'a Value,
    key: Option<&'a str>,
    f: &mut impl FnMut(Option<&'a str>, &'a str) -> ControlFlow<B>,
) -> ControlFlow<B> {
    match v {
        Value::String(s) => f(key, s),
        Value::Array(items) => items.iter().try_for_each(|i| walk(i, None, f)),
        Value::Object(map) => map.iter().try_for_each(|(k, c)| walk(c, Some(k), f)),
        _ => ControlFlow::Continue(()),
    }
}

/// Calls `f` on every string in `v` (see [`strings`]).
pub(super) fn each_string<'a>(v: &'a Value, mut f: impl FnMut(Option<&'a str>, &'a str)) {
    let _ = strings::<()>(v, &mut |k, s| {
        f(k, s);
        ControlFlow::Continue(())
    });
}

/// Calls `f` on every string in `v` that is a member's value, with the member's name.
pub(super) fn each_member<'a>(v: &'a Value, mut f: impl FnMut(&'a str, &'a str)) {
    each_string(v, |k, s| {
        if let Some(k) = k {
            f(k, s);
        }
    });
}

/// Whether `f` holds for any string in `v` (see [`strings`]).
pub(super) fn any_string<'a>(
    v: &'a Value,
    mut f: impl FnMut(Option<&'a str>, &'a str) -> bool,
) -> bool {
    strings(v, &mut |k, s| {
        if f(k, s) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .is_break()
}

/// The first of `f`'s answers over the strings in `v` (see [`strings`]).
pub(super) fn find_string<'a, T>(
    v: &'a Value,
    mut f: impl FnMut(Option<&'a str>, &'a str) -> Option<T>,
) -> Option<T> {
    match strings(v, &mut |k, s| match f(k, s) {
        Some(t) => ControlFlow::Break(t),
        None => ControlFlow::Continue(()),
    }) {
        ControlFlow::Break(t) => Some(t),
        ControlFlow::Continue(()) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_string_with_its_member_in_order() {
        let v = json!({"a": "1", "b": ["2", {"c": "3"}], "d": {"e": "4", "f": 5}, "g": null});
        let mut seen = Vec::new();
        each_string(&v, |k, s| seen.push((k.map(str::to_string), s.to_string())));
        assert_eq!(
            seen,
            [
                (Some("a".into()), "1".into()),
                (None, "2".into()),
                (Some("c".into()), "3".into()),
                (Some("e".into()), "4".into()),
            ]
        );
        let mut members = Vec::new();
        each_member(&v, |k, s| members.push(format!("{k}={s}")));
        assert_eq!(members, ["a=1", "c=3", "e=4"]);
        assert!(any_string(&v, |_, s| s == "3"));
        assert!(!any_string(&v, |_, s| s == "5"));
        assert_eq!(
            find_string(&v, |k, s| (k == Some("e")).then_some(s)),
            Some("4")
        );
        assert_eq!(
            find_string(&json!("top"), |k, s| k.is_none().then_some(s)),
            Some("top")
        );
        // It stops at the first answer.
        let mut asked = 0;
        find_string(&v, |_, _| {
            asked += 1;
            Some(())
        });
        assert_eq!(asked, 1);
    }
}
