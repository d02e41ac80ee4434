/**
 * The last admission's attempt number and timeout, and the last decision's
 * delay, read from the module's memory (`CorePolicy.planArea`) instead of
 * by one more call per attempt.
 * @internal
 */
import { wasmMemory, type CorePolicy } from './wasm/stoic_wasm.js';

export class PlanArea {
  readonly #core: CorePolicy;
  #view: Float64Array | undefined;

  constructor(core: CorePolicy) {
    this.#core = core;
  }

  /**
   * The area itself, `[attempt, timeoutMs, delayMs]`: read once per
   * admission by the loop (each getter below re-checks the view).
   */
  view(): Float64Array {
    return this.#area();
  }

  #area(): Float64Array {
    let view = this.#view;
    // A grown memory detaches old views (their length reads 0).
    if (view === undefined || view.length === 0) {
      const memory = wasmMemory() as WebAssembly.Memory;
      view = new Float64Array(memory.buffer, this.#core.planArea(), 3);
      this.#view = view;
    }
    return view;
  }

  /** The last admitted attempt's number, 0 if the last admission refused. */
  get attempt(): number {
    return this.#area()[0] as number;
  }

  /** The last admitted attempt's timeout in ms, -1 if unbounded. */
  get timeoutMs(): number {
    return this.#area()[1] as number;
  }

  /** The last decision's delay in ms if it was a retry, else -1. */
  get delayMs(): number {
    return this.#area()[2] as number;
  }
}
