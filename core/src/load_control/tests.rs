//! Unit tests of the load-control machines' internals; the scenarios are
//! in `tests/vectors/core_only/{throttle,limiter}.json`.
