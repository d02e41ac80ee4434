/**
 * Checks at the edge of the module: a value that is not text never reaches a
 * text parameter of the wasm module (the glue would read it as a pointer
 * and trap), and comes back as a `TypeError` with a `code` and the
 * parameter's name, like every other input error of the package.
 * @internal
 */

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function wrongType(name: string, expected: string, value: unknown): TypeError {
  const error = new TypeError(`${name} must be ${expected}, not ${describe(value)}`);
  Object.assign(error, { code: 'wrong_type', field: name });
  return error;
}

/** `value` if it is a string; else a `TypeError` naming `name`. */
export function text(value: unknown, name: string): string {
  if (typeof value === 'string') return value;
  throw wrongType(name, 'a string', value);
}

/** `value` if it is a string, null or undefined. */
export function optionalText(value: unknown, name: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  return text(value, name);
}

/**
 * Snapshot or JSON text: a string as it is, or a plain object already
 * parsed (`await env.KV.get(key, 'json')`) as its JSON text.
 */
export function jsonText(value: unknown, name: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    try {
      const json = JSON.stringify(value);
      if (json !== undefined) return json;
    } catch {
      // A cyclic or BigInt-holding object: reported below.
    }
  }
  throw wrongType(name, 'JSON text or a plain object', value);
}

/** An HTTP status: an integer in 100..=999 (a code outside that is not HTTP). */
export function httpStatus(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 999) return value;
  const error = new RangeError(`status must be an integer HTTP status (100-999), not ${String(value)}`);
  Object.assign(error, { code: 'out_of_range', field: 'status' });
  throw error;
}

/**
 * Refuses option names `known` does not hold: a misspelt option would
 * otherwise be ignored. `call` names the function in the messages, `hint`
 * says where other settings go.
 */
export function knownOptions(options: unknown, known: Set<string>, call: string, hint = ''): void {
  if (typeof options !== 'object' || options === null) throw new TypeError(`${call}: options must be an object`);
  for (const name in options) {
    if (!known.has(name)) {
      const who = call.slice(0, call.indexOf('('));
      const error = new TypeError(`${who}: unknown option "${name}" (known: ${[...known].join(', ')}${hint})`);
      throw Object.assign(error, { code: 'unknown_field', field: name });
    }
  }
}

/** The edit distance of two short names (for "did you mean"). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/**
 * Refuses, in an object that may carry anybody's keys (a `RequestInit`), the
 * names that would silently do nothing: the ones `elsewhere` says belong
 * somewhere else, and near-misses (edit distance <= 2) of the names `own`
 * holds. Names in `others` (the object's own members) always pass.
 */
export function misplacedOptions(
  options: object,
  own: readonly string[],
  others: readonly string[],
  elsewhere: Map<string, string>,
  call: string,
): void {
  for (const name of Object.keys(options)) {
    if (own.includes(name) || others.includes(name)) continue;
    const where = elsewhere.get(name);
    const near = where === undefined ? own.find((o) => distance(o.toLowerCase(), name.toLowerCase()) <= 2) : undefined;
    if (where === undefined && near === undefined) continue;
    const error = new TypeError(
      where !== undefined ? `${call}: "${name}" ${where}` : `${call}: unknown option "${name}" (did you mean "${near}"?)`,
    );
    throw Object.assign(error, { code: 'unknown_field', field: name });
  }
}
