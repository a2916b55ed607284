//! A CDP guard as a state machine (feature `guard`): it sees every message between a CDP
//! client and the browser and says what to do with each, so that browser control never reaches
//! a protected origin ([`crate::protected`]) while everything else keeps working.
//!
//! [`Policy`] does no I/O, starts no thread and reads no clock: the caller feeds it each frame
//! (text) with the time in milliseconds, and sends on what comes back in [`Output`]. It builds
//! for `wasm32-wasip1`. Every judgement about a URL, a cookie domain or a storage key goes
//! through [`Matcher`]: URLs through [`Matcher::cookie_url`] ([`Matcher::url`], with `ws:` and
//! `wss:` read as `http:` and `https:`, since a WebSocket or a cookie command on seven reaches
//! seven's cookies). A guard should pass a [`Matcher::strict`] matcher, as the proxy does: its
//! readings without Chromium evidence only ever add protection.
//!
//! ```
//! use slicc_browsers::guard::policy::{Policy, Verdict};
//! use slicc_browsers::protected::Matcher;
//!
//! let matcher = Matcher::new(&slicc_browsers::shared_catalog().protected_origins, &[] as &[&str]).unwrap();
//! let mut policy = Policy::new(matcher);
//!
//! // The policy opens with its own target discovery (ids in a reserved range)...
//! let start = policy.start(0);
//! assert!(start.to_browser[0].contains("Target.setDiscoverTargets"));
//! // ...and is ready once the browser has answered it.
//! let id = slicc_browsers::guard::policy::RESERVED_IDS.start();
//! policy.from_browser(r#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"T1","type":"page","title":"","url":"https://example.test/","attached":false,"canAccessOpener":false}}}"#, 1);
//! let ready = policy.from_browser(&format!(r#"{{"id":{id},"result":{{}}}}"#), 2);
//! assert_eq!(ready.verdict, Verdict::Own);
//!
//! // A navigation to seven is refused with the catalog's refusal...
//! let out = policy.from_client(r#"{"id":1,"method":"Target.createTarget","params":{"url":"https://seven.sliccy.ai/"}}"#, 3);
//! assert_eq!(out.verdict, Verdict::Refuse);
//! assert!(out.to_browser.is_empty());
//! assert!(out.to_client[0].contains("slicc: refused: target is on seven's origin"));
//!
//! // ...and an ordinary one goes through unchanged.
//! let out = policy.from_client(r#"{"id":2,"method":"Target.createTarget","params":{"url":"https://example.test/"}}"#, 4);
//! assert_eq!(out.verdict, Verdict::Forward);
//! assert_eq!(out.to_browser.len(), 1);
//! ```
//!
//! # How it keeps a client off the protected origins
//!
//! - **Default deny.** The policy forwards only what its table classifies ([`table`]: every
//!   command of Chromium 156's protocol, forwarded, judged, answered or refused, each
//!   parameter with its judge). A command the table lacks is refused as unclassified; a
//!   refused one says why (browser-wide resets and settings that reach the protected
//!   origins' state without naming them: permissions, the HTTP cache, service workers,
//!   extensions); every parameter naming an origin in any role (a permission's embedded
//!   origin, a cookie's partition site) is judged; and a parameter the table does not list is
//!   judged as if it named an origin.
//! - **Targets.** The policy runs its own `Target.setDiscoverTargets` (every type) and judges
//!   each target by the spec's *Targets* rule with [`Matcher::target`]: its URL, whether it was
//!   protected before (an inheriting URL keeps a protected origin), its opener (`openerId`,
//!   else `openerFrameId`; an opener it never saw counts as protected), and the real origin a
//!   session shows (`Page.frameNavigated` main-frame `securityOrigin`, the default
//!   `Runtime.executionContextCreated` origin) until a URL with an origin of its own replaces
//!   it. A page whose URL inherits its origin (`about:blank`, `about:srcdoc`) does not show
//!   it in its frame tree (`securityOrigin` is `://` there, measured on Chromium 156): every
//!   such frame of a new session is asked its storage key (`Storage.getStorageKeyForFrame`,
//!   answered by the browser; an opaque origin has none) before the client sees the session,
//!   and a protected one fails the checks (a vault page's popup whose opener has gone on to
//!   an ordinary page reads the vault's cookies and storage). Such a page (or its tab) listed
//!   at the first discovery with an opener that is ordinary by then is protected: the opener
//!   may have been protected when it made the document, and its title is the document's.
//!   A protected target is dropped from `Target.getTargets`, `targetCreated`,
//!   `targetInfoChanged`, `targetDestroyed`, `attachedToTarget` and `getTargetInfo`; commands
//!   naming it (`attachToTarget`, `activateTarget`, `closeTarget`, `getTargetInfo`, ... any
//!   `targetId`) are refused, as are commands naming a target it does not know. Closing what
//!   holds a protected tab without naming it is refused too: `Target.disposeBrowserContext`
//!   of a context with a protected page or tab in it, and `Browser.close` and `Browser.crash`
//!   while one is open anywhere.
//! - **Sessions.** Every session the client gets to a document target (attached, or
//!   auto-attached, where the policy makes the target wait for it) first gets the policy's own
//!   `Fetch.enable` for document requests and a `Page.getFrameTree` check; only then does the
//!   client see it. A document request to a protected URL on such a session (a link, a script,
//!   a redirect hop, an iframe) is failed with `BlockedByClient` before it is sent, so no
//!   protected document ever commits under the client's instrumentation (init scripts,
//!   bindings, CSP bypass, header, agent, locale, timezone, network overrides). A session whose
//!   target turns protected anyway is detached, and nothing of it reaches the client again.
//! - **Frames in other processes.** The checks of every document session include the
//!   policy's own `Target.setAutoAttach` (flat, every child waiting), kept on whatever the
//!   client sets there: each out-of-process frame of a client's page gets a session of the
//!   policy's with the same interception and checks, so a protected document cannot commit
//!   in it either. A child the client's own auto-attach does not ask for stays the policy's
//!   (nothing of it reaches the client); one it asks for later is announced then. A frame
//!   found on a protected origin (already there at attach, or committed without a request)
//!   is detached and marks every page holding it: on those pages, captures
//!   (`Page.captureScreenshot`, `captureSnapshot`, `startScreencast`, `printToPDF`,
//!   `LayerTree` snapshots), `Input.*` (keys, mouse, touch, text, IME, drag and drop, editing
//!   commands) and commands naming any frame but the main one are refused, and a protected
//!   frame's id is refused on every session. A capture sent before its page was marked and
//!   answered after is refused on its answer: the events that mark a page come before any
//!   answer showing what marked it, however late the policy reads them.
//! - **Requests.** `Fetch.requestPaused` and `Fetch.authRequired` for protected URLs are
//!   withheld and answered by the policy (continue, default auth); the client may answer only
//!   request ids it was shown (no guessed ids). `Network` events of protected requests are
//!   withheld, and protected cookies are taken out of `*ExtraInfo` events and headers. A
//!   `Network` or `Audits` command may name only a request id shown as ordinary, and its answer
//!   is refused when a redirect took the request to a protected origin before the browser
//!   answered (a body read racing the redirect: the suite's `c7.response-body-race`).
//! - **Cookies and storage.** Commands naming a protected URL, origin, storage key or cookie
//!   domain are refused (`Network.getCookies`, `setCookie(s)`, `deleteCookies`,
//!   `Storage.*`, `DOMStorage.*`, `IndexedDB.*`, `CacheStorage.*`, `clearDataFor*`,
//!   `getUsageAndQuota`, `Browser.setPermission`, ...); browser-wide wipes
//!   (`Network.clearBrowserCookies`, and `Storage.clearCookies` of the user's default context)
//!   are refused outright (`Storage.clearCookies` of a context the client created is done by
//!   the policy without the protected cookies); a `Network.getCookies` naming protected and
//!   ordinary URLs is answered for the ordinary ones; protected
//!   cookies and storage are filtered out of every result.
//! - **Error frames.** A frame whose load was blocked shows an error page
//!   (`chrome-error://chromewebdata/`); it stays in the frame trees the client reads
//!   (`Page.getFrameTree`, `Page.getResourceTree`), with only a protected or internal
//!   `unreachableUrl` taken out, so a client sees that a frame was blocked, not where it went.
//! - **Browser-internal pages** ([`internal_url`]: `chrome:`, `chrome-untrusted:`,
//!   `chrome-extension:`, `devtools:`, `about:` pages other than `about:blank`/`about:srcdoc`,
//!   the other Chromium browsers' `edge:`, `brave:`, `opera:`, `vivaldi:`, and `view-source:`
//!   of any of them) count as protected: refused as new targets and navigations (any command
//!   naming one), hidden from listings, refused as attaches, and a commit on one (a frame
//!   tree, `Page.frameNavigated`, a default execution context) costs the session. Their own
//!   script shows and changes every site's data (history with full URLs, permissions, site
//!   data, service workers), protected origins included. Local files (`file:`) count with
//!   them: a `file:` document is the browser reading its own disk, where the profile keeps
//!   every site's storage (a protected page's local storage reads in the clear from its
//!   `Local Storage` log), cookies and history. So does the browser's own DevTools endpoint
//!   ([`Config::devtools_endpoints`]; `guard proxy` sets its upstream): any URL on its port
//!   whose host reaches it (a loopback or unspecified address, `localhost` and the names
//!   under it, the endpoint's own host). Chromium serves it to any page and trusts the
//!   WebSocket of a page on its own origin (`http://127.0.0.1:<port>`, measured on Chromium
//!   156), so a client's tab there would read `/json/version` and drive the browser from the
//!   page's script with no guard in between (the suite's `c7.devtools-endpoint-*`); on
//!   another name of it a page reads every tab's URL and title from `/json/list`.
//! - **Local files by path.** The profile keeps every site's storage, cookies and history in
//!   files a page reads in the clear once it is handed them (a protected page's local storage
//!   from its `Local Storage` log). Given the profile's folder ([`Config::protected_paths`]:
//!   `guard proxy --protect-path`, and the browser's user-data dir when the CLI's discovery
//!   finds it), the policy refuses a file input, a drop or an installed app's file launch
//!   (`DOM.setFileInputFiles`, `Input.dispatchDragEvent` `data.files`,
//!   `PWA.launchFilesInApp`) naming a file in it, the folder itself or a folder above it (a
//!   dropped folder is walked by the page), or a path it cannot place (relative, through
//!   `/proc` or `/dev/fd`: another process's descriptors and root); a download folder in it
//!   (`Browser.setDownloadBehavior`, `Page.setDownloadBehavior`); and any other absolute path
//!   or `file:` URL in it in any command. Paths are compared lexically (`.`, `..` and repeated
//!   separators taken out), case-insensitively (a superset on a case-sensitive file system),
//!   and, with the caller's [`LocalPaths`] (the proxy's reads its own file system), with
//!   symbolic links resolved as the kernel follows them and by device and inode (a bind mount
//!   of the folder, a case or Unicode spelling the file system folds). These are every
//!   parameter Chromium 156's protocol names as a path or a file
//!   (`Extensions.loadUnpacked` is refused outright).
//! - **Downloads.** A download runs with the user's cookies from any frame of the browser (a
//!   popup of the client's page the client never attaches included) and lands in the folder
//!   the client chose (`Browser.setDownloadBehavior`), where the client's pages read it back
//!   (a file input, a dropped folder; the suite's `c7.download-*`). Every
//!   `Browser.setDownloadBehavior` goes with `eventsEnabled` on (the client is shown download
//!   events only when its last call asked for them); a `Browser.downloadWillBegin` of a
//!   protected or internal URL, or from a frame that is not a target the client may see (a
//!   protected page, a frame the policy cannot place: one in its page's own process), is
//!   cancelled (`Browser.cancelDownload`) and withheld with its progress. The cancel races the
//!   download (a small file behind a redirect is written first, measured on Chromium 156), so
//!   the folders the client chooses for downloads (and the file the browser reports it wrote
//!   for a cancelled one) and the paths it hands its pages (file inputs, drops, app launches)
//!   never overlap, whichever comes first (a dropped folder is read when the page walks it, and
//!   a file input may name a file before it is written). `Page.setDownloadBehavior` to a folder (which asks for no browser-wide events)
//!   is refused until a `Browser.setDownloadBehavior` has the policy watching downloads.
//! - **The clipboard.** One clipboard serves the whole browser (every browser context: a
//!   copy in one is read in a context made after it, measured on Chromium 156) and holds what
//!   the user copied, on protected pages too. A paste the client drives
//!   (`Input.dispatchKeyEvent` with a paste or yank editing command, Ctrl or Meta+V,
//!   Shift+Insert, the Paste key) and a clipboard read permission it grants
//!   (`Browser.grantPermissions` `clipboardReadWrite`, `Browser.setPermission` `clipboard-read`
//!   or `clipboard-write` without sanitization, which Chromium grants as read and write) are
//!   refused, in every context and for every origin; copying and writing the clipboard are not.
//!   Measured not to read it: `execCommand('paste')` from the page, a middle click,
//!   `Input.insertText`.
//! - **Renderer-wide overrides.** Blink applies a time zone, a locale, a virtual clock, a
//!   network state and CPU throttling (`Emulation.setTimezoneOverride`, `setLocaleOverride`,
//!   `setVirtualTimePolicy`, `setCPUThrottlingRate`, `Network.emulateNetworkConditions`,
//!   `emulateNetworkConditionsByRule`, `overrideNetworkState`) to its whole renderer process,
//!   so to a protected same-site page in it (a popup of the client's page). They are refused
//!   on a page [`Matcher::shares_site`] puts beside a protected origin, and a session that
//!   set one has its document requests to such a site failed (the override would follow it
//!   into that site's renderer). A client that emulates a time zone cannot load pages
//!   same-site with an extra origin (`localhost` pages, when one is on `localhost`).
//! - **Profiling.** `Tracing.start` and `Tracing.requestMemoryDump` are refused on every
//!   session (a page session's trace still carries the browser process's events for every
//!   tab); heap snapshots, heap sampling and object tracking (`HeapProfiler.*`, `Memory.*`
//!   sampling), CPU profiles and script coverage (`Profiler.start`, `*Coverage`) are refused:
//!   they cover the whole renderer process (one V8 isolate), which a protected same-site page
//!   may share.
//! - **Navigations under way and back/forward-cache restores.** A navigation that began
//!   before a session existed has a loader the interception does not see, and Chromium
//!   carries the session (the client's init scripts, bindings and overrides) into whatever
//!   it commits. While a main-frame navigation is under way, Chromium holds a session's
//!   renderer-bound commands (`Page.getFrameTree` among them) until the new document
//!   commits, and answers them there (measured on Chromium 156, same-origin, same-site and
//!   cross-site alike): the checks of a session made during such a navigation judge the
//!   document it commits, not the one it leaves. A tab made with a URL whose first
//!   navigation is under way is the exception: it answers from its initial empty document
//!   at once (a main frame with an empty URL), so the checks of such a session wait for the
//!   first document (each `Target.targetInfoChanged` asks for the frame tree again; the
//!   hold's deadline fails it closed), and the client's attach is answered only then: a
//!   refusal when it is protected. The same holds for such a tab met by the client's
//!   auto-attach with `waitForDebuggerOnStart`: Chromium does not hold it for the debugger
//!   (its first request, redirects and commit go on, and its session's commands are
//!   answered, before `Runtime.runIfWaitingForDebugger`; measured on Chromium 156), so
//!   `attachedToTarget` reaches the client only once its first document is ordinary. A popup
//!   (announced with an empty URL) waits for the debugger before it navigates, and is
//!   announced as soon as the interception is on. A popup whose first document is protected
//!   loads for the user: its request goes on without the client's headers
//!   (`Fetch.continueRequest` with `interceptResponse`), and at its response, before anything
//!   commits, every session on the popup is detached (the client's init scripts, bindings,
//!   CSP bypass and overrides go with its session) and the popup is protected from then on;
//!   the browser then lets the response commit. Every document session has the policy's own `Network`
//!   domain too: a document request it saw start was intercepted from its start; a
//!   protected redirect hop or response of one it never saw start cuts the session at once,
//!   and the target with it. A history navigation
//!   (`history.back()` from the page's own script included) restores a page from the
//!   back/forward cache with no request at all, so a tab whose back/forward list holds a
//!   protected or internal page is not given to the client: every new page session's
//!   history is read first (the policy's own `Page.getNavigationHistory`, answered by the
//!   browser before its `Fetch.enable`), and such an entry fails the session's checks (or
//!   cuts it, if it was released already).
//! - **Prefetched documents.** A page's speculation rules may prefetch a protected document
//!   (`Fetch` pauses no prefetch), and a navigation the page then makes is served from the
//!   prefetch with no request to pause either, so it would commit under the client's
//!   instrumentation (measured on Chromium 156; a cross-site prefetch is made while the
//!   profile has no cookie for the site, a same-site one with them). Every new page session
//!   gets the policy's own `Preload.enable` (before its checks are answered: the prefetches
//!   the page holds are reported at once), and the policy's `Network` sees later prefetch
//!   requests, redirect hops included: a protected prefetch or prerender gives the page's
//!   target up for the rest of its life (hidden, refused, every session cut). A page that
//!   holds any live prefetch while a session's checks run fails them (the report names the
//!   prefetched URL, not a redirect it followed; the suite's `c2.prefetch-hop-before-attach`). A protected document response on a
//!   session whose interception never paused it (served from such a prefetch) cuts the
//!   session too. `Preload` events reach the client only once it enabled the domain.
//! - **Client request headers on protected requests.** Once a client sets request headers
//!   on a session (`Network.setExtraHTTPHeaders`, `Network.setUserAgentOverride`,
//!   `Emulation.setUserAgentOverride`; on a page or on a worker), the policy's interception
//!   there (and on the page that attached a worker) takes every request, and a protected one
//!   is continued without the client's values: the header names it set (a `Cookie` among
//!   them), and `User-Agent`, `Accept-Language` and `Sec-CH-UA*` when overridden. Chromium's
//!   network stack then puts its own user agent, language and cookies on it (measured on
//!   Chromium 156).
//! - **Service workers.** Every document session gets the policy's own `Network.enable` (no
//!   bodies kept) and `Network.setBypassServiceWorker`, before the client sees it: a navigation
//!   a protected origin's worker would answer reaches the network and the interception. The
//!   client cannot turn the bypass off; its `Network.disable` is answered by the policy, and
//!   `Network` events reach it only while it has the domain enabled.
//! - **Scripts and style sheets from protected origins in a client's page.** A page may run a
//!   protected script or apply a protected style sheet, whose text and private state the web
//!   keeps from the page. `Debugger.scriptParsed` (by `url`, `embedderName`, `sourceMapURL`,
//!   or a stack naming such a script) and `CSS.styleSheetAdded` of a protected or internal URL
//!   are withheld; `Debugger` and `CSS` commands may name only script and style sheet ids the
//!   client was shown as ordinary (no guessed ids); a `Debugger.paused` with any frame in
//!   another script is withheld and resumed by the policy; `[[Scopes]]` (a closure) leaves
//!   `Runtime.getProperties` results unless the function's script was shown as ordinary;
//!   `Runtime.queryObjects` (the page's whole heap) is refused; and a command may name only
//!   object ids the client was shown on that session (V8 numbers them in order, and a
//!   protected function's closure gets one whether shown or not).
//! - **Protected images in an ordinary page, and ordinary URLs that redirect to protected
//!   ones.** A page may show an image or a video from a protected origin, which the browser
//!   loads with the user's cookies (same-site ones from a page beside an extra origin,
//!   `SameSite=None` ones from any site); the web keeps its pixels from the page, a capture does
//!   not. The interception of every document session takes image, media and `Other` requests
//!   (`<object>` and `<embed>` of an image) too, those whose URL may be off limits (a protected
//!   host's text in it, or a browser-internal scheme: a page's ordinary images never wait for the
//!   guard); a protected one goes on (the guard vectors' liveness: ordinary pages'
//!   subresources are left alone) and marks its page before it is sent, every redirect hop
//!   included; such a page, a page that already shows one when a session is made (the
//!   policy's own `Page.getResourceTree`, answered before the session's checks), or shows one no
//!   request paused, refuses captures (`Page.captureScreenshot`, `captureSnapshot`,
//!   `startScreencast`, `printToPDF`, `LayerTree` snapshots) for the rest of its life (a
//!   capture answered after the page was marked included), and its screencast frames are
//!   withheld. A script or resource a page loads through an ordinary
//!   redirect is named by the redirect's ordinary URL (`Debugger.scriptParsed`, the resource
//!   tree; measured on Chromium 156), so a script with an `http(s)` URL is shown, and
//!   `Page.getResourceContent` and `Page.searchInResource` may name a URL, only when the
//!   session's own `Network` domain saw a load begin there and end on an ordinary origin (or
//!   it is a frame's document or the target's URL): a script the page ran before the session
//!   is withheld too. `Network.loadNetworkResource` (a load with the page's credentials that
//!   follows any redirect) is refused. A protected style sheet's rules (which match the page's
//!   elements like ordinary ones, and which the web keeps from the page) leave `CSS` results
//!   (`CSS.getMatchedStylesForNode`: rules, styles and keyframes of sheets reported as
//!   protected), and `Page.captureSnapshot` loses the MHTML parts from protected URLs and the
//!   style sheet parts under a URL not seen to load and end on an ordinary origin (a sheet
//!   loaded before the session among them). A page may also put a response it cannot read (a `no-cors`
//!   fetch of a protected URL) into its own Cache Storage under a key of its own:
//!   `CacheStorage.requestCachedResponse`, whose answer does not say a body is opaque, is
//!   refused (listing caches and entries is not).
//! - **Sessions nobody has.** A command naming a session the policy does not know is
//!   answered with Chromium's own error (`-32001`, `Session with given id not found.`).
//!
//! Refusals are CDP errors (code `-32000`) carrying [`Matcher::refusal`]; where the reason is
//! not the protected origin itself, it follows in brackets.
//!
//! # What it remembers, and its bounds
//!
//! Everything a policy keeps for its connection is bounded ([`Policy::footprint`] counts it),
//! whatever the client sends:
//!
//! - **Client commands in flight**: at most [`Config::max_pending`] (65,536); one more is
//!   answered `slicc: guard: too many commands in flight`. A command Chromium would answer
//!   without its id (an id outside 32 bits, a member named twice) is answered by the policy
//!   and never counted. A duplicate id on a session is refused.
//! - **Commands before the discovery is answered**: at most [`Config::max_queue`] (4,096)
//!   and [`Config::max_held_bytes`] (256 MiB); more are answered
//!   `slicc: guard: too many commands while starting`.
//! - **Frames for the client waiting behind a session's checks** (Chromium's order kept, see
//!   `order.rs`): at most [`Config::max_pending`] frames and [`Config::max_held_bytes`]
//!   bytes; past either, the oldest checks fail closed (the session detached, an attach the
//!   client asked for refused with the refusal and `(too much for the client waited behind
//!   this session's checks)`) until what is left is within both. Checks also fail closed
//!   after [`Config::hold_ms`].
//! - **What judging one message costs**: a parsed JSON value takes about 80 bytes however
//!   short its text, so a message of many small values grows some 40 times when parsed (a
//!   60 MB answer of 30 million zeros took a proxy to 2.2 GB). A message of 1 MiB or more is
//!   parsed only when it holds at most [`Config::max_values`] (8,000,000, about 0.6 GiB
//!   parsed) values, counted first without allocating; over it, a client's message is
//!   answered `slicc: guard: the message holds too many JSON values to judge (N; limit M)`,
//!   a browser's answer becomes that error for its command (for the policy's own check: the
//!   check fails closed), a browser's event is dropped.
//! - **Per session** (request, script, style sheet, history entry and paused request ids):
//!   [`Config::per_session`] (8,192) each, object ids 8 times that, the oldest forgotten
//!   (forgotten ids are refused: the safe side). So are the URLs a session saw load
//!   (loads.rs); once one that ended on a protected origin is forgotten, no URL is read as
//!   seen-ordinary on that session any more (only the target's own URL).
//! - **Sessions made from sessions**: a client's `Target.attachToTarget` or
//!   `attachToBrowserTarget` on a session 64 deep is refused (`slicc: guard: sessions nest at
//!   most 64 deep`): Chromium 156 crashes when the outermost of 30,000 nested browser
//!   sessions is detached (measured straight), which would close the user's protected tabs.
//!   Forgetting a session forgets what it attached with a work list, not recursion, however
//!   deep the browser nests them.
//! - **Targets and sessions** as long as the browser has them: forgotten when it reports them
//!   destroyed or detached (a destroyed target's protection kept for [`Config::gone`], 4,096,
//!   for openers); out-of-process frames and the pages hosting them likewise.
//!
//! # Limits
//!
//! What the policy cannot rule out from where it stands, each with why:
//!
//! - **Documents committing with no request to pause, where the policy can only react.**
//!   Cutting a session on a protected hop or response of a navigation it never saw start,
//!   or on a protected prefetch (above), sends `Target.detachFromTarget` when the policy
//!   reads the event, and nothing orders that detach before the commit. The policy reads
//!   the browser's messages in order, so a page that makes a flood of requests (each with a
//!   long URL: `Network` events of the policy's own domain, which it parses and withholds)
//!   puts seconds of them ahead of the one it must act on, and the document commits under
//!   the client's instrumentation first (its init scripts run there, its commands reach
//!   it). For a tab's main frame the cut is a second line only: the checks above judge the
//!   document a navigation under way commits, and every later navigation is intercepted.
//!   It is the only line for two kinds of document, each a race the client can win:
//!   - *A frame's navigation under way when the session is made* (a frame other than the
//!     main one: Chromium holds a session's commands only while its own frame navigates, so
//!     the checks are answered at once). When it commits in the page's own process (the
//!     page is same-site with the protected origin: an extra origin's site, every
//!     `localhost` port when one is on `localhost`), it runs the client's init scripts: the
//!     suite's `c2.inflight-same-site-frame` gets through with no flood at all (the protected
//!     server answered at once; measured on Chromium 156), and through an ordinary redirect
//!     the policy reads 2.5 s before the commit it gets through when the client's own page
//!     in another tab floods, and is stopped when it does not
//!     (`c2.inflight-same-site-frame-hop-flood`). One that commits in a process of its own is
//!     a target of its own, which the client's page session does not reach.
//!   - *A document served from a prefetch the page made after the session* (speculation
//!     rules): the target is given up when the prefetch is reported (its request, its
//!     `Preload` status), which comes before the page can navigate there unless the page
//!     floods first (the suite's `c2.prefetch-navigation-flood`; `c2.prefetch-same-site-flood`
//!     from a page same-site with the protected origin, whose prefetch carries the user's
//!     cookies).
//!
//!   Chromium offers nothing that holds either: `Fetch` does not pause a prefetch or a
//!   navigation served from one, nor a navigation whose request began before `Fetch.enable`;
//!   `Network.setBlockedURLs` does not stop a navigation served from a prefetch and
//!   `Emulation.setDataSaverOverride` does not make a prefetch ineligible (measured on
//!   Chromium 156); no command lists the navigations under way in a page's frames; nothing
//!   ties the client's init scripts or commands to the document the policy judged; and
//!   `--isolate-origins` keeps an origin's subdomains (and all of a host's ports) in its
//!   process (measured: the same-site frame still committed in the page's process). Closing
//!   the first would mean refusing sessions to every page same-site with a protected origin
//!   (every `localhost` page), the second refusing every init script or every page that may
//!   prefetch; the policy does neither. The protected apps can close both themselves
//!   (measured on Chromium 156): one that refuses to be framed by other origins
//!   (`X-Frame-Options: SAMEORIGIN`, or `Content-Security-Policy: frame-ancestors 'self'`)
//!   never commits in such a frame (the frame gets an error page with an opaque origin), and
//!   one that answers a request carrying `Sec-Purpose: prefetch` with an error status is
//!   never prefetched (the navigation then goes to the network, where it is paused).
//! - **Client request headers on WebSocket handshakes.** A WebSocket handshake is not a
//!   request `Fetch` can pause, so the headers a client set with `Network.setExtraHTTPHeaders`
//!   (and its user-agent overrides) reach a protected server's WebSocket handshake from an
//!   ordinary page (shown by the suite's `c6.extra-headers-websocket`). Closing it means not
//!   forwarding the client's headers at all and adding them itself to each ordinary request it
//!   pauses (which takes them off ordinary WebSocket handshakes too); not done yet.
//! - `Fetch.requestPaused` carries a request's `Cookie` header without cookie domains: a
//!   protected cookie sent to an ordinary origin (a parent-domain cookie shared with an extra
//!   origin) is not taken out there (it is out of `Network` `*ExtraInfo` events).
//! - **Cookies do not keep to a port.** An extra origin is one scheme, host and port (the
//!   spec's rule), but its cookies are the host's: a page on another port of the same host
//!   reads its cookies that are not `HttpOnly` (`document.cookie`) and sends all of them to
//!   its own server (measured on Chromium 156: `localhost:18782` read `localhost:18781`'s;
//!   the suite's `c7.cookie-other-port`). When an extra origin is on `localhost`, that is any
//!   local server the client opens, the proxy's own `/json/version` page among them. Refusing
//!   every page of the host would refuse the local servers a client is there to drive (and
//!   the guard vectors' ordinary pages where an origin map puts them beside the extra origin);
//!   not done. A protected app closes it itself with `HttpOnly` cookies and a `__Host-`
//!   prefix where it is served over `https`, or a host of its own.
//! - **A protected script is the guest of the page that runs it.** What the page's own
//!   script reaches of it (the page's globals it calls, the functions and values it hands
//!   the page, listener functions' own text through `Function.prototype.toString`, styles a
//!   protected style sheet computes for the page's elements) is page data, and the client
//!   reaches it too, as any page script could. Its text, its closures and its private
//!   objects are not (above). A protected style an ordinary page renders is in that page's
//!   captures, as it is on the user's screen.
//! - **Protected images a page loaded before the session, by another name.** A page the
//!   client attaches to after it loaded may show a protected image it fetched through an
//!   ordinary redirect (its resource tree names the redirect's URL; measured on Chromium 156: a
//!   screenshot then reads it through the policy), and likely one its own service worker
//!   answered an ordinary URL with (not measured); nothing the policy can ask tells these apart
//!   from ordinary images, and refusing captures of every page loaded before the client would
//!   refuse screenshots of the user's tabs. Images such a page loads after the session are
//!   intercepted (above), and its service worker is bypassed then (an ordinary page's worker
//!   answering an image URL with a `no-cors` fetch of a protected one, after the session: the
//!   suite's `c7.image-sw-opaque`, stopped).
//! - Protected URLs inside ordinary content (`Referer`/`Location` headers, initiator stacks,
//!   DOM, Runtime values) are page data and are not rewritten.
//! - **Local files by path, beyond the protected paths.** The policy does not know where the
//!   browser's profile is: with no [`Config::protected_paths`] (the default; slicc-cdp and
//!   slicc-cli pass the user-data dir discovery found, `guard proxy` finds it itself on its
//!   machine), the profile's files reach a client's page through a file input or a drop (as
//!   the suite's `c7.file-input-profile` does straight to the browser). Refusing every upload
//!   would break ordinary automation. With them: without a [`LocalPaths`] a symbolic
//!   link into a protected path is not seen; a link made after the check, a hard link to a
//!   profile's file outside the profile (another name of the file, with no protected folder
//!   above it: like a copy of the profile elsewhere, a backup's), or a
//!   profile on another machine than the resolver's, is not either; on a platform without
//!   file identities (Windows) only the canonical path is compared, and other files of the
//!   user (documents, keys) are as readable as they are to the browser. On Linux with the
//!   default profile the disk cache is in `~/.cache/<browser>` (protect it too; the CLI does);
//!   a browser started with `--disk-cache-dir` elsewhere keeps it there (pass that folder).
//! - **Downloads before the client chooses.** Download events come only to a connection that
//!   set a download behaviour: before the client's first `Browser.setDownloadBehavior` (or
//!   under another connection's), a protected download a popup of the client's page starts goes
//!   where the browser puts it (the user's download folder; headless Chromium 156 writes to
//!   `~/Downloads`), which is among the user's other files above. The policy does not set a
//!   behaviour of its own at the start: it would override another connection's. Downloads from
//!   a frame in its page's own process are cancelled (the policy does not know which page
//!   holds such a frame), an ordinary download among them.
//! - **The clipboard, by the user's own grants.** An origin the user granted the clipboard
//!   read permission to (in the profile, before the client) reads the clipboard from a focused
//!   page the client opens there (`navigator.clipboard.readText()`); the policy refuses only
//!   the grants and pastes the client makes. A client cannot paste at all through the policy,
//!   its own copies included (`Input.insertText` types text).

