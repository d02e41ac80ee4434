/**
 * The last admission's attempt number and timeout, and the last decision's
 * delay, read from the module's memory (`CorePolicy.planArea`) instead of
 * by one more call per attempt.
 * @internal
 */
import { wasmMemory, type CorePolicy } from './wasm/stoic_wasm.js';

/** The last admitted attempt's number, 0 if the last admission refused. */
export const ATTEMPT = 0;
/** The last admitted attempt's timeout in ms, -1 if unbounded. */
export const TIMEOUT_MS = 1;
/** The last decision's delay in ms if it was a retry, else -1. */
export const DELAY_MS = 2;

export class PlanArea {
  readonly #core: CorePolicy;
  #view: Float64Array | undefined;

  constructor(core: CorePolicy) {
    this.#core = core;
  }

  /**
   * The area, indexed by `ATTEMPT`, `TIMEOUT_MS` and `DELAY_MS`: the loop
   * takes it once per admission and reads both of the admission's figures.
   */
  view(): Float64Array {
    let view = this.#view;
    // A grown memory detaches old views (their length reads 0).
    if (view === undefined || view.length === 0) {
      const memory = wasmMemory() as WebAssembly.Memory;
      view = new Float64Array(memory.buffer, this.#core.planArea(), 3);
      this.#view = view;
    }
    return view;
  }

  /** The last decision's delay in ms if it was a retry, else -1. */
  get delayMs(): number {
    return this.view()[DELAY_MS] as number;
  }
}
