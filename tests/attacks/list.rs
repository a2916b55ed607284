//! The attacks. Each is run once straight to Chromium (it must work there) and once through the
//! proxy (it must not). Ids are `<class>.<name>`: `c1` … `c6` are issue 19's classes, `c7` the
//! suite's own ideas.

use std::time::Duration;

use serde_json::{json, Value};
use slicc_browsers::guard::runner::Transport;

use super::app::encode;
use super::{sleep, Attack, Ctx, Res, Stop, VAULT};

/// Every attack, in run order.
pub fn all() -> Vec<Attack> {
    vec![
        Attack {
            id: "c1.oopif-js-url",
            class: 1,
            what: "the client's page points its cross-site iframe at the vault, then Page.navigate javascript: by frameId",
            run: oopif_js_url,
        },
        Attack {
            id: "c1.created-frame-js-url",
            class: 1,
            what: "the client creates a target that frames the vault, then Page.navigate javascript: by frameId",
            run: created_frame_js_url,
        },
        Attack {
            id: "c1.oopif-capture-snapshot",
            class: 1,
            what: "Page.captureSnapshot of the client's page holding a vault frame",
            run: oopif_capture_snapshot,
        },
        Attack {
            id: "c1.oopif-insert-text",
            class: 1,
            what: "a click into the vault frame's input, then Input.insertText",
            run: oopif_insert_text,
        },
        Attack {
            id: "c2.inflight-redirect",
            class: 2,
            what: "a slow ordinary redirect to the vault, attached during the hop, with an init script",
            run: inflight_redirect,
        },
        Attack {
            id: "c2.bfcache-back",
            class: 2,
            what: "history.back() into a vault page held in the back/forward cache, with queued evaluates",
            run: bfcache_back,
        },
        Attack {
            id: "c3.chrome-history",
            class: 3,
            what: "chrome://history lists a visited vault URL with its secret query",
            run: chrome_history,
        },
        Attack {
            id: "c4.tracing-page-session",
            class: 4,
            what: "Tracing on the client's own page session records another tab's vault URL",
            run: tracing_page_session,
        },
        Attack {
            id: "c5.json-list-popup",
            class: 5,
            what: "/json/list lists an about:blank popup a vault page opened and titled",
            run: json_list_popup,
        },
        Attack {
            id: "c6.extra-headers-subresource",
            class: 6,
            what: "Network.setExtraHTTPHeaders reaches a vault subresource request",
            run: extra_headers_subresource,
        },
        Attack {
            id: "c6.ua-override-subresource",
            class: 6,
            what: "Network.setUserAgentOverride reaches a vault subresource request",
            run: ua_override_subresource,
        },
        Attack {
            id: "c7.create-target-vault",
            class: 7,
            what: "Target.createTarget on the vault, attach, evaluate",
            run: create_target_vault,
        },
        Attack {
            id: "c7.get-cookies-urls",
            class: 7,
            what: "Network.getCookies with the vault's URL",
            run: get_cookies_urls,
        },
    ]
}

// ---- helpers ----

/// The client's ordinary page: `http://ordinary.test/page`, framing `frame` if given. Waits
/// until it is complete; (target, session).
fn client_page(ctx: &Ctx, frame: Option<&str>) -> Result<(String, String), Stop> {
    let path = match frame {
        Some(f) => format!("/page?frame={}", encode(f)),
        None => "/page".to_string(),
    };
    let url = ctx.url("http://ordinary.test", &path);
    let (t, s) = ctx.open(&url)?;
    ctx.wait_true(
        &s,
        &format!(
            "location.href === {} && document.readyState === 'complete'",
            json!(url)
        ),
        10_000,
    )?;
    Ok((t, s))
}

/// The frame id of the client page's `#f` iframe.
fn frame_id(ctx: &Ctx, session: &str) -> Result<String, Stop> {
    let r = ctx.send(
        "Runtime.evaluate",
        json!({"expression": "document.getElementById('f')"}),
        Some(session),
    )?;
    let object = r["result"]["objectId"].clone();
    let d = ctx.send(
        "DOM.describeNode",
        json!({"objectId": object}),
        Some(session),
    )?;
    d["node"]["frameId"]
        .as_str()
        .map(String::from)
        .ok_or_else(|| Stop::Failed(format!("no frame id in {d}")))
}

/// The client's page with its cross-site iframe pointed (by the page's own script) at the
/// vault app; waits until the app reports it loaded. (session, frame id).
fn oopif(ctx: &Ctx) -> Result<(String, String), Stop> {
    let (_, s) = client_page(ctx, Some("http://plain.example/page?t=x"))?;
    ctx.eval(
        &s,
        &format!(
            "document.getElementById('f').src = {}; true",
            json!(ctx.vault("/app"))
        ),
    )?;
    if !ctx.app_loaded(&ctx.tag, 8000) {
        return Err(Stop::Failed("the vault frame never loaded".into()));
    }
    sleep(200);
    let f = frame_id(ctx, &s)?;
    Ok((s, f))
}

