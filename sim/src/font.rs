//! The font the PNG charts are drawn with.
//!
//! plotters' `ab_glyph` backend draws text from a font file registered at
//! run time, so the simulator needs no system font library at build time,
//! only a TrueType file when it renders. It takes `STOIC_SIM_FONT` if set,
//! otherwise DejaVu Sans from Debian's `fonts-dejavu-core`, which
//! `scripts/ensure-sim-font.sh` (run by `make sim`) installs when missing.

use std::path::PathBuf;

use plotters::style::{register_font, FontStyle};

/// The environment variable that points at another `.ttf` file.
pub const FONT_ENV: &str = "STOIC_SIM_FONT";

/// Where Debian's `fonts-dejavu-core` puts DejaVu Sans.
pub const DEBIAN_DEJAVU: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// The font family name the charts ask plotters for.
pub const FAMILY: &str = "sans-serif";

/// Loads the font and registers it as [`FAMILY`]; returns the file used.
///
/// # Errors
/// A message naming the file and how to get one, if it cannot be read or
/// parsed.
pub fn register() -> Result<PathBuf, String> {
    let path =
        std::env::var_os(FONT_ENV).map_or_else(|| PathBuf::from(DEBIAN_DEJAVU), PathBuf::from);
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "cannot read the chart font {}: {e}; run `make sim` (it installs fonts-dejavu-core) \
             or set {FONT_ENV} to a .ttf file",
            path.display()
        )
    })?;
    // plotters keeps fonts for the life of the process; the simulator loads
    // one, once.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    register_font(FAMILY, FontStyle::Normal, bytes)
        .map_err(|_| format!("{} is not a usable TrueType font", path.display()))?;
    Ok(path)
}
