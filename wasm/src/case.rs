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

/// `max_attempts` -> `maxAttempts`: the core schema's own rule.
pub(crate) use stoic_core::schema::camel as snake_to_camel;

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
}
