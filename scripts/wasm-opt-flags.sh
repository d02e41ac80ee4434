# The wasm-opt flags of each module the npm package ships, in one place:
# scripts/js-build.sh optimises the shipped modules with them, and
# scripts/size-named.sh a copy that keeps its function names for
# `make size`'s breakdown. Sourced; `wasm_opt_flags NAME` prints them.
wasm_opt_flags() {
  local flags=(-Os --strip-producers
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
    --enable-mutable-globals --enable-reference-types --enable-multivalue)
  # The client module: passes repeated until they stop shrinking it (about
  # 0.6 % smaller gzipped, for a few seconds more of build), and -Oz's
  # inlining limits (0.3 % smaller; the full module, Node's, stays -Os).
  if [ "$1" = stoic_client ]; then flags=(-Oz "${flags[@]:1}" --converge); fi
  echo "${flags[@]}"
}
