//! Differential test of the protected-origin matcher against Chromium itself.
//!
//! Debian's Chromium, headless, loads a page that runs every input through Blink's `new URL()`
//! (Chromium's own URL parser, `url/`) and applies the spec's rules to what it reads, both to
//! the URL and to the origin Chromium gives it (`blob:` and `filesystem:` URLs take their inner
//! URL's). The inputs are every vector URL and target URL, and every code point of the Basic
//! Multilingual Plane in three places where a bypass was once found: inside `sliccy`, before an
//! IPv6 extra origin's `::1`, and before a `filesystem:` URL's inner URL. The test fails on any
//! input Chromium puts on a protected origin and the matcher does not protect (the other way
//! round is the matcher failing closed). Without `/usr/bin/chromium` it prints why and passes (fails when `CI` is set).
#![cfg(all(target_os = "linux", feature = "protected", feature = "corpus"))]

use crate::needs;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use slicc_browsers::protected::{vectors, Matcher};
use slicc_browsers::shared_catalog;

const CHROMIUM: &str = "/usr/bin/chromium";

/// The spec's rules over Blink's `URL`; writes one `0`/`1` per input into `#o`.
const PAGE_SCRIPT: &str = r#"
const norm = (h) => { h = h.toLowerCase(); return h.endsWith('.') ? h.slice(0, -1) : h; };
const extras = EXTRA.map((o) => { const u = new URL(o); return { s: u.protocol.slice(0, -1), h: norm(u.hostname), p: u.port }; });
function parse(t) { try { return new URL(t); } catch (e) { return null; } }
function prot(text, depth) {
  const u = parse(text);
  if (!u) return false;
  const s = u.protocol.slice(0, -1);
  if (PO.anySchemes.includes(s)) return true;
  if (PO.innerSchemes.includes(s) && depth < 8) return prot(u.href.slice(s.length + 1), depth + 1);
  const h = norm(u.hostname);
  if (h && PO.schemes.includes(s) && (PO.hosts.includes(h) || PO.domains.some((d) => h === d || h.endsWith('.' + d)))) return true;
  return !!h && extras.some((e) => e.s === s && e.h === h && e.p === u.port);
}
function byOrigin(text) {
  const u = parse(text);
  return !!u && u.origin !== 'null' && prot(u.origin + '/', 0);
}
document.getElementById('o').textContent =
  INPUTS.map((t) => (prot(t, 0) || byOrigin(t) ? '1' : '0')).join('');
"#;

fn inputs() -> Vec<String> {
    let v = vectors();
    let mut out: Vec<String> = v.urls.iter().map(|u| u.url.clone()).collect();
    out.extend(v.targets.iter().map(|t| t.url.clone()));
    let templates = [
        "https://slic{}cy.ai/",
        "http://[{}::1]:5712/",
        "filesystem:{}https://seven.sliccy.ai/temporary/",
    ];
    for template in templates {
        for c in (0..=0xFFFFu32).filter_map(char::from_u32) {
            out.push(template.replace("{}", &c.to_string()));
        }
    }
    out
}

/// JSON text with every non-ASCII UTF-16 unit written as a `\uXXXX` escape.
fn ascii_js(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

/// Runs the page in headless Chromium and returns one protected bit per input.
fn chromium_bits(inputs: &[String], extras: &[String]) -> Vec<bool> {
    let dir = tempfile::tempdir().expect("a temp dir");
    // The data is written as ASCII (every other character as a `\u` escape) and the page
    // declares UTF-8: a file page without a charset is read as windows-1252, which would turn
    // each non-ASCII input into two or three other characters.
    let data = ascii_js(&format!(
        "window.INPUTS = {};\nwindow.PO = {};\nwindow.EXTRA = {};\n",
        serde_json::to_string(inputs).unwrap(),
        serde_json::to_string(&shared_catalog().protected_origins).unwrap(),
        serde_json::to_string(extras).unwrap(),
    ));
    std::fs::write(dir.path().join("data.js"), data).unwrap();
    let page = format!(
        "<html><head><meta charset=\"utf-8\"></head><body><pre id=o></pre><script src=\"data.js\"></script><script>{PAGE_SCRIPT}</script></body></html>"
    );
    let page_path = dir.path().join("page.html");
    std::fs::write(&page_path, page).unwrap();
    let out_path = dir.path().join("dom.html");
    let out_file = std::fs::File::create(&out_path).unwrap();
    let mut child = {
        use std::os::unix::process::CommandExt;
        Command::new(CHROMIUM)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                &format!("--user-data-dir={}", dir.path().join("profile").display()),
                "--dump-dom",
                &format!("file://{}", page_path.display()),
            ])
            .env("HOME", dir.path())
            // Chromium makes its singleton socket's folder in TMPDIR; a killed one leaves it.
            .env("TMPDIR", dir.path())
            .stdin(Stdio::null())
            .stdout(out_file)
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("chromium starts")
    };
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        if child.try_wait().expect("wait for chromium").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
            let _ = child.wait();
            panic!("chromium did not finish the page in 600 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let dom = std::fs::read_to_string(&out_path).expect("chromium's DOM");
    let start = dom.find("<pre id=\"o\">").expect("the page ran") + "<pre id=\"o\">".len();
    let end = start + dom[start..].find("</pre>").expect("the end of the answer");
    dom[start..end].bytes().map(|b| b == b'1').collect()
}

