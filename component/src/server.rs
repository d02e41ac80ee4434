//! `server`: server-side idempotency decisions (the IETF Idempotency-Key
//! draft), given what the host's store holds under a key.

use stoic_core::server_idempotency::{
    decide, fingerprint, EntryState, ServerDecision, ServerIdempotencyConfig, StoredEntry,
};

use crate::bindings::exports::stoic::engine::server::{
    self as wit, Completed, EntryState as State, Guest, GuestServerIdempotency, InFlight, Proceed,
    Refuse, Replay, ServerDecision as Decision, StoredEntry as Entry,
};
use crate::bindings::exports::stoic::engine::types::{ConfigError, InputError};
use crate::convert::{config, input_error};
use crate::Engine;

/// The resource: a checked config.
#[derive(Debug)]
pub struct Server(ServerIdempotencyConfig);

impl Guest for Engine {
    type ServerIdempotency = Server;

    fn fingerprint(body_json: String) -> Result<String, InputError> {
        fingerprint(&body_json).map_err(|e| input_error(&e))
    }

    fn complete(entry: Entry, now_unix_ms: u64, status: u16) -> Entry {
        entry_out(&entry_in(entry).completed(now_unix_ms, status))
    }
}

impl GuestServerIdempotency for Server {
    fn create(config_json: String) -> Result<wit::ServerIdempotency, ConfigError> {
        Ok(wit::ServerIdempotency::new(Server(config(&config_json)?)))
    }

    fn decide(
        &self,
        now_unix_ms: u64,
        key: Option<String>,
        fingerprint: String,
        stored: Option<Entry>,
    ) -> Decision {
        let stored = stored.map(entry_in);
        match decide(
            &self.0,
            now_unix_ms,
            key.as_deref(),
            &fingerprint,
            stored.as_ref(),
        ) {
            ServerDecision::Proceed { record, replaces } => Decision::Proceed(Proceed {
                record: record.as_ref().map(entry_out),
                replaces,
            }),
            ServerDecision::Replay { status } => Decision::Replay(Replay { status }),
            ServerDecision::Refuse {
                refusal,
                status,
                detail,
                retry_after_s,
            } => Decision::Refuse(Refuse {
                refusal: refusal.code().to_owned(),
                status,
                detail: detail.to_owned(),
                retry_after_s,
            }),
        }
    }
}

fn entry_in(entry: Entry) -> StoredEntry {
    StoredEntry {
        fingerprint: entry.fingerprint,
        state: match entry.state {
            State::InFlight(f) => EntryState::InFlight {
                since_unix_ms: f.since_unix_ms,
            },
            State::Completed(c) => EntryState::Completed {
                at_unix_ms: c.at_unix_ms,
                status: c.status,
            },
        },
    }
}

fn entry_out(entry: &StoredEntry) -> Entry {
    Entry {
        fingerprint: entry.fingerprint.clone(),
        state: match entry.state {
            EntryState::InFlight { since_unix_ms } => State::InFlight(InFlight { since_unix_ms }),
            EntryState::Completed { at_unix_ms, status } => {
                State::Completed(Completed { at_unix_ms, status })
            }
        },
    }
}
