//! camelCase <-> snake_case for object keys, generically: the schema is the
//! core's, and this file never lists its fields.

/// `maxAttempts` -> `max_attempts`; a key already in snake_case is unchanged.
pub(crate) fn camel_to_snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len().saturating_add(4));
    for (i, c) in key.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `max_attempts` -> `maxAttempts`; a key without underscores is unchanged.
pub(crate) fn snake_to_camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for (i, c) in key.chars().enumerate() {
        if c == '_' && i > 0 {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Rewrites the backquoted snake_case names in a serde message (`unknown
/// field `raed_ms`, expected one of `read_ms`, ...`) into camelCase, so the
/// message speaks the caller's dialect.
pub(crate) fn camelize_quoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(&snake_to_camel(part));
        } else {
            out.push_str(part);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_both_ways() {
        for (snake, camel) in [
            ("max_attempts", "maxAttempts"),
            ("retry_after_ms", "retryAfterMs"),
            ("seed", "seed"),
            ("grpc_milli_tokens", "grpcMilliTokens"),
            ("404", "404"),
        ] {
            assert_eq!(snake_to_camel(snake), camel);
            assert_eq!(camel_to_snake(camel), snake);
            assert_eq!(camel_to_snake(snake), snake, "snake input is kept");
        }
    }

    #[test]
    fn messages_keep_their_text() {
        assert_eq!(
            camelize_quoted("unknown field `raed_ms`, expected `read_ms` or `x`"),
            "unknown field `raedMs`, expected `readMs` or `x`"
        );
        assert_eq!(camelize_quoted("no quotes"), "no quotes");
    }
}
