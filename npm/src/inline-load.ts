/**
 * What both inline entries do at import: decode the module that travels
 * inside the JavaScript as base64 and compile it synchronously (so the entry
 * needs no top-level await and works from a classic script or an IIFE
 * bundle too).
 */
import { markLoaded } from './loaded.js';

/** Decodes `wasmBase64` and hands the bytes to the glue's `initSync`. */
export function loadInline(wasmBase64: string, initSync: (options: { module: Uint8Array }) => unknown): void {
  initSync({ module: decode(wasmBase64) });
  markLoaded();
}

function decode(text: string): Uint8Array {
  const fromBase64 = (Uint8Array as { fromBase64?: (s: string) => Uint8Array }).fromBase64;
  if (fromBase64 !== undefined) return fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
