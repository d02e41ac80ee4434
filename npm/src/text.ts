/**
 * Text for the module goes through the policy's text area: the host writes
 * UTF-8 into the module's memory with `TextEncoder.encodeInto` and passes
 * byte lengths. That costs tens of nanoseconds, where the glue's string
 * path copies about 20 ns per character and `TextEncoder.encode` allocates
 * (about 0.6 us even for a short string in Node 20).
 * @internal
 */
import { wasmMemory, type CorePolicy } from './core.js';

const encoder = new TextEncoder();

export class TextArea {
  readonly #core: CorePolicy;
  #view: Uint8Array | undefined;
  /** Byte lengths of the texts of the last `write` (-1: absent). */
  a = -1;
  b = -1;
  c = -1;

  constructor(core: CorePolicy) {
    this.#core = core;
  }

  #area(): Uint8Array {
    let view = this.#view;
    // A grown memory detaches old views (their length reads 0).
    if (view === undefined || view.byteLength === 0) {
      const memory = wasmMemory() as WebAssembly.Memory;
      view = new Uint8Array(memory.buffer, this.#core.textArea(), this.#core.textCapacity());
      this.#view = view;
    }
    return view;
  }

  /** Writes up to three texts one after another; their lengths land in `a`, `b`, `c`. */
  write(a?: string, b?: string, c?: string): this {
    for (;;) {
      const view = this.#area();
      let at = 0;
      let fits = true;
      const put = (text: string | undefined): number => {
        if (text === undefined || !fits) return -1;
        const { read, written } = encoder.encodeInto(text, at === 0 ? view : view.subarray(at));
        if (read < text.length) fits = false;
        at += written;
        return written;
      };
      this.a = put(a);
      this.b = put(b);
      this.c = put(c);
      if (fits) return this;
      const need = 3 * ((a?.length ?? 0) + (b?.length ?? 0) + (c?.length ?? 0)) + 16;
      this.#core.reserveText(need);
      this.#view = undefined;
    }
  }
}