/// A mouse click at (x, y) through the client's page session.
fn click(ctx: &Ctx, s: &str, x: f64, y: f64) -> Result<(), Stop> {
    for kind in ["mousePressed", "mouseReleased"] {
        ctx.send(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            Some(s),
        )?;
    }
    Ok(())
}

/// Every text, attribute and shadow root under the document, as one string.
const DEEP_TEXT: &str = "(() => { const out = []; const walk = (n) => { if (n.nodeType === 3) out.push(n.data); \
    if (n.attributes) for (const a of n.attributes) out.push(a.value); if (n.shadowRoot) walk(n.shadowRoot); \
    for (const c of n.childNodes) walk(c); }; walk(document.documentElement); return out.join('\\n'); })()";

/// Polls the deep text of the client's `session` until it holds the secret (at most `ms`).
fn deep_text_holds_secret(ctx: &Ctx, session: &str, what: &str, ms: u64) -> Res {
    let deadline = std::time::Instant::now() + Duration::from_millis(ms);
    let mut last = String::new();
    loop {
        if let Ok(Value::String(text)) = ctx.eval(session, DEEP_TEXT) {
            if text.contains(ctx.secret()) {
                return ctx.holds_secret(what, &text);
            }
            last = text;
        }
        if std::time::Instant::now() >= deadline {
            return ctx.holds_secret(what, &last);
        }
        sleep(250);
    }
}

/// The user visits the vault with the secret in the URL's query (a reset link, say).
fn user_visits_secret_url(ctx: &Ctx) -> Result<String, Stop> {
    let url = format!("{}&k={}", ctx.vault("/app"), ctx.secret());
    ctx.user_open(&url)
}

// ---- class 1: out-of-process frames ----

fn oopif_js_url(ctx: &Ctx) -> Res {
    let (s, f) = oopif(ctx)?;
    let _ = ctx.send(
        "Page.navigate",
        json!({"frameId": f, "url": format!("javascript:{}", ctx.exfil_js())}),
        Some(&s),
    );
    ctx.exfiltrated(4000)
}

fn created_frame_js_url(ctx: &Ctx) -> Res {
    let (_, s) = ctx.open(&ctx.url(
        "http://ordinary.test",
        &format!("/page?frame={}", encode(&ctx.vault("/app"))),
    ))?;
    if !ctx.app_loaded(&ctx.tag, 8000) {
        return Err(Stop::Failed("the vault frame never loaded".into()));
    }
    ctx.wait_true(&s, "document.readyState === 'complete'", 5000)?;
    let f = frame_id(ctx, &s)?;
    let _ = ctx.send(
        "Page.navigate",
        json!({"frameId": f, "url": format!("javascript:{}", ctx.exfil_js())}),
        Some(&s),
    );
    ctx.exfiltrated(4000)
}

fn oopif_capture_snapshot(ctx: &Ctx) -> Res {
    let (s, _) = oopif(ctx)?;
    let r = ctx.send("Page.captureSnapshot", json!({"format": "mhtml"}), Some(&s))?;
    ctx.holds_secret(
        "Page.captureSnapshot",
        r["data"].as_str().unwrap_or_default(),
    )
}

fn oopif_insert_text(ctx: &Ctx) -> Res {
    let (s, _) = oopif(ctx)?;
    click(ctx, &s, 100.0, 55.0)?;
    sleep(200);
    let text = format!("typed-{}", ctx.tag);
    ctx.send("Input.insertText", json!({"text": text}), Some(&s))?;
    ctx.app()
        .app_event(&ctx.tag, "typed", &text, Duration::from_secs(3))
        .map(|_| "the vault app's input handler sent the client's text".to_string())
        .ok_or_else(|| Stop::Failed("the vault app never saw the text".into()))
}

// ---- class 2: commits without interception ----

fn inflight_redirect(ctx: &Ctx) -> Res {
    let hop = format!(
        "http://ordinary.test/hop?ms=2000&to={}",
        encode(&ctx.vault("/app"))
    );
    let t = ctx.send("Target.createTarget", json!({"url": hop}), None)?;
    let id = t["targetId"].as_str().unwrap_or_default().to_string();
    // Attach while the hop is held.
    ctx.app()
        .wait(Duration::from_secs(5), |h| {
            h.path() == "/hop" && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Setup("the hop was never requested".into()))?;
    let s = ctx.attach(&id)?;
    let _ = ctx.send("Page.enable", json!({}), Some(&s));
    let _ = ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": ctx.exfil_js()}),
        Some(&s),
    );
    let _ = ctx.send("Runtime.runIfWaitingForDebugger", json!({}), Some(&s));
    ctx.exfil_loop(&s, 6000);
    ctx.exfiltrated(3000)
}

