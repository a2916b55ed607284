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

mod needs;

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
  if (PO.innerSchemes.includes(s)) return depth >= 8 || prot(u.href.slice(s.length + 1), depth + 1);
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

/// Runs the page in headless Chromium and returns one protected bit per input.
fn chromium_bits(inputs: &[String], extras: &[String]) -> Vec<bool> {
    let dir = tempfile::tempdir().expect("a temp dir");
    let data = format!(
        "window.INPUTS = {};\nwindow.PO = {};\nwindow.EXTRA = {};\n",
        serde_json::to_string(inputs).unwrap(),
        serde_json::to_string(&shared_catalog().protected_origins).unwrap(),
        serde_json::to_string(extras).unwrap(),
    );
    std::fs::write(dir.path().join("data.js"), data).unwrap();
    let page = format!(
        "<html><body><pre id=o></pre><script src=\"data.js\"></script><script>{PAGE_SCRIPT}</script></body></html>"
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
