/**
 * Text for the module goes through the policy's text area: the host writes
 * UTF-8 into the module's memory with `TextEncoder.encodeInto` and passes
 * byte lengths. That costs about 0.1 us per string (short ASCII text is
 * copied by hand, several times faster), where the glue's string path
 * copies about 20 ns per character and `TextEncoder.encode` allocates
 * (about 0.6 us even for a short string in Node 20).
 * @internal
 */
import { wasmMemory, type CorePolicy } from './wasm/stoic_wasm.js';
import { Abi } from './abi.generated.js';
import { invalidValue } from './guard.js';

const encoder = new TextEncoder();

/** The longest text copied by hand when it is ASCII; longer goes to `encodeInto`. */
const ASCII_COPY_MAX = 256;

export class TextArea {
  readonly #core: CorePolicy;
  #view: Uint8Array | undefined;
  /** Byte lengths of the texts of the last `write` (`ABSENT_TEXT`: absent). */
  a: number = Abi.ABSENT_TEXT;
  b: number = Abi.ABSENT_TEXT;
  c: number = Abi.ABSENT_TEXT;

  constructor(core: CorePolicy) {
    this.#core = core;
  }

  #area(): Uint8Array {
    let view = this.#view;
    // A grown memory detaches old views (their length reads 0).
    if (view === undefined || view.length === 0) {
      const memory = wasmMemory() as WebAssembly.Memory;
      view = new Uint8Array(memory.buffer, this.#core.textArea(), this.#core.textCapacity());
      this.#view = view;
    }
    return view;
  }

  /** Writes up to three texts one after another; their lengths land in `a`, `b`, `c`. */
  write(a?: string, b?: string, c?: string): this {
    for (;;) {
      // No closure per call: this runs on every failed attempt.
      const view = this.#area();
      this.#at = 0;
      this.#fits = true;
      this.a = this.#put(view, a);
      this.b = this.#put(view, b);
      this.c = this.#put(view, c);
      if (this.#fits) return this;
      // The area grows no further: asking again would never end.
      if (view.length >= Abi.TEXT_AREA_MAX) throw tooLong();
      const need = 3 * ((a?.length ?? 0) + (b?.length ?? 0) + (c?.length ?? 0)) + 16;
      this.#core.reserveText(need);
      this.#view = undefined;
    }
  }

  #at = 0;
  #fits = true;

  /** Appends `text` at `#at`; its byte length, or `ABSENT_TEXT` if absent or out of room. */
  #put(view: Uint8Array, text: string | undefined): number {
    if (text === undefined || !this.#fits) return Abi.ABSENT_TEXT;
    const at = this.#at;
    // Short ASCII text (operation names, most error messages) is copied by
    // hand, which is cheaper than a call into `encodeInto` for a few bytes.
    const n = text.length;
    if (n <= ASCII_COPY_MAX && at + n <= view.length) {
      let i = 0;
      for (; i < n; i++) {
        const code = text.charCodeAt(i);
        if (code >= 0x80) break;
        view[at + i] = code;
      }
      if (i === n) {
        this.#at = at + n;
        return n;
      }
    }
    const { read, written } = encoder.encodeInto(text, at === 0 ? view : view.subarray(at));
    if (read < text.length) this.#fits = false;
    this.#at = at + written;
    return written;
  }
}

/** Texts for one call beyond what the module reads at once (16 MiB of UTF-8). */
function tooLong(): TypeError {
  return invalidValue(`a call's texts are more than the ${Abi.TEXT_AREA_MAX >> 20} MiB the engine reads at once`, 'text');
}
