//! The fleet exchange (`stoic_core::fleet`), for the `stoic/redis` adapter:
//! text in, text out, as the core writes and reads it. Not in the browser
//! build (the `fleet` feature).

use js_sys::Array;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::errors::input_error;
use crate::units::{instant, ms};

use super::CorePolicy;

/// The Redis script of one scope's exchange (Lua), the same for every host.
#[wasm_bindgen(js_name = fleetRedisScript)]
pub fn fleet_redis_script() -> String {
    stoic_core::fleet::REDIS_SCRIPT.to_owned()
}

#[wasm_bindgen]
impl CorePolicy {
    /// What this process counted since its last export: `[seq, [[scope,
    /// json], ...]]`, one document per scope for the store's script.
    #[wasm_bindgen(js_name = fleetExport)]
    pub fn fleet_export(&mut self, now: f64, store_now_ms: f64) -> Array {
        let delta = self.inner.fleet_export(instant(now), ms(store_now_ms));
        let scopes: Array = delta
            .scope_texts()
            .into_iter()
            .map(|(scope, text)| {
                let pair = Array::new();
                pair.push(&JsValue::from_str(&scope));
                pair.push(&JsValue::from_str(&text));
                JsValue::from(pair)
            })
            .collect();
        let out = Array::new();
        #[allow(clippy::cast_precision_loss)] // a count of exchanges
        out.push(&JsValue::from_f64(delta.seq as f64));
        out.push(&scopes);
        out
    }

    /// Takes the store script's replies, one JSON document per scope.
    #[wasm_bindgen(js_name = fleetApply)]
    pub fn fleet_apply(&mut self, now: f64, replies: Vec<String>) -> Result<(), JsValue> {
        let replies: Vec<&str> = replies.iter().map(String::as_str).collect();
        self.inner
            .fleet_apply_replies(instant(now), &replies)
            .map_err(|e| input_error(&e))
    }

    /// The exchange failed: its delta is sent again next time.
    #[wasm_bindgen(js_name = fleetFailed)]
    pub fn fleet_failed(&mut self, now: f64) {
        self.inner.fleet_failed(instant(now));
    }

    /// Whether a breaker opened or closed since the last export (the
    /// adapter then exchanges at once).
    #[wasm_bindgen(js_name = fleetHasNews)]
    pub fn fleet_has_news(&self) -> bool {
        self.inner.fleet_has_news()
    }

    /// `detached`, `live` or `stale`: whether decisions see the fleet.
    #[wasm_bindgen(js_name = fleetHealth)]
    pub fn fleet_health(&self, now: f64) -> String {
        self.inner.fleet_health(instant(now)).code().to_owned()
    }
}
