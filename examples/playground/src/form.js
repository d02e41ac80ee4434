// @ts-check
/**
 * The policy form: its fields, the config they make, and the engine's
 * errors shown at the field they name. The page does not check values
 * itself: what the user types goes to the engine as typed (text stays
 * text), so every message on the page is the engine's own.
 */

/**
 * The fields, by their path in the JavaScript dialect of the config (the
 * spelling the engine's `ConfigError.field` uses). `toggle` fields are
 * checkboxes that turn a part off (`null`); `options` fields are selects.
 * `boolean` selects send `true`/`false`, not their text.
 * @type {{ path: string, label: string, group: string, options?: string[], boolean?: boolean, toggle?: boolean, help?: string }[]}
 */
export const FIELDS = [
  { group: 'Attempts and backoff', path: 'maxAttempts', label: 'attempts (the first included)' },
  {
    group: 'Attempts and backoff',
    path: 'backoff.strategy',
    label: 'strategy',
    options: ['full_jitter', 'equal_jitter', 'decorrelated_jitter', 'exponential', 'linear', 'constant', 'none'],
  },
  { group: 'Attempts and backoff', path: 'backoff.baseMs', label: 'base (ms)' },
  { group: 'Attempts and backoff', path: 'backoff.capMs', label: 'cap (ms)' },
  { group: 'Attempts and backoff', path: 'backoff.multiplier', label: 'multiplier' },
  { group: 'Deadlines', path: 'timeouts.readMs', label: 'per attempt (ms, "none" for none)' },
  { group: 'Deadlines', path: 'timeouts.totalMs', label: 'whole call (ms, "none" for none)' },
  { group: 'Server hints', path: 'hints.respect', label: 'follow Retry-After and friends', options: ['true', 'false'], boolean: true },
  { group: 'Server hints', path: 'hints.maxDelayMs', label: 'longest hint followed (ms)' },
  {
    group: 'Safety',
    path: 'classify.ambiguous',
    label: 'retry a failure that may have applied',
    options: ['if_idempotent', 'always', 'never'],
    help: 'if_idempotent: only reads, or writes with a key. always: the unsafe switch.',
  },
  { group: 'Circuit breaker', path: 'breaker', label: 'on', toggle: true },
  { group: 'Circuit breaker', path: 'breaker.trip.threshold', label: 'opens after N failures in a row' },
  { group: 'Circuit breaker', path: 'breaker.cooldownMs', label: 'stays open for (ms)' },
  { group: 'Circuit breaker', path: 'breaker.halfOpen.successThreshold', label: 'probes to close' },
  { group: 'Retry budget', path: 'budget.ratio', label: 'on', toggle: true },
  { group: 'Retry budget', path: 'budget.ratio.ratio', label: 'retries per first attempt' },
  { group: 'Retry budget', path: 'budget.ratio.minRetriesPerSec', label: 'floor (retries/s)' },
  { group: 'Retry budget', path: 'budget.ratio.minConcurrentRetries', label: 'retries always allowed at once' },
  { group: 'Retry budget', path: 'budget.ratio.windowMs', label: 'window (ms)' },
];

/** The id of a field's input, from its path. @param {string} path */
export const inputId = (path) => `f-${path.replaceAll('.', '-')}`;

/** @param {any} object @param {string} path */
export function getPath(object, path) {
  return path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), object);
}

/** @param {Record<string, any>} object @param {string} path @param {unknown} value */
function setPath(object, path, value) {
  const keys = path.split('.');
  let o = object;
  for (const k of keys.slice(0, -1)) {
    if (o[k] == null || typeof o[k] !== 'object') o[k] = {};
    o = o[k];
  }
  o[keys[keys.length - 1]] = value;
}

/**
 * A typed value as the engine should see it: a number when it reads as
 * one, `null` for "none", `true`/`false`, else the text itself (which the
 * engine refuses with `wrong_type`, at this field).
 * @param {string} text
 */
