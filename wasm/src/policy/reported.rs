//! An outcome as the host reports it, in numbers and the text area: read
//! one way for a plain call's attempt (`onStatus`, `onNetwork`,
//! `onRejected`, `onRaised`) and a hedged call's copy (`hedgeOutcome`).

use stoic_core::{Class, NetworkErrorKind, Outcome, Policy, WallClock};

use crate::abi::{
    header_pairs, COPY_NETWORK, COPY_RAISED, COPY_REJECTED, COPY_STATUS, COPY_SUCCESS,
    INVALID_CODE, RAISED_SUCCESS, REJECTED_SUCCESS,
};
use crate::text::{step, text_at};
use crate::units::ms;

/// The outcome of kind `kind` (a `COPY_*` code): `code` is its status, its
/// network kind (indexes `networkKinds()`) or its class (indexes
/// `classes()`); `wall` the Unix ms now (-1: unknown), which dates an
/// HTTP-date hint; `headers_len` bytes of headers (`name\nvalue\n...`, -1:
/// none) at the start of the text area, then `detail_len` bytes of detail.
/// A response's hint is read by the policy (`Policy::response_outcome`).
///
/// # Errors
/// The code to answer with instead: `INVALID_CODE` for a code out of
/// range, `REJECTED_SUCCESS` / `RAISED_SUCCESS` for a failure of class
/// success.
#[allow(clippy::too_many_arguments)] // the host's numbers, one per argument
pub(super) fn reported<'t>(
    policy: &Policy,
    text: &'t [u8],
    kind: u32,
    code: u32,
    wall: f64,
    headers_len: i32,
    detail_len: i32,
) -> Result<Outcome<'t>, u32> {
    let class = || Class::ALL.get(code as usize).copied().ok_or(INVALID_CODE);
    let outcome = match kind {
        COPY_SUCCESS => Outcome::success(),
        COPY_STATUS => {
            let status = u16::try_from(code).map_err(|_| INVALID_CODE)?;
            let headers = text_at(text, 0, headers_len).unwrap_or_default();
            let wall = (wall >= 0.0).then(|| WallClock::from_unix_millis(ms(wall)));
            policy.response_outcome(status, header_pairs(headers), wall)
        }
        COPY_NETWORK => match NetworkErrorKind::ALL.get(code as usize) {
            Some(network) => Outcome::network(*network),
            None => return Err(INVALID_CODE),
        },
        COPY_RAISED => checked(Outcome::raised(class()?), RAISED_SUCCESS)?,
        COPY_REJECTED => checked(Outcome::rejected(class()?), REJECTED_SUCCESS)?,
        _ => return Err(INVALID_CODE),
    };
    Ok(match text_at(text, step(headers_len), detail_len) {
        Some(detail) => outcome.with_detail(detail),
        None => outcome,
    })
}

/// `outcome`, unless it is a failure of class success (`refused`).
fn checked(outcome: Outcome<'_>, refused: u32) -> Result<Outcome<'_>, u32> {
    match outcome.check() {
        Ok(()) => Ok(outcome),
        Err(_) => Err(refused),
    }
}