mod browser;
pub(crate) mod budget;
mod client;
mod clipboard;
mod commits;
mod compat;
mod cookies;
mod deny;
mod downloads;
mod endpoints;
mod fetch;
mod footprint;
mod holds;
mod loads;
mod order;
mod overrides;
mod paths;
mod pattern;
mod scripts;
mod scrub;
mod sessions;
mod state;
pub mod table;
mod targets;

use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::RangeInclusive;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::protected::Matcher;
pub use footprint::Footprint;
pub use paths::{LocalPaths, Resolved};
pub use scrub::{internal_url, INTERNAL_SCHEMES};
use state::{Hold, Own, Pending, SessionRecord, TargetRecord};

/// The command ids the policy uses for its own commands. Chromium reads ids as 32-bit
/// integers; a client command with an id in this range is refused.
pub const RESERVED_IDS: RangeInclusive<i64> = 2_000_000_000..=2_147_483_647;

/// The part of [`RESERVED_IDS`] the policy's own `Target.setAutoAttach` commands take, counted
/// down from the top.
const AUTO_IDS: RangeInclusive<i64> = 2_147_000_000..=2_147_483_647;

/// The key of the root session: the browser connection itself, whose messages carry no
/// `sessionId`.
const ROOT: &str = "";

/// The CDP error code of a refusal (Chromium's generic server error).
pub const REFUSAL_CODE: i64 = -32000;

