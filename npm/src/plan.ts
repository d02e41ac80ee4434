/**
 * The last admission's attempt number and timeout, and the last decision's
 * delay, read from the module's memory (`CorePolicy.planArea`) instead of
 * by one more call per attempt.
 * @internal
 */
import { wasmMemory, type CorePolicy } from './wasm/stoic_wasm.js';
import { Abi } from './abi.generated.js';

export class PlanArea {
  readonly #core: CorePolicy;
  #view: Float64Array | undefined;

  constructor(core: CorePolicy) {
    this.#core = core;
  }

  /**
   * The area, indexed by `PLAN_ATTEMPT`, `PLAN_TIMEOUT_MS` and `PLAN_DELAY_MS`: the loop
   * takes it once per admission and reads both of the admission's figures.
   */
  view(): Float64Array {
    let view = this.#view;
    // A grown memory detaches old views (their length reads 0).
    if (view === undefined || view.length === 0) {
      const memory = wasmMemory() as WebAssembly.Memory;
      view = new Float64Array(memory.buffer, this.#core.planArea(), Abi.PLAN_SLOTS);
      this.#view = view;
    }
    return view;
  }

  /** The last decision's delay in ms if it was a retry, else -1. */
  get delayMs(): number {
    return this.view()[Abi.PLAN_DELAY_MS] as number;
  }
}
