pub(crate) mod ops;