/// What the policy did with the message it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Passed on unchanged.
    Forward,
    /// Passed on changed: protected targets, cookies or storage taken out.
    Rewrite,
    /// A client command answered with a refusal; the browser never sees it.
    Refuse,
    /// A client command the policy answered itself (`Target.setDiscoverTargets` on the root).
    Answer,
    /// Withheld from the client (protected, or about a session the client does not have).
    Drop,
    /// Kept back until the policy's own checks are answered; a later call releases it.
    Hold,
    /// A response to the policy's own command, swallowed.
    Own,
    /// Not a CDP message (the client gets a protocol error; a browser frame is dropped).
    Invalid,
}

/// What to do after one message: frames to send each way, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// What happened to the message given.
    pub verdict: Verdict,
    /// Why, in a few words (for logs and tests).
    pub why: &'static str,
    /// Frames for the browser, in order (the policy's own commands, then what it forwards).
    pub to_browser: Vec<String>,
    /// Frames for the client, in order.
    pub to_client: Vec<String>,
    /// Sessions the policy is detaching with this output.
    pub detached: Vec<String>,
}

impl Output {
    fn new() -> Output {
        Output {
            verdict: Verdict::Forward,
            why: "",
            to_browser: Vec::new(),
            to_client: Vec::new(),
            detached: Vec::new(),
        }
    }

