//! The agents' own browser tools through `slicc-browsers guard proxy --protect bank.example`:
//! chrome-devtools-mcp (`--browserUrl`) and Playwright MCP (`--cdp-endpoint`), driven over MCP's
//! stdio JSON-RPC as an agent drives them (tests/clients/mcp.cjs), in front of a headless
//! Chromium this test launches with a tab open on the user's bank (`login.bank.example`, the
//! attacks' app: a secret in its page and its cookie).
//!
//! Each server does the same steps twice, on a fresh browser each time (the four runs at once):
//! straight (no guard), where every step onto the bank reaches it (the listing shows the bank
//! tab, script in it reads the secret, a screenshot of it is taken, the cookies hold the secret,
//! a link click and a direct navigation load the bank's pages), and through the guard, where the
//! listing hides the bank tab, the calls addressed to it are errors (chrome-devtools-mcp) or land
//! on the server's own blank page (Playwright MCP, which sees no tab), the link click ends on an
//! error page and the navigation is refused with nothing served on the bank, no answer holds the
//! secret, and every ordinary step (opening a page, a snapshot, script, a link click) works.
//! Every call must be answered within its bound (no hang); what reached the bank is read from
//! the app's own request log.
//!
//! The servers come from npm: `.ci/run` installs them into a folder of their own and names its
//! `node_modules` in `SLICC_MCP_SERVERS`. Without Chromium, Node or that folder the test prints
//! why and passes; with `CI` set it fails.
#![cfg(all(feature = "cli-full", unix))]

use crate::needs;

use std::collections::BTreeMap;
use std::io::{BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use slicc_browsers::harness::selftest::Chromium;

/// The attacks' app (`tests/attacks/app.rs`): the bank's pages, and ordinary ones.
use crate::guard_clients::app;

const CHROMIUM: &str = "/usr/bin/chromium";
/// The site the user protects.
const SITE: &str = "bank.example";
/// The hosts the browser maps to the app: the bank, its subdomains, an ordinary host.
const HOSTS: [&str; 3] = ["bank.example", "*.bank.example", "ordinary.test"];
/// The bank tab the browser has open before any agent comes.
const BANK_TAB: &str = "http://login.bank.example/app?t=lived";
/// The bound on one tool call's answer.
const CALL_MS: u64 = 20_000;

/// The servers' packages, and the binary each installs.
const SERVERS: [(&str, &str); 2] = [
    ("chrome-devtools-mcp", "chrome-devtools-mcp"),
    ("@playwright/mcp", "playwright-mcp"),
];

/// The `node_modules` folder with both servers, or `None` with the reason printed.
fn servers_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("SLICC_MCP_SERVERS").map(PathBuf::from);
    let present = dir.as_ref().is_some_and(|d| {
        SERVERS.iter().all(|(p, bin)| {
            d.join(p).join("package.json").exists() && d.join(".bin").join(bin).exists()
        })
    });
    if needs::missing(
        "SLICC_MCP_SERVERS (a node_modules folder with chrome-devtools-mcp and @playwright/mcp)",
        present,
    ) {
        return None;
    }
    dir
}

/// A process group this test started, killed (the whole group) when the test ends however it
/// ends.
struct Group(Child);