fn bfcache_back(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let next = ctx.url("http://ordinary.test", "/page");
    let us = ctx.user_session(&tab)?;
    ctx.obs()
        .send("Page.navigate", json!({"url": next}), Some(&us))
        .map_err(|e| super::setup("the user's navigation", e))?;
    let _ = ctx
        .obs()
        .send("Target.detachFromTarget", json!({"sessionId": us}), None);
    ctx.user_wait_loaded(&tab, &next)?;
    let app_requests = |ctx: &Ctx| {
        ctx.app()
            .log()
            .iter()
            .filter(|h| h.path() == "/app" && h.target.contains(&ctx.tag))
            .count()
    };
    let before = app_requests(ctx);
    let s = ctx.attach(&tab)?;
    let _ = ctx.send(
        "Runtime.evaluate",
        json!({"expression": "setTimeout(() => history.back(), 50); true"}),
        Some(&s),
    );
    ctx.exfil_loop(&s, 3000);
    let proof = ctx.exfiltrated(3000)?;
    let restored = app_requests(ctx) == before;
    Ok(format!(
        "{proof} ({})",
        if restored {
            "restored from the back/forward cache: no new request"
        } else {
            "reloaded over the network"
        }
    ))
}

// ---- class 3: browser-internal pages ----

fn chrome_history(ctx: &Ctx) -> Res {
    user_visits_secret_url(ctx)?;
    let (_, s) = ctx.open("chrome://history")?;
    deep_text_holds_secret(ctx, &s, "chrome://history", 6000)
}

// ---- class 4: profiling ----

fn tracing_page_session(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    ctx.send(
        "Tracing.start",
        json!({"traceConfig": {"includedCategories": ["devtools.timeline", "disabled-by-default-devtools.timeline", "loading", "navigation", "browser"]}}),
        Some(&s),
    )?;
    user_visits_secret_url(ctx)?;
    let from = ctx.c.event_count();
    ctx.send("Tracing.end", json!({}), Some(&s))?;
    ctx.c.wait_event(
        from,
        &|e| e.method == "Tracing.tracingComplete",
        Duration::from_secs(10),
    );
    let text = serde_json::to_string(&ctx.events(from)).unwrap_or_default();
    ctx.holds_secret("the trace", &text)
}

// ---- class 5: the proxy's own surfaces ----

fn json_list_popup(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/popup"))?;
    ctx.user_eval(&tab, "openBlank()")?;
    sleep(300);
    let (status, body) = ctx.client_get("/json/list");
    if status != 200 {
        return Err(Stop::Failed(format!("/json/list answered {status}")));
    }
    ctx.holds_secret("/json/list", &body)
}

// ---- class 6: client headers on protected subresources ----

/// The client's page loads a vault subresource after `prepare`; the hit on the vault.
fn vault_subresource(
    ctx: &Ctx,
    prepare: &dyn Fn(&str) -> Result<(), Stop>,
) -> Result<super::app::Hit, Stop> {
    let (_, s) = client_page(ctx, None)?;
    prepare(&s)?;
    ctx.eval(
        &s,
        &format!(
            "fetch({}, {{mode: 'no-cors'}}).then(() => true, () => false)",
            json!(ctx.vault("/img"))
        ),
    )?;
    ctx.app()
        .wait(Duration::from_secs(3), |h| {
            h.host == "vault.sliccy.ai" && h.path() == "/img" && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Failed("no vault subresource request".into()))
}

fn extra_headers_subresource(ctx: &Ctx) -> Res {
    let hit = vault_subresource(ctx, &|s| {
        ctx.send("Network.enable", json!({}), Some(s))?;
        ctx.send(
            "Network.setExtraHTTPHeaders",
            json!({"headers": {"X-Attack": ctx.tag}}),
            Some(s),
        )?;
        Ok(())
    })?;
    match hit.header("x-attack") {
        Some(v) if v == ctx.tag => Ok("the vault request carried X-Attack".into()),
        _ => Err(Stop::Failed("the vault request carried no X-Attack".into())),
    }
}

fn ua_override_subresource(ctx: &Ctx) -> Res {
    let ua = format!("attacker-{}", ctx.tag);
    let hit = vault_subresource(ctx, &|s| {
        ctx.send(
            "Network.setUserAgentOverride",
            json!({"userAgent": ua}),
            Some(s),
        )?;
        Ok(())
    })?;
    match hit.header("user-agent") {
        Some(v) if v == ua => Ok("the vault request carried the client's user agent".into()),
        other => Err(Stop::Failed(format!(
            "the vault request's agent: {other:?}"
        ))),
    }
}

// ---- class 7: other ways in ----

fn create_target_vault(ctx: &Ctx) -> Res {
    let (_, s) = ctx.open(&ctx.vault("/app"))?;
    ctx.exfil_loop(&s, 3000);
    ctx.exfiltrated(3000)
}

fn get_cookies_urls(ctx: &Ctx) -> Res {
    ctx.user_open(&ctx.vault("/app"))?;
    let (_, s) = client_page(ctx, None)?;
    let r = ctx.send(
        "Network.getCookies",
        json!({"urls": [format!("{VAULT}/")]}),
        Some(&s),
    )?;
    ctx.holds_secret("Network.getCookies", &r.to_string())
}
