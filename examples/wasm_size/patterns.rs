//! A consumer of the catalog's regular expressions (feature `patterns`, which discovery and
//! launch turn on): `catalog()`, `is_seven_origin`, `chrome_major`, `valid_profile_name` and
//! `is_six_profile_name`. `scripts/wasm-size.sh` prints its size beside the catalog-only
//! consumer's: the difference is what the regex engine costs a `wasm32-wasip1` build.
//!
//! The first argument is a URL, the second a user agent, the third a profile name.

fn main() {
    let cat = slicc_browsers::catalog();
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .unwrap_or_else(|| "https://seven.sliccy.ai/".into());
    let ua = args
        .next()
        .unwrap_or_else(|| "Mozilla/5.0 Chrome/154.0.0.0 Safari/537.36".into());
    let name = args
        .next()
        .unwrap_or_else(|| "browser-coding-agent-chrome".into());
    println!(
        "seven origin\t{}",
        cat.is_seven_origin(&url, &[] as &[&str])
    );
    println!("chrome major\t{:?}", cat.chrome_major(&ua));
    println!("profile name\t{}", cat.valid_profile_name(&name));
    println!("six profile\t{}", cat.is_six_profile_name(&name));
}
