# The wasm-opt flags of each module the npm package ships, in one place:
# scripts/js-build.sh optimises the shipped modules with them, and
# scripts/size-named.sh a copy that keeps its function names for
# `make size`'s breakdown. Sourced; `wasm_opt_flags NAME` prints them.
wasm_opt_flags() {
  local flags=(-Os --strip-producers
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
    --enable-mutable-globals --enable-reference-types --enable-multivalue)
  # The client module: passes repeated until they stop shrinking it (about
  # 0.6 % smaller gzipped, for a few seconds more of build), -Oz's inlining
  # limits (0.3 % smaller), and functions that differ only in constants
  # merged first (72,961 -> 72,588 bytes gzipped; placed after -Oz it finds
  # nothing). The full module, Node's, stays -Os without the merge: it would
  # save 0.4 % there, for a hot path between equal and 3 % slower.
  if [ "$1" = stoic_client ]; then flags=(--merge-similar-functions -Oz "${flags[@]:1}" --converge); fi
  echo "${flags[@]}"
}
