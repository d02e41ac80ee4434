// @ts-check
/**
 * "Copy as code": the policy on the page as a JavaScript and a Python
 * config. Both come from the engine's resolved config (every default
 * filled in), minus what equals the engine's defaults, so the code says
 * only what was changed.
 *
 * The package writes configs in the JavaScript dialect only (camelCase
 * keys, integer milliseconds under `...Ms` keys); it has no writer for
 * Python's (snake_case, float seconds under the key without the unit). The
 * Python text is therefore mapped here, by the rule the core's dialects
 * follow: a `...Ms` key loses its suffix and its value becomes seconds,
 * every key becomes snake_case, codes inside the config (`full_jitter`, the
 * statuses of `classify.status`) stay as they are.
 */

/** @param {unknown} v @returns {v is Record<string, any>} */
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What `resolved` changes from `defaults`, recursively. A tagged union (an
 * object with a `kind`, such as a trip rule) is kept whole: the engine
 * needs its kind with its fields. The seed is left out: a fixed seed is for
 * a repeatable run, and in production every process should draw its own.
 * @param {Record<string, any>} resolved
 * @param {Record<string, any>} defaults
 * @returns {Record<string, any>}
 */
export function changes(resolved, defaults, top = true) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const [key, value] of Object.entries(resolved)) {
    if (top && (key === 'seed' || key === 'version')) continue;
    const base = defaults?.[key];
    if (JSON.stringify(value) === JSON.stringify(base)) continue;
    if (isObject(value) && isObject(base) && !('kind' in value)) {
      out[key] = changes(value, base, false);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** @param {Record<string, any>} config */
export function jsCode(config) {
  const body = Object.keys(config).length === 0 ? '' : js(config, 0);
  return `import { Policy } from 'stoic';\n\nconst policy = new Policy(${body});\n`;
}

/** @param {unknown} value @param {number} depth @returns {string} */
function js(value, depth) {
  if (!isObject(value)) return JSON.stringify(value);
  const pad = '  '.repeat(depth + 1);
  const entries = Object.entries(value).map(([k, v]) => `${pad}${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${js(v, depth + 1)},`);
  return entries.length === 0 ? '{}' : `{\n${entries.join('\n')}\n${'  '.repeat(depth)}}`;
}

/** `maxDelayMs` -> `max_delay`. @param {string} key */
const snake = (key) => key.replace(/Ms$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Maps whose keys are codes, not field names: kept as written. */
const CODE_KEYED = new Set(['classify.status', 'classify.network']);

/** @param {Record<string, any>} config */
export function pythonCode(config) {
  const args = Object.entries(config).map(([k, v]) => `    ${snake(k)}=${py(v, 1, k, k.endsWith('Ms'))},`);
  const call = args.length === 0 ? 'stoic.Policy()' : `stoic.Policy(\n${args.join('\n')}\n)`;
  return `import stoic\n\npolicy = ${call}\n`;
}

/**
 * @param {unknown} value @param {number} depth @param {string} path
 * @param {boolean} seconds the key was a `...Ms` duration
 * @returns {string}
 */
function py(value, depth, path, seconds) {
  if (value === null) return 'None';
  if (value === true || value === false) return value ? 'True' : 'False';
  if (typeof value === 'number') {
    if (!seconds) return String(value);
    const s = value / 1000;
    return Number.isInteger(s) ? `${s}.0` : String(s);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => py(v, depth, path, false)).join(', ')}]`;
  if (!isObject(value)) return JSON.stringify(value);
  const pad = '    '.repeat(depth + 1);
  const codes = CODE_KEYED.has(path);
  const entries = Object.entries(value).map(([k, v]) => {
    const key = codes ? (/^\d+$/.test(k) ? k : JSON.stringify(k)) : JSON.stringify(snake(k));
    return `${pad}${key}: ${py(v, depth + 1, `${path}.${k}`, !codes && k.endsWith('Ms'))},`;
  });
  return entries.length === 0 ? '{}' : `{\n${entries.join('\n')}\n${'    '.repeat(depth)}}`;
}
