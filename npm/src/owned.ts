/// <reference lib="esnext.disposable" preserve="true" />
import { misuse } from './guard.js';

/**
 * The standalone components own a wasm object each. `free()` (also
 * `[Symbol.dispose]`, so `using breaker = new CircuitBreaker()` works)
 * releases its memory now rather than when the garbage collector gets to
 * it; using the component afterwards throws an `InputError` with
 * `code: 'misuse'` instead of reaching freed memory.
 */
export abstract class Owned {
  #inner: { free(): void } | undefined;

  protected constructor(inner: { free(): void }) {
    this.#inner = inner;
  }

  /** The wasm object, while it lives (each subclass knows its type). */
  protected live<T>(): T {
    if (this.#inner === undefined) throw misuse('this object was freed');
    return this.#inner as T;
  }

  /** Releases the wasm memory now. Freeing twice is harmless. */
  free(): void {
    const inner = this.#inner;
    this.#inner = undefined;
    inner?.free();
  }

  /** The same as `free()`, for `using`. */
  declare [Symbol.dispose]: () => void;
}

/** Adds `[Symbol.dispose]` (as the method that frees, `free` by default) where the runtime has the symbol. */
export function disposable<P extends object>(target: { prototype: P }, free: keyof P = 'free' as keyof P): void {
  const dispose = (Symbol as { dispose?: symbol }).dispose;
  if (dispose !== undefined) {
    Object.defineProperty(target.prototype, dispose, { value: target.prototype[free], configurable: true });
  }
}

disposable(Owned);
