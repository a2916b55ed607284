//! Chromium's feature lists (`--disable-features=A,B`): the one merge that seven's launch
//! ([`crate::launch::merge_features`]) and the harness's headless Chromium share.

/// Feature names from comma-separated lists, trimmed, without empty names and duplicates,
/// in the order first seen.
pub(crate) fn merge<'a, I>(lists: I) -> Vec<String>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut out: Vec<String> = Vec::new();
    for list in lists {
        for feature in list.split(',').map(str::trim) {
            if !feature.is_empty() && !out.iter().any(|f| f == feature) {
                out.push(feature.to_string());
            }
        }
    }
    out
}
