//! What a message costs to judge, bounded: a message is parsed whole only when its JSON holds
//! at most [`Config::max_values`](super::config::Config::max_values) values.
//!
//! A parsed JSON value takes about 80 bytes however short its text (`0,` is two bytes), so a
//! message of many small values grows some 40 times when parsed: one `Runtime.evaluate` of
//! `Array(3e7).fill(0)` with `returnByValue` (a 60 MB answer) took a proxy from 10 MB to
//! 2.2 GB (measured on Chromium 156), and the browser's limit (256 MiB) allowed answers ten
//! times that. The values are counted first, without allocating; a message over the bound is
//! not parsed: a client's is refused, a browser's answer to a command becomes an error for it,
//! a browser's event is dropped. Only the top level of such a message is read (its `id`,
//! `method` and `sessionId`, skipping the rest).

use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::core::{Core, RESERVED_IDS};
use super::output::{Output, Verdict};

/// Messages shorter than this are parsed without counting (they cannot hold many values).
const COUNT_FROM: usize = 1 << 20;

/// The number of JSON values in `text`, about (the commas and brackets outside strings, plus
/// one): no allocation, one pass.
pub(crate) fn values(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut n = 1usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // To the string's end (past escapes).
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
            }
            b',' | b'[' | b'{' => n += 1,
            _ => {}
        }
        i += 1;
    }
    n
}

/// The top level of a message read without its parameters or result: what an answer to it,
/// or a log line about it, needs.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct FrameHead {
    /// `id`, when a scalar.
    pub(crate) id: Option<Value>,
    /// `method`, when a string.
    pub(crate) method: Option<String>,
    /// `sessionId`, when a string.
    pub(crate) session: Option<String>,
}

impl FrameHead {
    /// The top level of `frame` (all `None` when it is not a JSON object).
    pub(crate) fn of(frame: &str) -> FrameHead {
        serde_json::from_str::<HeadOf>(frame)
            .map(|h| h.0)
            .unwrap_or_default()
    }

    /// `id` as an integer.
    pub(crate) fn int_id(&self) -> Option<i64> {
        self.id.as_ref().and_then(Value::as_i64)
    }
}

struct HeadOf(FrameHead);

impl<'de> serde::Deserialize<'de> for HeadOf {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<HeadOf, D::Error> {
        d.deserialize_any(HeadVisitor)
    }
}

struct HeadVisitor;

impl<'de> Visitor<'de> for HeadVisitor {
    type Value = HeadOf;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<HeadOf, A::Error> {
        let mut head = FrameHead::default();
        while let Some(key) = a.next_key::<String>()? {
            let Scalar(v) = a.next_value()?;
            match key.as_str() {
                "id" if head.id.is_none() => head.id = v,
                "method" if head.method.is_none() => {
                    head.method = v.and_then(|v| v.as_str().map(str::to_string));
                }
                "sessionId" if head.session.is_none() => {
                    head.session = v.and_then(|v| v.as_str().map(str::to_string));
                }
                _ => {}
            }
        }
        Ok(HeadOf(head))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<HeadOf, A::Error> {
        while a.next_element::<IgnoredAny>()?.is_some() {}
        Ok(HeadOf(FrameHead::default()))
    }
}

/// A JSON value kept only when it is a scalar (a list or an object is skipped unread).
struct Scalar(Option<Value>);

impl<'de> serde::Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::Bool(v))))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::from(v))))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::from(v))))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::from(v))))
    }
    fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::String(v.to_string()))))
    }
    fn visit_string<E>(self, v: String) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::String(v))))
    }
    fn visit_unit<E>(self) -> Result<Scalar, E> {
        Ok(Scalar(Some(Value::Null)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Scalar, A::Error> {
        while a.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar(None))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Scalar, A::Error> {
        while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar(None))
    }
}

impl Core {
    /// How many values `frame` holds, when more than [`Config::max_values`](super::config::Config).
    pub(super) fn over_budget(&self, frame: &str) -> Option<usize> {
        if frame.len() < COUNT_FROM {
            return None;
        }
        let n = values(frame);
        (n > self.rules.cfg.max_values).then_some(n)
    }

    fn too_many(&self, n: usize) -> String {
        format!(
            "slicc: guard: the message holds too many JSON values to judge ({n}; limit {})",
            self.rules.cfg.max_values
        )
    }

    /// A client's message over the bound: refused unread (its id and session, if any, read
    /// from its top level).
    pub(super) fn client_over_budget(&self, frame: &str, n: usize, out: &mut Output) {
        self.client_error(frame, -32600, &self.too_many(n), out);
        out.set(Verdict::Invalid, "too many values to judge");
    }

    /// A browser's message over the bound: an answer to a client's command becomes an error
    /// for it, one to the policy's own command an error for that (its checks fail closed),
    /// an event is dropped.
    pub(super) fn browser_over_budget(&mut self, frame: &str, n: usize, out: &mut Output) {
        let head = FrameHead::of(frame);
        let Some(id) = head.int_id() else {
            return out.set(Verdict::Drop, "event with too many values to judge");
        };
        let key = head.session.unwrap_or_default();
        let error = serde_json::json!({"code": -32000, "message": self.too_many(n)});
        if RESERVED_IDS.contains(&id) {
            let v = serde_json::json!({"id": id, "error": error});
            return self.own_response(id, &v, out);
        }
        if self.sessions.pending.remove(&(key.clone(), id)).is_none() {
            return out.set(Verdict::Drop, "response to no command the client sent");
        }
        let mut msg = serde_json::json!({"id": id, "error": error});
        if !key.is_empty() {
            msg["sessionId"] = Value::String(key);
        }
        out.to_client.push(msg.to_string());
        out.set(Verdict::Rewrite, "answer with too many values to judge");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_counted_outside_strings() {
        assert_eq!(values("0"), 1);
        assert_eq!(values("[0,0,0]"), 4);
        assert_eq!(values(r#"{"a":1,"b":[1,2]}"#), 5);
        assert_eq!(values(r#"{"a":"x,[{\",y"}"#), 2);
        assert_eq!(values(r#"["\\",1]"#), 3);
        // An unterminated string or escape at the end: no overrun.
        assert_eq!(values(r#"["abc"#), 2);
        assert_eq!(values("[\"\\"), 2);
    }

    #[test]
    fn a_head_is_read_without_the_rest() {
        let h = FrameHead::of(
            r#"{"params":{"a":[1,2,3]},"id":7,"method":"X.y","sessionId":"S","result":[[[]]]}"#,
        );
        assert_eq!(h.int_id(), Some(7));
        assert_eq!(h.method.as_deref(), Some("X.y"));
        assert_eq!(h.session.as_deref(), Some("S"));
        let h = FrameHead::of(r#"{"id":[1,2],"method":{"a":1},"sessionId":5}"#);
        assert_eq!(h, FrameHead::default());
        assert_eq!(FrameHead::of("[1,2]"), FrameHead::default());
        assert_eq!(FrameHead::of("not json"), FrameHead::default());
    }
}