export function parseValue(text) {
  const t = text.trim();
  if (/^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  if (t === 'none' || t === 'null') return null;
  if (t === 'true' || t === 'false') return t === 'true';
  return text;
}

/** A default as the form shows it. @param {unknown} value */
function shown(value) {
  return value === null ? 'none' : String(value);
}

/**
 * Builds the form inside `root` with the engine's defaults (its resolved
 * config) as the values.
 * @param {HTMLElement} root
 * @param {Record<string, any>} defaults
 */
export function buildForm(root, defaults) {
  /** @type {Map<string, HTMLFieldSetElement>} */
  const groups = new Map();
  for (const field of FIELDS) {
    let set = groups.get(field.group);
    if (!set) {
      set = document.createElement('fieldset');
      const legend = document.createElement('legend');
      legend.textContent = field.group;
      set.append(legend);
      root.append(set);
      groups.set(field.group, set);
    }
    const row = document.createElement('div');
    row.className = 'field';
    row.dataset.path = field.path;
    const label = document.createElement('label');
    label.htmlFor = inputId(field.path);
    label.textContent = field.label;
    /** @type {HTMLInputElement | HTMLSelectElement} */
    let input;
    const value = getPath(defaults, field.path);
    if (field.toggle) {
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = value !== null;
      input = box;
    } else if (field.options) {
      const select = document.createElement('select');
      for (const option of field.options) select.append(new Option(option, option));
      select.value = shown(value);
      input = select;
    } else {
      const text = document.createElement('input');
      text.type = 'text';
      text.inputMode = 'decimal';
      text.value = shown(value);
      text.placeholder = shown(value);
      input = text;
    }
    input.id = inputId(field.path);
    input.name = field.path;
    const error = document.createElement('div');
    error.className = 'error';
    error.id = `${input.id}-error`;
    error.setAttribute('role', 'alert');
    input.setAttribute('aria-describedby', error.id);
    row.append(label, input, error);
    if (field.help) {
      const help = document.createElement('div');
      help.className = 'help';
      help.textContent = field.help;
      row.append(help);
    }
    set.append(row);
  }
}

/**
 * The config the form says, in the JavaScript dialect. A part turned off
 * is `null`, and its fields are left out; an empty field is left out (the
 * engine's default).
 * @param {HTMLElement} root
 */
export function readForm(root) {
  /** @type {Record<string, any>} */
  const config = {};
  const off = new Set();
  for (const field of FIELDS) {
    const input = /** @type {HTMLInputElement} */ (root.querySelector(`#${inputId(field.path)}`));
    if ([...off].some((p) => field.path.startsWith(`${p}.`))) continue;
    if (field.toggle) {
      if (!input.checked) {
        off.add(field.path);
        setPath(config, field.path, null);
      }
      continue;
    }
    if (input.value.trim() === '') continue;
    setPath(config, field.path, field.options && !field.boolean ? input.value : parseValue(input.value));
    // A trip rule is a tagged union: its kind comes with its threshold.
    if (field.path === 'breaker.trip.threshold') setPath(config, 'breaker.trip.kind', 'consecutive_failures');
  }
  return config;
}

/**
 * Shows each of the engine's problems at the field it names (or the
 * nearest enclosing field the form has; else in `general`), and clears
 * the rest.
 * @param {HTMLElement} root
 * @param {HTMLElement} general
 * @param {{ code: string | null, field: string | null, message: string, problems: { code: string, field: string, message: string }[] } | null} error
 */
export function showErrors(root, general, error) {
  for (const node of root.querySelectorAll('.field')) {
    const row = /** @type {HTMLElement} */ (node);
    row.classList.remove('invalid');
    /** @type {HTMLElement} */ (row.querySelector('.error')).textContent = '';
    row.querySelector('input, select')?.removeAttribute('aria-invalid');
  }
  general.textContent = '';
  if (error === null) return;
  const problems = error.problems.length > 0 ? error.problems : [{ code: error.code ?? '', field: error.field ?? '', message: error.message }];
  for (const problem of problems) {
    const row = fieldRow(root, problem.field);
    if (row === null) {
      general.textContent += `${problem.field ? `${problem.field}: ` : ''}${problem.message} (${problem.code})\n`;
      continue;
    }
    row.classList.add('invalid');
    row.querySelector('input, select')?.setAttribute('aria-invalid', 'true');
    const where = /** @type {HTMLElement} */ (row.querySelector('.error'));
    const prefix = row.dataset.path === problem.field ? '' : `${problem.field}: `;
    where.textContent += `${prefix}${problem.message} (${problem.code})`;
  }
}

/** @param {HTMLElement} root @param {string} field */
function fieldRow(root, field) {
  for (let path = field; path; path = path.slice(0, Math.max(0, path.lastIndexOf('.')))) {
    const row = root.querySelector(`.field[data-path="${CSS.escape(path)}"]`);
    if (row) return /** @type {HTMLElement} */ (row);
    if (!path.includes('.')) break;
  }
  return null;
}