impl Drop for Group {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.0.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `slicc-browsers guard proxy --protect bank.example` in front of `upstream` (in a
/// process group of its own): the process and its endpoint.
fn guard(upstream: &str) -> (Group, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_slicc-browsers"))
        .args(["guard", "proxy", "--upstream", upstream])
        .args(["--listen", "127.0.0.1:0", "--protect", SITE, "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("the binary runs");
    let stdout = child.stdout.take().expect("stdout");
    let group = Group(child);
    (group, crate::proxy_common::proxy_endpoint(stdout))
}

/// One step's answer.
#[derive(Debug, Clone)]
struct Answer {
    ms: u64,
    is_error: bool,
    timeout: bool,
    text: String,
}

/// Runs `steps` (with the starting `vars`) against the server `bin` given `args`, in a work
/// folder of its own; the answers by step name, in the order they ran.
fn drive(
    modules: &Path,
    bin: &str,
    args: &[String],
    vars: Value,
    steps: &[Value],
) -> Vec<(String, Answer)> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/mcp.cjs");
    let work = tempfile::tempdir().expect("a work folder");
    let plan = json!({"vars": vars, "steps": steps}).to_string();
    let mut child = Command::new("node")
        .arg(&script)
        .arg(&plan)
        .arg(modules.join(".bin").join(bin))
        .args(args)
        .current_dir(work.path())
        .env("HOME", work.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("node runs");
    let stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let mut group = Group(child);
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = BufReader::new(stdout).read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    // Every step is bounded by the driver; the whole run by this.
    let deadline = Instant::now() + Duration::from_millis(CALL_MS * (steps.len() as u64 + 2));
    while group.0.try_wait().ok().flatten().is_none() {
        assert!(
            Instant::now() < deadline,
            "{bin}: the driver did not finish in time"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(group);
    let out = reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    let mut answers = Vec::new();
    let mut ended = false;
    for line in out.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let name = v["name"].as_str().unwrap_or_default().to_string();
        if name == "end" {
            ended = true;
            continue;
        }
        answers.push((
            name,
            Answer {
                ms: v["ms"].as_u64().unwrap_or(0),
                is_error: v["isError"] == json!(true),
                timeout: v["timeout"] == json!(true),
                text: v["text"].as_str().unwrap_or_default().to_string(),
            },
        ));
    }
    assert!(ended, "{bin}: the driver did not finish:\n{out}\n{err}");
    answers
}

fn step(name: &str, tool: &str, args: Value) -> Value {
    json!({"name": name, "tool": tool, "args": args, "timeout": CALL_MS})
}

fn capture(mut s: Value, var: &str, regex: &str) -> Value {
    s["capture"] = json!({ var: regex });
    s
}

/// An ordinary page on `ordinary.test` with a link `text` to `href`.
fn page_with_link(tag: &str, text: &str, href: &str) -> String {
    format!(
        "http://ordinary.test/page?t={tag}&html={}",
        app::encode(&format!("<a href=\"{href}\">{text}</a>"))
    )
}

/// The script that reads the bank page's secret (or says where the page is).
const READ_SECRET: &str =
    "() => (document.getElementById('secret') || {}).textContent || location.href";

/// Whether `host` is the bank's.
fn on_bank(host: &str) -> bool {
    host == SITE || host.strip_suffix(SITE).is_some_and(|h| h.ends_with('.'))
}

/// The bank URL a step aims at, tagged for the run `tag`.
fn bank_url(what: &str, tag: &str) -> String {
    format!("http://vault.bank.example/app?t={what}-{tag}")
}

/// The steps for chrome-devtools-mcp, and its starting variables.
fn devtools_steps(start: &str, tag: &str) -> (Value, Vec<Value>) {
    let steps = vec![
        capture(
            step("list", "list_pages", json!({})),
            "bank",
            r"(\d+): [^\n]*http://login\.bank\.example",
        ),
        step(
            "script in the bank tab",
            "evaluate_script",
            json!({"pageId": "$bank", "function": READ_SECRET}),
        ),
        step(
            "screenshot of the bank tab",
            "take_screenshot",
            json!({"pageId": "$bank"}),
        ),
        capture(
            step("open an ordinary page", "new_page", json!({"url": start})),
            "page",
            r"(\d+): [^\n]*http://ordinary\.test/page\?t=start",
        ),
        capture(
            step("snapshot", "take_snapshot", json!({"pageId": "$page"})),
            "next",
            r#"uid=(\S+) link "next""#,
        ),
        step(
            "script",
            "evaluate_script",
            json!({"pageId": "$page", "function": "() => location.host"}),
        ),
        step(
            "click a link",
            "click",
            json!({"pageId": "$page", "uid": "$next"}),
        ),
        capture(
            step(
                "snapshot after the click",
                "take_snapshot",
                json!({"pageId": "$page"}),
            ),
            "onto",
            r#"uid=(\S+) link "bank""#,
        ),
        step(
            "click a link onto the bank",
            "click",
            json!({"pageId": "$page", "uid": "$onto"}),
        ),
        json!({"name": "where the click ended", "tool": "evaluate_script", "waitMs": 500,
               "timeout": CALL_MS,
               "args": {"pageId": "$page", "function": "() => location.href"}}),
        step(
            "navigate to the bank",
            "navigate_page",
            json!({"pageId": "$page", "type": "url", "url": bank_url("nav", tag)}),
        ),
        step("list at the end", "list_pages", json!({})),
    ];
    // The id chrome-devtools-mcp gives the bank tab when it sees it (the first page): what an
    // agent that guessed it would ask for.
    (json!({"bank": 1}), steps)
}

/// Playwright code reading the secret in every page of every context it knows.
const EVERY_TAB: &str = "async (page) => { const out = []; \
    for (const c of page.context().browser().contexts()) for (const p of c.pages()) \
    out.push(await p.evaluate(() => (document.getElementById('secret') || {}).textContent || location.href).catch((e) => 'error ' + e.message)); \
    return out; }";

/// The steps for Playwright MCP, and its starting variables.
fn playwright_steps(start: &str, tag: &str) -> (Value, Vec<Value>) {
    let steps = vec![
        step("list", "browser_tabs", json!({"action": "list"})),
        // The bank tab is the only one the browser has: the first.
        step(
            "select the bank tab",
            "browser_tabs",
            json!({"action": "select", "index": 0}),
        ),
        step(
            "script in the bank tab",
            "browser_evaluate",
            json!({"function": READ_SECRET}),
        ),
        step(
            "screenshot of the bank tab",
            "browser_take_screenshot",
            json!({}),
        ),
        step("the bank's cookies", "browser_cookie_list", json!({})),
        step(
            "script in every tab",
            "browser_run_code_unsafe",
            json!({"code": EVERY_TAB}),
        ),
        step(
            "open an ordinary page",
            "browser_tabs",
            json!({"action": "new", "url": start}),
        ),
        capture(
            step("snapshot", "browser_snapshot", json!({})),
            "next",
            r#"link "next" \[ref=(\w+)\]"#,
        ),
        step(
            "script",
            "browser_evaluate",
            json!({"function": "() => location.host"}),
        ),
        step(
            "click a link",
            "browser_click",
            json!({"element": "the next link", "target": "$next"}),
        ),
        capture(
            step("snapshot after the click", "browser_snapshot", json!({})),
            "onto",
            r#"link "bank" \[ref=(\w+)\]"#,
        ),
        step(
            "click a link onto the bank",
            "browser_click",
            json!({"element": "the bank link", "target": "$onto"}),
        ),
        json!({"name": "where the click ended", "tool": "browser_evaluate", "waitMs": 500,
               "timeout": CALL_MS, "args": {"function": "() => location.href"}}),
        step(
            "navigate to the bank",
            "browser_navigate",
            json!({"url": bank_url("nav", tag)}),
        ),
        step("list at the end", "browser_tabs", json!({"action": "list"})),
    ];
    (json!({}), steps)
}

/// One server's run.
struct Run {
    server: &'static str,
    guarded: bool,
    tag: String,
    answers: BTreeMap<String, Answer>,
    order: Vec<String>,
    wall: Duration,
}

/// One server's run on a fresh browser, guarded or not.
fn run_once(modules: &Path, app: &app::App, server: &'static str, guarded: bool) -> Run {
    let started = Instant::now();
    let tag = format!(
        "{}-{}",
        server.trim_start_matches('@').replace('/', "-"),
        if guarded { "guarded" } else { "straight" }
    );
    let lived = format!("{BANK_TAB}-{tag}");
    let ui = crate::proxy_common::with_browser_ui();
    let browser = Chromium::launch_with(CHROMIUM, &HOSTS, app.port(), &[lived.as_str(), &ui])
        .expect("chromium serves CDP");
    let loaded = format!("t=lived-{tag}");
    assert!(
        app.wait(Duration::from_secs(20), |h| h.host == "login.bank.example"
            && h.target.contains(&loaded))
            .is_some(),
        "{tag}: the bank tab did not load"
    );
    let (proxy, endpoint) = if guarded {
        let (p, e) = guard(&browser.http_url());
        (Some(p), e)
    } else {
        (None, browser.http_url())
    };
    let start = page_with_link(
        &format!("start-{tag}"),
        "next",
        &page_with_link(&format!("next-{tag}"), "bank", &bank_url("click", &tag)),
    );
    let (bin, args, (vars, steps)) = if server == "chrome-devtools-mcp" {
        (
            "chrome-devtools-mcp",
            vec![
                "--browserUrl".to_string(),
                endpoint,
                "--no-usage-statistics".into(),
                "--no-performance-crux".into(),
            ],
            devtools_steps(&start, &tag),
        )
    } else {
        (
            "playwright-mcp",
            vec![
                "--cdp-endpoint".to_string(),
                endpoint,
                "--caps=storage".into(),
            ],
            playwright_steps(&start, &tag),
        )
    };
    let answers = drive(modules, bin, &args, vars, &steps);
    drop(proxy);
    drop(browser);
    let order = answers.iter().map(|(n, _)| n.clone()).collect();
    Run {
        server,
        guarded,
        tag,
        answers: answers.into_iter().collect(),
        order,
        wall: started.elapsed(),
    }
}

/// Whether the app served a page on the bank for `what` in the run `tag`.
fn reached(app: &app::App, what: &str, tag: &str) -> bool {
    let t = format!("t={what}-{tag}");
    app.log()
        .iter()
        .any(|h| on_bank(&h.host) && h.target.starts_with("/app?") && h.target.contains(&t))
}

/// Judges one run: the ordinary steps work both ways; straight, every step onto the bank
/// reaches it; through the guard, none does, and no answer holds the secret.
fn judge(app: &app::App, run: &Run, failures: &mut Vec<String>) {
    let who = format!(
        "{} {}",
        run.server,
        if run.guarded {
            "through the guard"
        } else {
            "straight"
        }
    );
    let secret = app.secret();
    let mut fail = |what: String| failures.push(format!("{who}: {what}"));
    let none = Answer {
        ms: 0,
        is_error: true,
        timeout: false,
        text: "(no answer)".into(),
    };
    let get = |name: &str| run.answers.get(name).unwrap_or(&none);
    for name in &run.order {
        let a = get(name);
        if a.timeout || a.ms >= CALL_MS {
            fail(format!("{name}: no answer within {CALL_MS} ms"));
        }
    }
    let playwright = run.server != "chrome-devtools-mcp";
    for name in [
        "open an ordinary page",
        "snapshot",
        "script",
        "click a link",
        "snapshot after the click",
    ] {
        if get(name).is_error {
            fail(format!("{name} failed: {}", get(name).text));
        }
    }
    if !get("script").text.contains("\"ordinary.test\"") {
        fail(format!("script: {}", get("script").text));
    }
    if !get("snapshot after the click").text.contains("\"bank\"") {
        fail(format!(
            "the link click did not reach the next page: {}",
            get("snapshot after the click").text
        ));
    }
    let next = format!("t=next-{}", run.tag);
    if !app
        .log()
        .iter()
        .any(|h| h.host == "ordinary.test" && h.target.contains(&next))
    {
        fail("the link click loaded no page".into());
    }
    let clicked = reached(app, "click", &run.tag);
    let navigated = reached(app, "nav", &run.tag);
    let bank_steps: &[&str] = if playwright {
        &[
            "script in the bank tab",
            "the bank's cookies",
            "script in every tab",
        ]
    } else {
        &["script in the bank tab"]
    };
    if !run.guarded {
        // Straight, every step onto the bank reaches it: the test can fail.
        if !get("list").text.contains("http://login.bank.example") {
            fail(format!("the bank tab is not listed: {}", get("list").text));
        }
        for name in bank_steps {
            if !get(name).text.contains(secret) {
                fail(format!(
                    "{name} did not read the secret: {}",
                    get(name).text
                ));
            }
        }
        let shot = get("screenshot of the bank tab");
        if shot.is_error || !(shot.text.contains("[image]") || shot.text.contains("Screenshot")) {
            fail(format!("no screenshot of the bank tab: {}", shot.text));
        }
        if !clicked
            || !get("where the click ended")
                .text
                .contains("vault.bank.example")
        {
            fail(format!(
                "the link click onto the bank did not reach it: {}",
                get("where the click ended").text
            ));
        }
        if !navigated || get("navigate to the bank").is_error {
            fail(format!(
                "the navigation to the bank did not reach it: {}",
                get("navigate to the bank").text
            ));
        }
        return;
    }
    // Through the guard.
    for name in &run.order {
        if get(name).text.contains(secret) {
            fail(format!("{name} answered the bank's secret"));
        }
    }
    for name in ["list", "list at the end"] {
        let text = &get(name).text;
        if text.contains("http://login.bank.example") || text.contains("http://vault.bank.example")
        {
            fail(format!("{name} shows a bank page: {text}"));
        }
    }
    if !playwright {
        // The bank tab is not there to address: the calls aimed at it are errors.
        for name in ["script in the bank tab", "screenshot of the bank tab"] {
            if !get(name).is_error {
                fail(format!("{name} was not an error: {}", get(name).text));
            }
        }
    } else {
        // Playwright lists only its own blank page in the bank tab's place: what the calls
        // reach is that page, never the bank.
        for name in ["script in the bank tab", "script in every tab"] {
            if get(name).text.contains("bank.example") {
                fail(format!("{name} reached a bank page: {}", get(name).text));
            }
        }
        if get("the bank's cookies").text.contains("bank.example") {
            fail(format!(
                "the cookies list the bank's: {}",
                get("the bank's cookies").text
            ));
        }
    }
    if clicked
        || get("where the click ended")
            .text
            .contains("://vault.bank.example")
    {
        fail(format!(
            "the link click onto the bank reached it: {}",
            get("where the click ended").text
        ));
    }
    let nav = get("navigate to the bank");
    if navigated || !(nav.is_error || nav.text.contains("slicc: refused")) {
        fail(format!(
            "the navigation to the bank was not refused: {}",
            nav.text
        ));
    }
}

#[test]
fn agents_mcp_servers_are_kept_off_a_protected_site() {
    if needs::missing("/usr/bin/chromium", needs::chromium())
        || needs::missing("node", needs::node())
    {
        return;
    }
    let Some(modules) = servers_dir() else {
        return;
    };
    let app = app::App::start();
    let started = Instant::now();
    // The four runs (each server, straight and guarded) at once, each on a browser of its own.
    let runs: Vec<Run> = std::thread::scope(|s| {
        let handles: Vec<_> = SERVERS
            .iter()
            .flat_map(|(server, _)| [false, true].map(|g| (*server, g)))
            .map(|(server, guarded)| {
                let (app, modules) = (&app, &modules);
                s.spawn(move || run_once(modules, app, server, guarded))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut failures = Vec::new();
    for run in &runs {
        println!(
            "{} {}: {} steps in {} ms",
            run.server,
            if run.guarded {
                "through the guard"
            } else {
                "straight"
            },
            run.order.len(),
            run.wall.as_millis()
        );
        for name in &run.order {
            let a = &run.answers[name];
            println!(
                "  {name}: {} ms{} {}",
                a.ms,
                if a.is_error { " (error)" } else { "" },
                a.text
                    .chars()
                    .take(140)
                    .collect::<String>()
                    .replace('\n', " | ")
            );
        }
        judge(&app, run, &mut failures);
    }
    println!("all runs: {} ms", started.elapsed().as_millis());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
