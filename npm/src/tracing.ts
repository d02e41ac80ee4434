/**
 * How `stoic/opentelemetry` tells `createFetch` to mark each resend on the
 * caller's active span, without this package importing OpenTelemetry.
 *
 * The marker lives on the policy under a global symbol: the package's
 * entries are bundled separately, so a module-level map in one would not
 * be seen by another; `Symbol.for` is the same key in every bundle.
 */

/** Sets `http.request.resend_count` (the resends so far) where the call runs. */
export type ResendMarker = (resends: number) => void;

const MARKER = Symbol.for('stoic.resendMarker');

/** Starts (or with undefined, stops) marking `policy`'s HTTP resends. */
export function traceResends(policy: object, marker: ResendMarker | undefined): void {
  const slots = policy as Record<symbol, ResendMarker | undefined>;
  if (marker === undefined) delete slots[MARKER];
  else slots[MARKER] = marker;
}

/** The marker of `policy`, if it is traced. */
export function resendMarker(policy: object): ResendMarker | undefined {
  return (policy as Record<symbol, ResendMarker | undefined>)[MARKER];
}
