//! `keys`: idempotency keys and canonical JSON.

use stoic_core::key::{self, es6_number, header_value, parse_key_header, KeyHeaderForm};

use crate::bindings::exports::stoic::engine::keys::Guest;
use crate::bindings::exports::stoic::engine::types::InputError;
use crate::convert::{input_error, misuse};
use crate::Engine;

impl Guest for Engine {
    fn idempotency_key(
        run_id: String,
        step: String,
        args_json: String,
    ) -> Result<String, InputError> {
        key::idempotency_key(&run_id, &step, &args_json).map_err(|e| input_error(&e))
    }

    fn canonical_json(json: String) -> Result<String, InputError> {
        key::canonical_json(&json).map_err(|e| input_error(&e))
    }

    fn canonical_json_exact(json: String) -> Result<String, InputError> {
        key::canonical_json_exact(&json).map_err(|e| input_error(&e))
    }

    fn es6_number(value: f64) -> Option<String> {
        es6_number(value)
    }

    fn random_key(random: Vec<u8>) -> Result<String, InputError> {
        let bytes = <[u8; 16]>::try_from(random.as_slice())
            .map_err(|_| misuse("random-key needs exactly 16 bytes"))?;
        Ok(key::random_key(bytes))
    }

    fn key_header_value(key: String, form: String) -> Result<String, InputError> {
        let form = KeyHeaderForm::from_code(&form)
            .ok_or_else(|| misuse("form must be `bare` or `quoted`"))?;
        Ok(header_value(&key, form))
    }

    fn parse_key_header(value: String) -> Option<String> {
        parse_key_header(&value)
    }
}
