/**
 * Figures the core leaves in its module's memory for the host to read
 * without one more call: the last admission's attempt number and timeout
 * and the last decision's delay (`CorePolicy.planArea`), and a hedged
 * call's last step (`CorePolicy.hedgeArea`).
 * @internal
 */
import { wasmMemory, type CorePolicy } from './wasm/stoic_wasm.js';
import { Abi } from './abi.generated.js';

/** `slots` numbers at the address `locate()` answers, viewed afresh when the memory grows. */
export class NumberArea {
  readonly #locate: () => number;
  readonly #slots: number;
  #view: Float64Array | undefined;

  constructor(locate: () => number, slots: number) {
    this.#locate = locate;
    this.#slots = slots;
  }

  /** The area, indexed by the `Abi` slot constants of its kind. */
  view(): Float64Array {
    let view = this.#view;
    // A grown memory detaches old views (their length reads 0).
    if (view === undefined || view.length === 0) {
      const memory = wasmMemory() as WebAssembly.Memory;
      view = new Float64Array(memory.buffer, this.#locate(), this.#slots);
      this.#view = view;
    }
    return view;
  }
}

/**
 * The plan area, indexed by `PLAN_ATTEMPT`, `PLAN_TIMEOUT_MS` and
 * `PLAN_DELAY_MS`: the loop takes it once per admission and reads both of
 * the admission's figures.
 */
export class PlanArea extends NumberArea {
  constructor(core: CorePolicy) {
    super(() => core.planArea(), Abi.PLAN_SLOTS);
  }

  /** The last decision's delay in ms if it was a retry, else -1. */
  get delayMs(): number {
    return this.view()[Abi.PLAN_DELAY_MS] as number;
  }
}