#[test]
fn chromium_never_reaches_what_the_matcher_allows() {
    if needs::missing(CHROMIUM, std::path::Path::new(CHROMIUM).exists()) {
        return;
    }
    let v = vectors();
    let m = Matcher::new(&shared_catalog().protected_origins, &v.origins).expect("origins");
    let inputs = inputs();
    let bits = chromium_bits(&inputs, &v.origins);
    assert_eq!(bits.len(), inputs.len(), "Chromium answered every input");
    // The page really judged: Chromium protects the plain protected vectors.
    for plain in ["https://seven.sliccy.ai/", "http://127.0.0.1:5710/"] {
        let i = inputs
            .iter()
            .position(|u| u == plain)
            .expect("a plain vector");
        assert!(bits[i], "Chromium's page does not protect {plain}");
    }
    let (mut chromium_protects, mut fail_closed) = (0usize, 0usize);
    let mut holes = Vec::new();
    for (input, &theirs) in inputs.iter().zip(&bits) {
        let ours = m.url(input);
        chromium_protects += usize::from(theirs);
        fail_closed += usize::from(ours && !theirs);
        if theirs && !ours {
            holes.push(input.escape_debug().to_string());
        }
    }
    println!(
        "{} inputs: Chromium puts {chromium_protects} on a protected origin; the matcher fails \
         closed on {fail_closed} more",
        inputs.len()
    );
    assert!(
        holes.is_empty(),
        "{} inputs Chromium puts on a protected origin are allowed:\n{}",
        holes.len(),
        holes
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The amendments of docs/protected-amendments.md, each proven in Chromium: the attack reaches the
// protected origin, cookie or storage, although the spec's rules as written allow the input.
// ---------------------------------------------------------------------------------------------

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{channel, Receiver};

use serde_json::{json, Value};

/// A headless Chromium of its own, driven over CDP on a pipe (`--remote-debugging-pipe`:
/// commands on fd 3, answers on fd 4, each a JSON text ended by NUL; no port is opened), in a
/// temp profile and its own process group, which is killed when it is dropped.
struct Cdp {
    child: Child,
    input: ChildStdin,
    answers: Receiver<Value>,
    next: u64,
    _dir: tempfile::TempDir,
}

impl Cdp {
    fn start() -> Cdp {
        use std::os::unix::process::CommandExt;
        let dir = tempfile::tempdir().expect("a temp dir");
        let profile = format!("--user-data-dir={}", dir.path().join("profile").display());
        let mut child = Command::new("bash")
            .args([
                "-c",
                "exec 3<&0 4>&1 >/dev/null 2>&1; exec \"$0\" \"$@\"",
                CHROMIUM,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--remote-debugging-pipe",
                &profile,
                "about:blank",
            ])
            .env("HOME", dir.path())
            // Chromium makes its singleton socket's folder in TMPDIR; a killed one leaves it.
            .env("TMPDIR", dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("chromium starts");
        let input = child.stdin.take().expect("the command pipe");
        let mut output = BufReader::new(child.stdout.take().expect("the answer pipe"));
        let (tx, answers) = channel();
        std::thread::spawn(move || loop {
            let mut message = Vec::new();
            match output.read_until(0, &mut message) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    message.pop();
                    if let Ok(v) = serde_json::from_slice::<Value>(&message) {
                        if tx.send(v).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Cdp {
            child,
            input,
            answers,
            next: 0,
            _dir: dir,
        }
    }

    /// One CDP command; its result, or the error message.
    fn call(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> Result<Value, String> {
        self.next += 1;
        let id = self.next;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.input.write_all(&bytes).expect("send to chromium");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let answer = self
                .answers
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method} within 30 s"));
            if answer["id"] != json!(id) {
                continue;
            }
            return match answer.get("error") {
                Some(e) => Err(e["message"].as_str().unwrap_or("error").to_string()),
                None => Ok(answer["result"].clone()),
            };
        }
    }

    /// A page session on a new target at `url`.
    fn page(&mut self, url: &str) -> (String, String) {
        let target = self
            .call("Target.createTarget", json!({ "url": url }), None)
            .expect("a new target");
        let id = target["targetId"].as_str().unwrap().to_string();
        let session = self
            .call(
                "Target.attachToTarget",
                json!({ "targetId": id, "flatten": true }),
                None,
            )
            .expect("attached");
        (id, session["sessionId"].as_str().unwrap().to_string())
    }

    /// `expression`'s value in the page of `session`.
    fn eval(&mut self, session: &str, expression: &str, gesture: bool) -> Value {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true, "awaitPromise": true, "userGesture": gesture }),
                Some(session),
            )
            .expect("Runtime.evaluate");
        assert!(r.get("exceptionDetails").is_none(), "{expression}: {r}");
        r["result"]["value"].clone()
    }
}

impl Drop for Cdp {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
    }
}

/// The amendments' vectors: the `json` blocks of docs/protected-amendments.md, by amendment.
fn amendments() -> Vec<(String, Value)> {
    let text = include_str!("../../docs/protected-amendments.md");
    let mut out = Vec::new();
    let mut name = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("```json\n") {
        if let Some(h) = rest[..start].rfind("\n## ") {
            name = rest[h + 4..].lines().next().unwrap_or_default().to_string();
        }
        let body = &rest[start + 8..];
        let end = body.find("```").expect("a closed json block");
        out.push((
            name.clone(),
            serde_json::from_str(&body[..end]).expect("a json block"),
        ));
        rest = &body[end..];
    }
    out
}

/// The spec's cookie rule as written: lower case, one leading and one trailing dot dropped;
/// one of `domains` or under one, or one of `hosts`, `domains` or the extra origins' hosts
/// (`URL.hostname`, brackets kept) or a parent of one.
fn cookie_rule_as_written(domain: &str, extras: &[String]) -> bool {
    let po = &shared_catalog().protected_origins;
    let d = domain.to_lowercase();
    let d = d.strip_prefix('.').unwrap_or(&d);
    let d = d.strip_suffix('.').unwrap_or(d);
    let under = |name: &str, of: &str| name == of || name.ends_with(&format!(".{of}"));
    if d.is_empty() {
        return false;
    }
    let extra_hosts = extras.iter().filter_map(|o| {
        let rest = o.split_once("://")?.1;
        let host = if rest.starts_with('[') {
            &rest[..=rest.find(']')?]
        } else {
            rest.split(':').next()?
        };
        Some(host.to_string())
    });
    po.domains.iter().any(|x| under(d, x))
        || po
            .hosts
            .iter()
            .chain(&po.domains)
            .cloned()
            .chain(extra_hosts)
            .any(|n| under(&n, d))
}

#[test]
fn amendments_reach_protected_origins_in_chromium() {
    if needs::missing(CHROMIUM, std::path::Path::new(CHROMIUM).exists()) {
        return;
    }
    let v = vectors();
    let blocks = amendments();
    assert_eq!(blocks.len(), 6, "six amendments, A1-A6");
    let mut cdp = Cdp::start();
    let (_, blank) = cdp.page("about:blank");
    let setup = format!(
        "window.PO = {}; window.EXTRA = {};",
        serde_json::to_string(&shared_catalog().protected_origins).unwrap(),
        serde_json::to_string(&v.origins).unwrap(),
    );
    cdp.eval(&blank, &setup, false);
    // The spec's rules over Blink's URL (Chromium's canonicalizer), on the URL and its origin.
    let rules = PAGE_SCRIPT
        .lines()
        .filter(|l| !l.starts_with("document.") && !l.starts_with("  INPUTS."))
        .collect::<Vec<_>>()
        .join("\n");
    cdp.eval(
        &blank,
        &format!("{rules}\nwindow.judge = (t) => prot(t, 0) || byOrigin(t); 0"),
        false,
    );
    let mut proven = 0;
    let mut failures = Vec::new();
    for (name, block) in &blocks {
        // URLs, target URLs with an origin of their own, and storage keys' origin and ^0 site.
        let mut texts: Vec<(String, Vec<String>)> = Vec::new();
        for u in block["urls"].as_array().into_iter().flatten() {
            let u = u.as_str().unwrap().to_string();
            texts.push((u.clone(), vec![u]));
        }
        for t in block["targets"].as_array().into_iter().flatten() {
            let url = t["url"].as_str().unwrap();
            if url != "about:blank/" {
                texts.push((url.to_string(), vec![url.to_string()]));
            }
        }
        for k in block["storageKeys"].as_array().into_iter().flatten() {
            let key = k.as_str().unwrap();
            let mut parts = key.split('^');
            let mut urls = vec![parts.next().unwrap_or_default().to_string()];
            urls.extend(
                parts
                    .filter_map(|p| p.strip_prefix('0'))
                    .map(str::to_string),
            );
            texts.push((key.to_string(), urls));
        }
        for (input, urls) in texts {
            let expression = format!(
                "{}.some((t) => judge(t))",
                ascii_js(&serde_json::to_string(&urls).unwrap())
            );
            if cdp.eval(&blank, &expression, false) == json!(true) {
                proven += 1;
            } else {
                failures.push(format!(
                    "{name}: Chromium does not reach a protected origin through {input:?}"
                ));
            }
        }
        // Cookie domains: CDP sets the cookie, and Chromium stores it on a protected domain.
        for (i, d) in block["cookieDomains"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let domain = d.as_str().unwrap();
            let cookie = format!("amend{i}");
            let set = cdp.call(
                "Storage.setCookies",
                json!({ "cookies": [{ "name": cookie, "value": "v", "domain": domain, "path": "/" }] }),
                None,
            );
            let all = cdp
                .call("Storage.getCookies", json!({}), None)
                .expect("Storage.getCookies");
            let stored: Vec<String> = all["cookies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["name"] == json!(cookie))
                .map(|c| c["domain"].as_str().unwrap_or_default().to_string())
                .collect();
            let reached = stored.iter().any(|s| cookie_rule_as_written(s, &v.origins));
            if set.is_ok() && reached && !cookie_rule_as_written(domain, &v.origins) {
                proven += 1;
            } else {
                failures.push(format!(
                    "{name}: cookie domain {domain:?}: set {set:?}, stored on {stored:?}"
                ));
            }
            let _ = cdp.call("Storage.clearCookies", json!({}), None);
        }
        // A6: a popup at about:blank/ that a protected page opens has the opener's origin.
        if block["targets"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|t| t["url"] == json!("about:blank/"))
        {
            match about_blank_slash(&mut cdp) {
                Ok(()) => proven += 1,
                Err(e) => failures.push(format!("{name}: about:blank/: {e}")),
            }
        }
    }
    println!("{proven} amendment vectors proven in Chromium");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let listed: usize = blocks
        .iter()
        .map(|(_, b)| {
            ["urls", "targets", "cookieDomains", "storageKeys"]
                .iter()
                .map(|k| b[k].as_array().map_or(0, Vec::len))
                .sum::<usize>()
        })
        .sum();
    assert_eq!(proven, listed, "every listed amendment vector is proven");
}

/// A page on a protected origin (the extra origin `http://127.0.0.1:<port>` of a server of the
/// test's own) opens `about:blank/`: Chromium reports the popup's URL as `about:blank/`, and its
/// document has the opener's origin. The spec's target rule, as written, judges that URL by
/// itself (it does not inherit), so it would allow the popup.
fn about_blank_slash(cdp: &mut Cdp) -> Result<(), String> {
    let server = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let port = server.local_addr().map_err(|e| e.to_string())?.port();
    std::thread::spawn(move || {
        for stream in server.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body = "<html><body>opener</body></html>";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let origin = format!("http://127.0.0.1:{port}");
    let (opener_id, page) = cdp.page(&format!("{origin}/"));
    let deadline = Instant::now() + Duration::from_secs(20);
    while cdp.eval(
        &page,
        "document.readyState === 'complete' && location.origin",
        false,
    ) != json!(origin)
    {
        if Instant::now() > deadline {
            return Err("the opener page did not load".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    cdp.eval(&page, "window.open('about:blank/') !== null", true);
    let deadline = Instant::now() + Duration::from_secs(20);
    let popup = loop {
        let targets = cdp.call("Target.getTargets", json!({}), None)?;
        let found = targets["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["url"] == json!("about:blank/") && t["openerId"] == json!(opener_id));
        if let Some(t) = found {
            break t["targetId"].as_str().unwrap_or_default().to_string();
        }
        if Instant::now() > deadline {
            return Err(format!("no popup reported at about:blank/: {targets}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let session = cdp.call(
        "Target.attachToTarget",
        json!({ "targetId": popup, "flatten": true }),
        None,
    )?;
    let session = session["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let popup_origin = cdp.eval(&session, "location.href + ' ' + origin", false);
    if popup_origin != json!(format!("about:blank/ {origin}")) {
        return Err(format!(
            "the popup is {popup_origin}, not about:blank/ on {origin}"
        ));
    }
    Ok(())
}
