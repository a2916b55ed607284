//! The clipboard: one for the whole browser (every browser context shares it: measured on
//! Chromium 156, a copy in one context is read by a page in a context made after it), holding
//! whatever the user copied, on a protected page or anywhere else. A client's page reads it by
//! a paste the client drives (`Input.dispatchKeyEvent` with a paste editing command, Ctrl+V,
//! Shift+Insert or the Paste key: each measured to paste the user's copy into the client's
//! page) or by the asynchronous clipboard API once the client granted its origin the
//! clipboard read permission (`Browser.grantPermissions` `clipboardReadWrite`,
//! `Browser.setPermission` `clipboard-read`, or `clipboard-write` without sanitization, which
//! Chromium reads as the same permission). These are refused; writing the clipboard (copy,
//! cut, the sanitized write permission) is not. Measured not to read it: `execCommand('paste')`
//! from the page's script (with or without the permission), a middle click (the selection
//! clipboard), `Input.insertText`.

use serde_json::Value;

use super::command::ClientCommand;
use super::table::Concern;

/// `Input.dispatchKeyEvent` modifier bits (CDP): Alt 1, Ctrl 2, Meta 4, Shift 8.
const CTRL: i64 = 2;
const META: i64 = 4;
const SHIFT: i64 = 8;

/// Whether client command `cmd` reads the user's clipboard into a page.
pub(super) fn reads_clipboard(cmd: &ClientCommand) -> bool {
    let params = cmd.params;
    if !matches!(cmd.concern, Some(Concern::Permissions | Concern::Clipboard)) {
        return false;
    }
    match cmd.method {
        "Browser.grantPermissions" => params
            .get("permissions")
            .and_then(Value::as_array)
            .is_some_and(|ps| {
                ps.iter().any(|p| {
                    p.as_str()
                        .is_some_and(|p| p.eq_ignore_ascii_case("clipboardReadWrite"))
                })
            }),
        "Browser.setPermission" => {
            let granted = params
                .get("setting")
                .and_then(Value::as_str)
                .is_none_or(|s| {
                    !s.eq_ignore_ascii_case("denied") && !s.eq_ignore_ascii_case("prompt")
                });
            let d = &params["permission"];
            let name = d.get("name").and_then(Value::as_str).unwrap_or_default();
            let reads = name.eq_ignore_ascii_case("clipboard-read")
                || (name.eq_ignore_ascii_case("clipboard-write")
                    && d.get("allowWithoutSanitization")
                        .and_then(Value::as_bool)
                        .unwrap_or(false));
            granted && reads
        }
        "Input.dispatchKeyEvent" => paste_key(params),
        _ => false,
    }
}

/// Whether a key event pastes: a paste (or kill-ring yank) editing command, or a key Blink's
/// editing key bindings read as one (by its Windows key code, its `key` or its `code`).
fn paste_key(params: &Value) -> bool {
    let commands = params
        .get("commands")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter().any(|c| {
                c.as_str().is_some_and(|c| {
                    let c = c.to_ascii_lowercase();
                    c.starts_with("paste") || c.starts_with("yank")
                })
            })
        });
    if commands {
        return true;
    }
    // Only key presses edit (`keyDown`, `rawKeyDown`; a `char` carries text, not a command);
    // an unknown type is judged as a press.
    if params
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t == "keyUp" || t == "char")
    {
        return false;
    }
    let modifiers = params.get("modifiers").and_then(Value::as_i64).unwrap_or(0);
    let vk = params
        .get("windowsVirtualKeyCode")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let key = params
        .get("key")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let code = params
        .get("code")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let is = |name: &str, keycode: i64| {
        key.eq_ignore_ascii_case(name) || code.eq_ignore_ascii_case(name) || vk == keycode
    };
    // The Paste key (VK_PASTE is not a Windows code; Chromium maps it from `key`/`code`).
    if key.eq_ignore_ascii_case("Paste") || code.eq_ignore_ascii_case("Paste") {
        return true;
    }
    let v = is("v", 0x56) || code.eq_ignore_ascii_case("KeyV");
    let insert = is("Insert", 0x2d);
    (v && modifiers & (CTRL | META) != 0) || (insert && modifiers & SHIFT != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pastes_and_read_permissions_are_recognised() {
        let reads = [
            (
                "Browser.grantPermissions",
                json!({"permissions": ["geolocation", "clipboardReadWrite"]}),
            ),
            (
                "Browser.grantPermissions",
                json!({"permissions": ["clipboardReadWrite"], "origin": "https://a.test", "browserContextId": "C"}),
            ),
            (
                "Browser.setPermission",
                json!({"permission": {"name": "clipboard-read"}, "setting": "granted"}),
            ),
            (
                "Browser.setPermission",
                json!({"permission": {"name": "clipboard-write", "allowWithoutSanitization": true}, "setting": "granted"}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "keyDown", "commands": ["paste"]}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "rawKeyDown", "commands": ["selectAll", "PasteAndMatchStyle"]}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "rawKeyDown", "commands": ["yank"]}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "rawKeyDown", "key": "v", "code": "KeyV", "windowsVirtualKeyCode": 86, "modifiers": 2}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "keyDown", "key": "V", "modifiers": 4}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "rawKeyDown", "windowsVirtualKeyCode": 86, "modifiers": 10}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"key": "x", "code": "KeyV", "modifiers": 2}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "rawKeyDown", "key": "Insert", "code": "Insert", "windowsVirtualKeyCode": 45, "modifiers": 8}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "rawKeyDown", "key": "Paste", "code": "Paste"}),
            ),
        ];
        for (m, p) in &reads {
            assert!(reads_clipboard(&ClientCommand::bare(m, p)), "{m} {p}");
        }
        let others = [
            (
                "Browser.grantPermissions",
                json!({"permissions": ["clipboardSanitizedWrite", "geolocation"]}),
            ),
            (
                "Browser.setPermission",
                json!({"permission": {"name": "clipboard-read"}, "setting": "denied"}),
            ),
            (
                "Browser.setPermission",
                json!({"permission": {"name": "clipboard-write"}, "setting": "granted"}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "keyDown", "commands": ["copy", "selectAll"]}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "rawKeyDown", "key": "v", "code": "KeyV", "windowsVirtualKeyCode": 86}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "char", "text": "v", "key": "v", "modifiers": 2}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "keyUp", "key": "v", "windowsVirtualKeyCode": 86, "modifiers": 2}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "rawKeyDown", "key": "Insert", "windowsVirtualKeyCode": 45}),
            ),
            (
                "Input.dispatchKeyEvent",
                json!({"type": "rawKeyDown", "key": "c", "windowsVirtualKeyCode": 67, "modifiers": 2}),
            ),
            ("Input.insertText", json!({"text": "paste"})),
        ];
        for (m, p) in &others {
            assert!(!reads_clipboard(&ClientCommand::bare(m, p)), "{m} {p}");
        }
    }
}
