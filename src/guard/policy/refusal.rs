//! Why the policy refuses: one value a reason, carrying the words the client reads (after the
//! catalog's refusal, in brackets) and the short reason the log gives ([`Output::why`]).
//!
//! [`Output::why`]: super::output::Output::why

use std::borrow::Cow;

/// A reason for a refusal: of a client command, of the browser's answer to one, or of what a
/// hold kept back when its checks failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal<'a> {
    // ---- the table (deny.rs)
    /// A command the table lacks.
    Unclassified,
    /// A command the table refuses, with the table's own words (`commands.json`'s `why`).
    Table(&'a str),
    /// A parameter the table does not list names a protected origin: (the parameter's name).
    Unlisted(&'a str),
    /// A parameter names a browser-internal page or a local file.
    Internal,
    /// A parameter grants pages reach over every origin.
    Grant,
    /// A parameter names a protected origin (or target, or frame).
    ProtectedOrigin,

    // ---- sessions and targets
    /// A command on a session whose target is protected (or closed, or never shown).
    SessionProtected,
    /// A frame id of a protected target (an out-of-process frame).
    ProtectedFrame,
    /// Capture, input or a frame command on a page holding a protected frame in another
    /// process.
    Hosted,
    /// A session nested [`MAX_NESTING`](super::config::MAX_NESTING) deep.
    Nesting,
    /// A non-flat `Target.attachToTarget`.
    NonFlat,
    /// A non-flat auto-attach.
    NonFlatAuto,
    /// Closing a browser context, or the browser, with a protected tab open.
    Closes,
    /// A history navigation to a protected (or unknown) entry.
    HistoryEntry,
    /// A command still in flight on a session the policy detached.
    Detached,
    /// What a hold kept, when the policy's checks failed (or were late) with nothing more to
    /// say than the catalog's refusal.
    ChecksFailed,

    // ---- what a page loaded (loads.rs)
    /// A resource read by a URL the policy did not see load and end on an ordinary origin.
    Unseen,
    /// A capture of a page showing a protected image or media.
    Shows,

    // ---- local paths, downloads and the clipboard (local_paths.rs, downloads.rs, clipboard.rs)
    /// A local file in a protected path.
    Inside,
    /// A folder holding a protected path handed to a page.
    HoldsPath,
    /// A local path the policy cannot place.
    Unplaced,
    /// A path handed to a page overlaps a download folder.
    OfferedDownloads,
    /// A download folder overlaps a path handed to a page (or one too many to remember).
    DownloadOverlap,
    /// A download folder set for a page while downloads are not watched.
    PageDownloads,
    /// A paste, or a clipboard read permission.
    Clipboard,

    // ---- scripts and objects (scripts.rs)
    /// A script or style sheet from a protected origin, or one the client was not shown.
    Script,
    /// An object id the client was not shown.
    Object,

    // ---- browser-wide and renderer-wide commands (client.rs, cookies.rs)
    /// A command reaching the renderer process a protected page may share.
    Shared,
    /// A command reaching the whole tab, which holds it under a protected page.
    Tab,
    /// A command reaching the whole browser while a protected tab is open.
    Browser,
    /// `Storage.clearCookies` of the user's browser context.
    UserWipe,
    /// `Browser.resetPermissions` outside a context the client created.
    ResetPermissions,
    /// A cookie delete without a URL or domain.
    CookieDeleteEverywhere,
    /// A permission for every origin.
    PermissionEverywhere,

    // ---- request ids (cookies.rs, fetch.rs)
    /// A `Network` or `Audits` request id the client was not shown as ordinary.
    UnshownRequest,
    /// An answer to a paused request the client was not shown.
    UnshownPause,

    // ---- holds (commits.rs, order.rs)
    /// A page holding a prefetched document when the client attached.
    Prefetch,
    /// A tab whose back/forward list holds a protected page.
    Backlist,
    /// Too much for the client waited behind a session's checks.
    Backlog,

    // ---- answers (browser.rs, sessions.rs)
    /// An answer on a session that turned protected while the command was in flight.
    SessionTurned,
    /// An answer about a request that a redirect took to a protected origin.
    RequestTurned,
    /// An answer naming a protected target.
    TargetProtected,
    /// A frame tree holding a frame on a protected origin.
    FrameProtected,
    /// A result naming a protected origin.
    ResultProtected,
    /// A capture answered after its page came to hold a protected frame in another process.
    TurnedHosting,
    /// A capture answered after its page came to show a protected image.
    TurnedShowing,
}

impl<'a> Refusal<'a> {
    /// Why, in the words the client reads after the catalog's refusal (in brackets), or the
    /// guard's whole message where it gives its own ([`Refusal::whole`]); `None` when the
    /// catalog's refusal alone says it (what the command names is protected).
    pub(super) fn words(self) -> Option<Cow<'a, str>> {
        use Refusal::*;
        let because = |s: &'static str| Some(Cow::Borrowed(s));
        match self {
            Unclassified => because("the guard has not classified this command: it is not in the guard's table of the browser's protocol, and the guard forwards only what it has decided on"),
            Table(why) => Some(Cow::Borrowed(why)),
            Unlisted(name) => Some(Cow::Owned(format!(
                "the guard's table does not list the parameter {name:?} of this command, and its value names a protected origin"
            ))),
            Grant => because("it grants the pages of the origins it lists network access to every origin past CORS, protected ones included"),
            Internal => because("a browser-internal page (chrome:, devtools:, about: and the like, or the browser's own DevTools endpoint) or a local file (file:, such as the profile's storage files) shows and changes every site's data, protected ones included"),
            Hosted | TurnedHosting => because("the page holds a frame on a protected origin in another process, which capture, input and frame commands would reach"),
            Nesting => Some(Cow::Owned(format!(
                "slicc: guard: sessions nest at most {} deep (a browser crashes on deep ones)",
                super::config::MAX_NESTING
            ))),
            NonFlat | NonFlatAuto => Some(Cow::Borrowed(
                "slicc: guard: only flat sessions are supported (flatten: true)",
            )),
            Closes => because("it closes a protected tab (its browser context, or the whole browser), with what the user had there"),
            Detached => because("the session was detached: its target is protected"),
            Unseen => because("it names a resource the guard did not see load and end on an ordinary origin (an ordinary URL may redirect to a protected one)"),
            Shows | TurnedShowing => because("the page shows an image or media from a protected origin, loaded with the user's cookies, whose pixels a capture would read"),
            Inside => because("it names a local file in a protected path, such as the browser's profile, whose files hold every site's storage, cookies and history"),
            HoldsPath => because("it hands a page a local folder that holds a protected path, such as the browser's profile, which the page can walk"),
            Unplaced => because("a relative local path, or one through /proc or /dev/fd, may name a file in a protected path, such as the browser's profile, and the guard cannot rule it out"),
            OfferedDownloads | DownloadOverlap => because("a page would read what the browser downloads: the folder is a download folder, is in one or holds one, or a page was handed a path in it or above it"),
            PageDownloads => because("a download folder set for a page is not watched for protected downloads; use Browser.setDownloadBehavior"),
            Clipboard => because("the clipboard is the user's, shared by every page and browser context: it holds what the user copied, on protected pages too"),
            Script => because("it names a script or style sheet from a protected origin, or one the client was not shown"),
            Object => because("it names an object id the client was not shown (the internal objects of a protected script's functions have ids of their own)"),
            Shared => because("the page may share its renderer process with a protected page (it is same-site with a protected origin, or has no origin of its own and was made by such a page), and this command reaches the whole process"),
            Tab => because("the session's frame or worker belongs to a protected page, and this command reaches the whole tab"),
            Browser => because("it reaches every tab of the browser (closes, crashes or changes them all), and a protected tab is open"),
            UserWipe => because("a wipe of the user's browser context clears the protected origins' cookies; only a context the client created is wiped, without them"),
            ResetPermissions => because("it resets the permissions of every origin of a browser context the client did not create, protected ones included"),
            Prefetch => because("the page holds a prefetched document (speculation rules), which a navigation commits with no request to pause, and a prefetch may follow a redirect to a protected origin"),
            Backlist => because("the tab's back/forward list holds a protected page, which a history navigation restores from the back/forward cache with no request to pause"),
            Backlog => because("too much for the client waited behind this session's checks"),
            ProtectedOrigin | SessionProtected | ProtectedFrame | HistoryEntry | ChecksFailed
            | CookieDeleteEverywhere | PermissionEverywhere
            | UnshownRequest | UnshownPause | SessionTurned | RequestTurned | TargetProtected
            | FrameProtected | ResultProtected => None,
        }
    }

    /// Whether [`Refusal::words`] are the whole message (the guard's own, about the protocol),
    /// not a reason after the catalog's refusal.
    fn whole(self) -> bool {
        matches!(
            self,
            Refusal::Nesting | Refusal::NonFlat | Refusal::NonFlatAuto
        )
    }

    /// The message the client reads, given the catalog's refusal.
    pub(super) fn message(self, refusal: &str) -> String {
        match self.words() {
            None => refusal.to_string(),
            Some(w) if self.whole() => w.into_owned(),
            Some(w) => format!("{refusal} ({w})"),
        }
    }

    /// The short reason the log gives ([`Output::why`](super::output::Output::why)).
    pub(super) fn reason(self) -> &'static str {
        use Refusal::*;
        match self {
            Unclassified => "unclassified command",
            Table(_) => "refused by the table",
            Unlisted(_) => "an unlisted parameter names a protected origin",
            Internal => "names a browser-internal page",
            Grant => "grants reach over every origin",
            ProtectedOrigin => "names a protected origin",
            SessionProtected => "session on a protected target",
            ProtectedFrame => "names a protected frame",
            Hosted => "page hosts a protected frame",
            Nesting => "sessions nested too deep",
            NonFlat => "non-flat session",
            NonFlatAuto => "non-flat auto-attach",
            Closes => "closes a protected tab",
            HistoryEntry => "protected history entry",
            Detached => "session detached",
            ChecksFailed => "the guard's checks failed",
            Unseen | Shows => "protected content a page loaded",
            Inside | HoldsPath | Unplaced => "names a protected local path",
            OfferedDownloads => "a download folder for a page",
            DownloadOverlap | PageDownloads => "download folder not watched",
            Clipboard => "reads the user's clipboard",
            Script => "names a protected script",
            Object => "object id not shown to the client",
            Shared => "reaches a process a protected page may share",
            Tab => "reaches a tab under a protected page",
            Browser => "reaches every tab while a protected one is open",
            UserWipe => "wipe of the user's cookies",
            ResetPermissions => "reset of the user's permissions",
            CookieDeleteEverywhere => "cookie delete on every domain",
            PermissionEverywhere => "permission for every origin",
            UnshownRequest => "request id not shown to the client",
            UnshownPause => "request id the client was not shown",
            Prefetch => "a prefetch the page held when the session was made",
            Backlist => "protected page in the back/forward list",
            Backlog => "too much waited behind the session's checks",
            SessionTurned => "session turned protected",
            RequestTurned => "request turned protected",
            TargetProtected => "target is protected",
            FrameProtected => "frame on a protected origin",
            ResultProtected => "result names a protected origin",
            TurnedHosting | TurnedShowing => "page turned to show protected content",
        }
    }
}