    fn set(&mut self, verdict: Verdict, why: &'static str) {
        self.verdict = verdict;
        self.why = why;
    }
}

/// Limits, timeouts and the protected local paths.
#[derive(Debug, Clone)]
pub struct Config {
    /// How long a held message waits for the policy's checks before it fails closed (ms).
    pub hold_ms: u64,
    /// Client commands in flight at most; more are refused.
    pub max_pending: usize,
    /// Client frames kept while the policy's discovery starts; more are refused.
    pub max_queue: usize,
    /// Bytes of messages kept back at most: client frames kept while the policy's discovery
    /// starts (more are refused), and client-bound frames waiting behind a session's checks
    /// (past it the oldest checks fail closed, see the module docs).
    pub max_held_bytes: usize,
    /// JSON values a message may hold to be judged (a parsed value takes about 80 bytes, so
    /// this bounds what judging one message costs: about 0.6 GiB at the default); a client's
    /// message over it is refused, a browser's answer over it becomes an error for its
    /// command, a browser's event over it is dropped. Messages under 1 MiB are not counted.
    pub max_values: usize,
    /// Request ids, history entries and paused requests remembered per session.
    pub per_session: usize,
    /// Targets remembered after they are destroyed (for openers).
    pub gone: usize,
    /// Local folders no command may name a file in (the browser's user-data dir: its files
    /// hold every site's storage, cookies and history in the clear). A file input, a drop or an
    /// app's file launch naming a file in one, a folder holding one, or a path the policy
    /// cannot place (relative, through `/proc` or `/dev/fd`) is refused, as is a download
    /// folder in one and any other absolute path or `file:` URL in one. Empty by default:
    /// the policy does not know where the profile is (see the module docs' *Limits*).
    pub protected_paths: Vec<String>,
    /// How to resolve local paths on the browser's machine (symbolic links, file identities)
    /// for [`Config::protected_paths`]; the policy does no I/O itself. `None` (the default):
    /// paths are judged lexically only.
    pub local_paths: Option<Arc<dyn LocalPaths>>,
    /// The browser's DevTools HTTP endpoints (`host:port`: the proxy's upstream). A page there
    /// reads every tab's URL and title and, on its own origin, opens the browser WebSocket
    /// with no guard in between, so any URL on such a port whose host reaches it (a loopback
    /// or unspecified address, `localhost` and the names under it, the endpoint's own host)
    /// counts as browser-internal (see the module docs). Empty by default.
    pub devtools_endpoints: Vec<String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            hold_ms: 10_000,
            max_pending: 65_536,
            max_queue: 4_096,
            max_held_bytes: 256 << 20,
            max_values: 8_000_000,
            per_session: 8_192,
            gone: 4_096,
            protected_paths: Vec::new(),
            local_paths: None,
            devtools_endpoints: Vec::new(),
        }
    }
}

