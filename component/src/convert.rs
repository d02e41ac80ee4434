//! Conversions shared by every interface: errors, codes, documents.

use stoic_core::schema::{decode, emit, Dialect, Emit, Section, Value};
use stoic_core::{ConfigError, InputError, Instant};

use crate::bindings::exports::stoic::engine::types;

/// A config error as WIT's record: the first problem, and all of them.
pub(crate) fn config_error(e: &ConfigError) -> types::ConfigError {
    types::ConfigError {
        code: e.code().as_str().to_owned(),
        field: e.field().to_owned(),
        message: e.message().to_owned(),
        problems: e
            .problems()
            .map(|p| types::ConfigProblem {
                code: p.code().as_str().to_owned(),
                field: p.field().to_owned(),
                message: p.message().to_owned(),
            })
            .collect(),
    }
}

/// A host's misuse of a function (a wrong length, an unknown code).
pub(crate) fn misuse(message: &str) -> types::InputError {
    types::InputError {
        code: stoic_core::InputErrorCode::Misuse.as_str().to_owned(),
        message: message.to_owned(),
    }
}

/// An input error as WIT's record.
pub(crate) fn input_error(e: &InputError) -> types::InputError {
    types::InputError {
        code: e.code().as_str().to_owned(),
        message: e.message().to_owned(),
    }
}

/// A config document (JSON text, the core's spelling) read and checked by
/// the core's declaration of `T`.
pub(crate) fn config<T: Section>(text: &str) -> Result<T, types::ConfigError> {
    let value = Value::from_json(text).map_err(|e| config_error(&e))?;
    decode(&value, Dialect::RUST).map_err(|e| config_error(&e))
}

/// A data document the core handed out and gets back (a metrics snapshot),
/// read by its declaration; a malformed one carries the schema's code.
pub(crate) fn data<T: Section>(text: &str) -> Result<T, types::InputError> {
    let refuse = |e: ConfigError| types::InputError {
        code: e.code().as_str().to_owned(),
        message: e.text(),
    };
    let value = Value::from_json(text).map_err(refuse)?;
    decode(&value, Dialect::RUST).map_err(refuse)
}

/// A value the core declares, as JSON text in its spelling.
pub(crate) fn json<T: Emit + ?Sized>(item: &T) -> String {
    emit(item, Dialect::RUST).to_json_text()
}

/// Milliseconds on the host's monotonic clock.
pub(crate) const fn instant(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

pub(crate) fn class(c: stoic_core::Class) -> types::Class {
    use stoic_core::Class as C;
    match c {
        C::Success => types::Class::Success,
        C::Transient => types::Class::Transient,
        C::Deterministic => types::Class::Deterministic,
        C::Ambiguous => types::Class::Ambiguous,
    }
}

pub(crate) fn class_in(c: types::Class) -> stoic_core::Class {
    use stoic_core::Class as C;
    match c {
        types::Class::Success => C::Success,
        types::Class::Transient => C::Transient,
        types::Class::Deterministic => C::Deterministic,
        types::Class::Ambiguous => C::Ambiguous,
    }
}

pub(crate) fn network_in(k: types::NetworkKind) -> stoic_core::NetworkErrorKind {
    use stoic_core::NetworkErrorKind as N;
    match k {
        types::NetworkKind::ConnectRefused => N::ConnectRefused,
        types::NetworkKind::ConnectTimeout => N::ConnectTimeout,
        types::NetworkKind::DnsFailure => N::DnsFailure,
        types::NetworkKind::ResetBeforeSend => N::ResetBeforeSend,
        types::NetworkKind::ResetAfterSend => N::ResetAfterSend,
        types::NetworkKind::ReadTimeout => N::ReadTimeout,
        types::NetworkKind::BodyCut => N::BodyCut,
        types::NetworkKind::RefusedLocally => N::RefusedLocally,
        types::NetworkKind::Unknown => N::Unknown,
    }
}

pub(crate) fn breaker_state(s: stoic_core::breaker::BreakerStateCode) -> types::BreakerState {
    use stoic_core::breaker::BreakerStateCode as B;
    match s {
        B::Closed => types::BreakerState::Closed,
        B::Open => types::BreakerState::Open,
        B::HalfOpen => types::BreakerState::HalfOpen,
    }
}
