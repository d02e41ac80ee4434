// Generated from wasm/src/abi.rs by its tests; do not edit. `cargo test`
// (make test) fails when this file differs from what they write;
// `make js-abi` rewrites it.
/**
 * The ABI between the wasm module and this runtime beyond the glue's
 * signatures: the numbers hot-path methods answer with, the layout of the
 * text and plan areas, and the separators of the packed strings.
 *
 * A `const enum`: tsc writes each value where it is used, so the
 * runtime reads a literal on its hot path and ships no table.
 * @internal
 */
export const enum Abi {
  /**
   * A decision's kind as the hot-path methods answer it: the call is
   * over, with the attempt's result.
   */
  DONE = 0,

  /**
   * A decision's kind: retry after the delay in the plan area.
   */
  RETRY = 1,

  /**
   * A decision's kind: the call is over without a result (`decision()`
   * says why).
   */
  GIVE_UP = 2,

  /**
   * The attempt number of an admission that refused (`beforeAttempt`,
   * the plan area): the call is over.
   */
  NOT_ADMITTED = 0,

  /**
   * Misuse codes. Hot-path methods answer with a plain number, not a
   * `Result` (the glue returns a `Result` as a fresh array per call:
   * garbage on every attempt); misuse is reported by the five numbers
   * at the top of the `u32` range, which the runtime turns into the error
   * `boundaryError` makes for them. A closed or unknown call handle...
   */
  UNKNOWN_CALL = 0xffffffff,

  /**
   * ...a network kind or class index outside the core's lists...
   */
  INVALID_CODE = 0xfffffffe,

  /**
   * ...a step out of order: an outcome before any admission, a second
   * admission while an attempt is in flight...
   */
  MISUSE = 0xfffffffd,

  /**
   * ...a raised error classified as success...
   */
  RAISED_SUCCESS = 0xfffffffc,

  /**
   * ...and a value rejected as a success.
   */
  REJECTED_SUCCESS = 0xfffffffb,

  /**
   * The smallest misuse code: every answer below it is a plain one.
   */
  MIN_MISUSE_CODE = 0xfffffffb,

  /**
   * The text area's starting size in bytes; it grows when a host needs
   * more (`reserveText`). Texts lie one after another from its start, in
   * the order the call names them, as UTF-8; the call takes their byte
   * lengths.
   */
  TEXT_AREA_BYTES = 4096,

  /**
   * The most the text area grows to (16 MiB): text beyond is the host's
   * bug, not data.
   */
  TEXT_AREA_MAX = 16777216,

  /**
   * The byte length that stands for an absent text (any negative reads
   * as absent).
   */
  ABSENT_TEXT = -1,

  /**
   * The plan area's number of `f64` slots (`planArea`).
   */
  PLAN_SLOTS = 3,

  /**
   * The slot of the last admission's attempt number (`NOT_ADMITTED`: it
   * refused).
   */
  PLAN_ATTEMPT = 0,

  /**
   * The slot of the last admitted attempt's timeout in ms (`NO_MS`:
   * unbounded).
   */
  PLAN_TIMEOUT_MS = 1,

  /**
   * The slot of the last decision's delay in ms (`NO_MS`: not a retry).
   */
  PLAN_DELAY_MS = 2,

  /**
   * A plan slot's duration when there is none.
   */
  NO_MS = -1,

  /**
   * Packed headers (`serverHint`, `onStatus`): `name`, separator,
   * `value`, separator, `name`... A dangling name is ignored.
   */
  HEADER_SEPARATOR = '\n',

  /**
   * A packed HTTP plan (`httpPlan`) is a digit of flags (the character
   * whose code is this plus the flags' sum), the scope's length in UTF-16
   * units as decimal digits, `HTTP_PLAN_SCOPE_MARK`, the scope, then the
   * operation.
   */
  HTTP_PLAN_DIGIT_ZERO = 48,

  /**
   * Ends the scope's length in a packed HTTP plan.
   */
  HTTP_PLAN_SCOPE_MARK = '\n',

  /**
   * The flag of a request safe to repeat.
   */
  HTTP_PLAN_SAFE_TO_REPEAT = 1,

  /**
   * The flag of a request that gets a random key.
   */
  HTTP_PLAN_AUTO_KEY = 2,

  /**
   * The flag of a request whose key the engine may trust.
   */
  HTTP_PLAN_TRUST_KEY = 4,

  /**
   * A hedged call's step as its methods answer it (`hedgePoll`,
   * `hedgeOutcome`, `hedgeCancel`; `stoic/full` only): send copy
   * `HEDGE_COPY` now, with timeout `HEDGE_TIMEOUT_MS`, then ask again.
   */
  HEDGE_SEND = 0,

  /**
   * A hedged call's step: ask again at `HEDGE_UNTIL_MS`, or when a
   * copy's outcome comes (`NO_MS`: only then).
   */
  HEDGE_WAIT = 1,

  /**
   * A hedged call's step: copy `HEDGE_COPY` won; cancel `HEDGE_CANCEL`.
   */
  HEDGE_DONE = 2,

  /**
   * A hedged call's step: the call is over without success
   * (`hedgeGiveUp` says why); cancel `HEDGE_CANCEL`.
   */
  HEDGE_GIVE_UP = 3,

  /**
   * The hedge area's number of `f64` slots (`hedgeArea`): the last
   * step's figures, read without a call, as the plan area's are.
   */
  HEDGE_SLOTS = 4,

  /**
   * The slot of the copy to send (`HEDGE_SEND`) or the winner
   * (`HEDGE_DONE`).
   */
  HEDGE_COPY = 0,

  /**
   * The slot of the copy's timeout in ms (`NO_MS`: unbounded).
   */
  HEDGE_TIMEOUT_MS = 1,

  /**
   * The slot of the time to ask again, on the policy's clock (`NO_MS`:
   * only when an outcome comes).
   */
  HEDGE_UNTIL_MS = 2,

  /**
   * The slot of the copies to cancel: bit `n - 1` for copy `n`.
   */
  HEDGE_CANCEL = 3,

  /**
   * What ended an attempt or a hedged call's copy (`hedgeOutcome`'s
   * `kind`, and how the host and the binding encode every outcome): a
   * success...
   */
  COPY_SUCCESS = 0,

  /**
   * ...a response's status (the code: the status; headers then detail
   * in the text area)...
   */
  COPY_STATUS = 1,

  /**
   * ...a failure without a response (the code indexes `networkKinds()`)...
   */
  COPY_NETWORK = 2,

  /**
   * ...an error the caller's code raised (the code indexes `classes()`)...
   */
  COPY_RAISED = 3,

  /**
   * ...or a value the host rejected (the code indexes `classes()`).
   */
  COPY_REJECTED = 4,
}