/// The guard policy: one per client connection (see the module docs).
#[derive(Debug)]
pub struct Policy {
    m: Matcher,
    cfg: Config,
    started: bool,
    ready: bool,
    queue: VecDeque<String>,
    /// Bytes in `queue`.
    queue_bytes: usize,
    next_own: i64,
    next_auto: i64,
    own: HashMap<i64, (String, Own)>,
    pending: HashMap<(String, i64), Pending>,
    targets: HashMap<String, TargetRecord>,
    gone: state::Bounded<String, bool>,
    seq: u64,
    root: SessionRecord,
    sessions: HashMap<String, SessionRecord>,
    holds: HashMap<u64, Hold>,
    next_hold: u64,
    now: u64,
    order: order::Order,
    /// Child target (an out-of-process frame) -> the target whose session attached it.
    frame_hosts: HashMap<String, String>,
    /// Targets hosting a frame on a protected origin (in another process, out of reach of
    /// their own session's interception).
    hosting: HashSet<String>,
    /// Targets showing a protected image (or holding a frame that does): see `loads.rs`.
    showing: HashSet<String>,
    /// The policy's own `Fetch` patterns for images, media and `Other` requests
    /// ([`fetch::shown_patterns`]), built once from the matcher.
    shown: Vec<Value>,
    /// The protected local paths ([`Config::protected_paths`]), resolved once.
    paths: paths::Protected,
    /// The browser's DevTools endpoints ([`Config::devtools_endpoints`]).
    endpoints: endpoints::Endpoints,
    /// Download folders and cancelled downloads (downloads.rs).
    downloads: downloads::Downloads,
    /// The browser contexts the client created (`Target.createBrowserContext` answers): only
    /// theirs may be wiped, without the protected cookies (compat.rs).
    client_contexts: state::Bounded<String, ()>,
    /// Protected first documents of popups the policy let go on to their response
    /// (`<session>\n<request id>`), where the popup's sessions are detached (fetch.rs).
    handoffs: state::Bounded<String, ()>,
}

