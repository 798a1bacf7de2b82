//! The toolchain id of the compiler that builds the program (used by build.rs; unit
//! tested from src/lib.rs, since cargo does not run a build script's tests).

/// "rustc 1.95.0 (59807616e 2026-04-14)" -> "1.95.0"; a nightly carries its date, since
/// one version number covers six weeks of nightlies:
/// "rustc 1.97.0-nightly (e50aa6fba 2026-05-19)" -> "1.97.0-nightly-2026-05-19".
pub fn toolchain_version(line: &str) -> String {
    let mut words = line.split_whitespace();
    let version = words.nth(1).unwrap_or("unknown");
    let date = words
        .last()
        .map(|w| w.trim_end_matches(')'))
        .filter(|d| d.len() == 10 && d.chars().all(|c| c.is_ascii_digit() || c == '-'));
    match date {
        Some(d) if version.ends_with("-nightly") || version.ends_with("-dev") => {
            format!("{version}-{d}")
        }
        _ => version.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::toolchain_version;

    #[test]
    fn releases_plain_nightlies_dated() {
        assert_eq!(
            toolchain_version("rustc 1.95.0 (59807616e 2026-04-14)"),
            "1.95.0"
        );
        assert_eq!(
            toolchain_version("rustc 1.96.0-beta.2 (0123abcde 2026-04-30)"),
            "1.96.0-beta.2"
        );
        assert_eq!(
            toolchain_version("rustc 1.97.0-nightly (e50aa6fba 2026-05-19)"),
            "1.97.0-nightly-2026-05-19"
        );
        assert_eq!(toolchain_version(""), "unknown");
    }
}
