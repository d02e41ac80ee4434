//! `host`: the rules every HTTP wrapper follows, as data.

use stoic_core::host::{
    http_plan, validates, wants_excerpt, HttpRequest as Request, DEFAULT_OPERATION, ERROR_CODES,
    KEY_FORM, KEY_HEADER, UNKNOWN_ERROR_CLASS,
};
use stoic_core::Method;

use crate::bindings::exports::stoic::engine::host::{Guest, HostFacts, HttpRequest, RequestPlan};
use crate::Engine;

impl Guest for Engine {
    fn host_policy() -> HostFacts {
        HostFacts {
            error_codes: ERROR_CODES
                .iter()
                .map(|(name, kind)| ((*name).to_owned(), kind.code().to_owned()))
                .collect(),
            unknown_error_class: UNKNOWN_ERROR_CLASS.code().to_owned(),
            key_header: KEY_HEADER.to_owned(),
            key_form: KEY_FORM.to_owned(),
            default_operation: DEFAULT_OPERATION.to_owned(),
        }
    }

    fn http_plan(request: HttpRequest) -> RequestPlan {
        let plan = http_plan(&Request {
            method: &request.method,
            host: &request.host,
            path: &request.path,
            caller_key: request.caller_key.as_deref(),
            server_deduplicates: request.server_deduplicates,
            auto_keys: request.auto_keys,
        });
        RequestPlan {
            operation: plan.operation,
            scope: plan.scope,
            safe_to_repeat: plan.safe_to_repeat,
            auto_key: plan.auto_key,
            trust_key: plan.trust_key,
        }
    }

    fn wants_excerpt(status: u16) -> bool {
        wants_excerpt(status)
    }

    fn validates_status(status: u16) -> bool {
        validates(status)
    }

    fn is_idempotent_method(method: String) -> bool {
        Method::parse(&method).is_idempotent()
    }
}