impl Policy {
    /// A policy over `matcher` with the default [`Config`].
    pub fn new(matcher: Matcher) -> Policy {
        Policy::with_config(matcher, Config::default())
    }

    /// A policy over `matcher` with the limits of `config`.
    pub fn with_config(matcher: Matcher, config: Config) -> Policy {
        let mut root = SessionRecord::new("", state::Kind::Browser, ROOT, config.per_session);
        root.visible = true;
        let paths = paths::Protected::new(&config.protected_paths, config.local_paths.clone());
        let endpoints = endpoints::Endpoints::new(&config.devtools_endpoints);
        Policy {
            endpoints,
            shown: fetch::shown_patterns(&matcher),
            m: matcher,
            root,
            paths,
            downloads: downloads::Downloads::new(config.per_session, config.local_paths.clone()),
            gone: state::Bounded::new(config.gone),
            client_contexts: state::Bounded::new(config.gone),
            handoffs: state::Bounded::new(config.gone),
            cfg: config,
            started: false,
            ready: false,
            queue: VecDeque::new(),
            queue_bytes: 0,
            next_own: *RESERVED_IDS.start(),
            next_auto: *AUTO_IDS.end(),
            own: HashMap::new(),
            pending: HashMap::new(),
            targets: HashMap::new(),
            seq: 0,
            sessions: HashMap::new(),
            holds: HashMap::new(),
            next_hold: 0,
            now: 0,
            order: order::Order::default(),
            frame_hosts: HashMap::new(),
            hosting: HashSet::new(),
            showing: HashSet::new(),
        }
    }

    /// The matcher every judgement goes through.
    pub fn matcher(&self) -> &Matcher {
        &self.m
    }

    /// The policy's opening commands (its target discovery). Calling it is optional: the first
    /// message in either direction starts the policy too. Client commands wait (verdict
    /// [`Verdict::Hold`]) until the browser has answered the discovery.
    pub fn start(&mut self, now_ms: u64) -> Output {
        self.now = now_ms;
        let mut out = Output::new();
        out.set(Verdict::Own, "start");
        self.ensure_started(&mut out);
        out
    }

    /// Whether the browser has answered the policy's discovery.
    pub fn is_ready(&self) -> bool {
        self.ready
    }

    /// A frame from the client (a command `{id, method, params?, sessionId?}`), at `now_ms`.
    pub fn from_client(&mut self, frame: &str, now_ms: u64) -> Output {
        self.now = self.now.max(now_ms);
        let mut out = Output::new();
        self.ensure_started(&mut out);
        self.expire(&mut out);
        if let Some(n) = self.over_budget(frame) {
            self.client_over_budget(frame, n, &mut out);
            self.keep_order(&mut out);
            return out;
        }
        if !self.ready {
            if self.queue.len() >= self.cfg.max_queue
                || self.queue_bytes.saturating_add(frame.len()) > self.cfg.max_held_bytes
            {
                self.client_error(
                    frame,
                    -32000,
                    "slicc: guard: too many commands while starting",
                    &mut out,
                );
                out.set(Verdict::Refuse, "queue full");
            } else {
                self.queue_bytes += frame.len();
                self.queue.push_back(frame.to_string());
                out.set(Verdict::Hold, "starting");
            }
            self.keep_order(&mut out);
            return out;
        }
        self.client_frame(frame, &mut out);
        self.keep_order(&mut out);
        out
    }

    /// A frame from the browser (a response `{id, result|error, sessionId?}` or an event
    /// `{method, params, sessionId?}`), at `now_ms`.
    pub fn from_browser(&mut self, frame: &str, now_ms: u64) -> Output {
        self.now = self.now.max(now_ms);
        let mut out = Output::new();
        self.ensure_started(&mut out);
        self.expire(&mut out);
        match self.over_budget(frame) {
            Some(n) => self.browser_over_budget(frame, n, &mut out),
            None => self.browser_frame(frame, &mut out),
        }
        self.keep_order(&mut out);
        out
    }

    /// Lets time pass: held messages whose checks did not come back in time fail closed.
    pub fn tick(&mut self, now_ms: u64) -> Output {
        self.now = self.now.max(now_ms);
        let mut out = Output::new();
        out.set(Verdict::Own, "tick");
        self.expire(&mut out);
        self.keep_order(&mut out);
        out
    }

    /// Client commands in flight (forwarded, not answered).
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    fn ensure_started(&mut self, out: &mut Output) {
        if self.started {
            return;
        }
        self.started = true;
        let msg = self.own_command(
            ROOT,
            "Target.setDiscoverTargets",
            json!({"discover": true, "filter": [{}]}),
            Own::Discover,
        );
        out.to_browser.push(msg);
    }

    /// A command of the policy's own on `session` (empty for the root), serialised.
    fn own_command(&mut self, session: &str, method: &str, params: Value, why: Own) -> String {
        // The policy's own auto-attach counts its ids down from the top of the range (so
        // the other commands' ids read the same in traces with or without it).
        let auto = matches!(
            method,
            "Target.setAutoAttach"
                | "Network.enable"
                | "Network.setBypassServiceWorker"
                | "Preload.enable"
        ) || matches!(why, Own::Backlist | Own::Widen | Own::Resources);
        let id = if auto { self.next_auto } else { self.next_own };
        if auto {
            self.next_auto = if self.next_auto <= *AUTO_IDS.start() {
                *AUTO_IDS.end()
            } else {
                self.next_auto - 1
            };
        } else {
            self.next_own = if self.next_own >= *AUTO_IDS.start() - 1 {
                *RESERVED_IDS.start()
            } else {
                self.next_own + 1
            };
        }
        self.own.insert(id, (session.to_string(), why));
        let mut msg = json!({"id": id, "method": method, "params": params});
        if session != ROOT {
            msg["sessionId"] = Value::String(session.to_string());
        }
        msg.to_string()
    }

    fn session(&self, key: &str) -> Option<&SessionRecord> {
        if key == ROOT {
            Some(&self.root)
        } else {
            self.sessions.get(key)
        }
    }

    fn session_mut(&mut self, key: &str) -> Option<&mut SessionRecord> {
        if key == ROOT {
            Some(&mut self.root)
        } else {
            self.sessions.get_mut(key)
        }
    }

    /// Whether a document's URL or origin is off limits to the client: protected, or a
    /// browser-internal page ([`internal_url`]).
    fn off_limits(&self, url: &str) -> bool {
        self.m.cookie_url(url) || self.internal(url)
    }

    /// Whether `url` is browser-internal ([`internal_url`]) or a page of the browser's own
    /// DevTools endpoint ([`Config::devtools_endpoints`]).
    fn internal(&self, url: &str) -> bool {
        internal_url(url) || self.endpoints.url(url)
    }

    /// The refusal error for a client command.
    fn refusal_frame(&self, session: &str, id: &Value, message: &str) -> String {
        let mut msg = json!({"id": id, "error": {"code": REFUSAL_CODE, "message": message}});
        if session != ROOT {
            msg["sessionId"] = Value::String(session.to_string());
        }
        msg.to_string()
    }
}

/// The `id` of a parsed frame, when it is an integer.
fn int_id(v: &Value) -> Option<i64> {
    v.get("id").and_then(Value::as_i64)
}

/// The `sessionId` of a parsed frame, empty for the root.
fn session_of(v: &Value) -> String {
    v.get("sessionId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}
