// @ts-check
/**
 * The page: wires the forms to the engine (in the Worker) and draws what a
 * run returns. This thread loads no WebAssembly; every decision, check and
 * default comes from the Worker.
 */
import { buildForm, FIELDS, inputId, readForm, showErrors } from './form.js';
import { COMMON, SCENARIOS } from './scenario.js';
import { changes, jsCode, pythonCode } from './code.js';
import { health, load, timeline } from './charts.js';
import { fill, rows } from './summary.js';

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const LOG_LINES_SHOWN = 400;

const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
let nextId = 0;
/** @type {Map<number, (answer: any) => void>} */
const pending = new Map();
/** @type {(value?: unknown) => void} */
let workerReady = () => {};
const ready = new Promise((resolve) => {
  workerReady = resolve;
});
worker.onmessage = (/** @type {MessageEvent} */ { data }) => {
  if (data.type === 'ready') return workerReady();
  pending.get(data.id)?.(data);
  pending.delete(data.id);
};
worker.onerror = (/** @type {ErrorEvent} */ event) => {
  $('status').textContent = `The engine's worker failed: ${event.message}`;
  document.body.dataset.state = 'failed';
};

/** @param {string} type @param {Record<string, unknown>} [payload] @returns {Promise<any>} */
function ask(type, payload = {}) {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    worker.postMessage({ id, type, ...payload });
  });
}

const policyForm = /** @type {HTMLFormElement} */ ($('policy'));
const scenarioForm = /** @type {HTMLFormElement} */ ($('scenario'));
const kindSelect = /** @type {HTMLSelectElement} */ ($('scenario-kind'));
const runButton = /** @type {HTMLButtonElement} */ ($('run'));

/** @type {Record<string, any>} */
let defaults = {};
/** The last config the engine accepted, or null while the form is invalid. */
let accepted = /** @type {Record<string, any> | null} */ (null);
let checks = 0;
/** @type {{ config: Record<string, any>, scenario: Record<string, any> }} */
let lastRun = { config: {}, scenario: {} };

/** Checks the form's config with the engine; the latest answer wins. */
async function check() {
  const mine = ++checks;
  const config = readForm(policyForm);
  const answer = await ask('validate', { config });
  if (mine !== checks) return;
  showErrors(policyForm, $('policy-error'), answer.ok ? null : answer.error);
  accepted = answer.ok ? config : null;
  updateRunnable();
  if (answer.ok) {
    const changed = changes(answer.resolved, defaults);
    $('code-js').textContent = jsCode(changed);
    $('code-py').textContent = pythonCode(changed);
  }
}

/** Disables the fields of a part turned off, so what is sent is what is shown. */
function syncToggles() {
  for (const field of FIELDS.filter((f) => f.toggle)) {
    const on = /** @type {HTMLInputElement} */ ($(inputId(field.path))).checked;
    for (const child of FIELDS.filter((f) => f.path.startsWith(`${field.path}.`))) {
      /** @type {HTMLInputElement} */ ($(inputId(child.path))).disabled = !on;
    }
  }
}

/** The scenario's parameter fields: the shared ones, then the kind's own. */
function buildScenarioParams() {
  const spec = SCENARIOS[kindSelect.value];
  const box = $('scenario-params');
  box.replaceChildren();
  for (const [name, param] of Object.entries({ ...COMMON, ...spec.params })) {
    const row = document.createElement('div');
    row.className = 'field';
    const label = document.createElement('label');
    label.htmlFor = `s-${name}`;
    label.textContent = param.label;
    /** @type {HTMLInputElement | HTMLSelectElement} */
    let input;
    if (param.options) {
      input = document.createElement('select');
      for (const [value, text] of Object.entries(param.options)) input.append(new Option(text, value));
    } else {
      input = document.createElement('input');
      input.type = 'text';
      input.inputMode = 'decimal';
    }
    input.id = `s-${name}`;
    input.name = name;
    input.value = String(param.value);
    row.append(label, input);
    box.append(row);
  }
}

/** The scenario the form says; null (and a message) when a value is not a number ≥ 0. */
function readScenario() {
  /** @type {Record<string, any>} */
  const scenario = { kind: kindSelect.value };
  const problems = [];
  for (const input of /** @type {NodeListOf<HTMLInputElement>} */ ($('scenario-params').querySelectorAll('input, select'))) {
    const value = Number(input.value);
    if (input.value.trim() === '' || !Number.isFinite(value) || value < 0) problems.push(`${input.name}: a number from 0, got "${input.value}"`);
    scenario[input.name] = value;
  }
  // Bounds that keep a run to a second or so, and a timeline one can read.
  for (const name of ['clients', 'calls', 'seed']) {
    if (!Number.isInteger(scenario[name])) problems.push(`${name}: a whole number`);
  }
  if (!(scenario.clients >= 1 && scenario.clients <= 200)) problems.push('clients: from 1 to 200');
  if (!(scenario.calls >= 1 && scenario.clients * scenario.calls <= 20_000)) problems.push('calls: at least 1, and at most 20,000 calls in all');
  if (!(scenario.intervalMs >= 1)) problems.push('a client starts a call every: at least 1 ms');
  $('scenario-error').textContent = problems.join('\n');
  return problems.length === 0 ? scenario : null;
}

function updateRunnable() {
  const ok = accepted !== null && readScenario() !== null;
  runButton.disabled = !ok;
  if (document.body.dataset.state !== 'running') document.body.dataset.state = ok ? 'ready' : 'invalid';
}

async function run() {
  const scenario = readScenario();
  if (accepted === null || scenario === null) return;
  document.body.dataset.state = 'running';
  runButton.disabled = true;
  $('status').textContent = 'Running…';
  const started = performance.now();
  lastRun = { config: accepted, scenario };
  const answer = await ask('run', lastRun);
  const roundTrip = performance.now() - started;
  runButton.disabled = false;
  if (!answer.ok) {
    $('status').textContent = `The run failed: ${answer.error.message}`;
    document.body.dataset.state = 'failed';
    return;
  }
  render(answer.result);
  $('status').textContent =
    `${answer.result.summary.attempts} attempts, ${(answer.result.endMs / 1000).toFixed(1)} s of virtual time: ` +
    `simulated in ${answer.elapsedMs.toFixed(0)} ms in the worker, ${roundTrip.toFixed(0)} ms with the page's update` +
    (answer.result.stopped ? ' (stopped at the run limit of 50,000 attempts)' : '');
  $('status').dataset.elapsedMs = String(answer.elapsedMs);
  document.body.dataset.state = 'done';
}

/** @param {ReturnType<typeof import('./scenario.js').simulate>} result */
function render(result) {
  const table = /** @type {HTMLTableElement} */ ($('summary'));
  fill(table, /** @type {[string, string][]} */ (rows(result.summary, result.method)));
  table.dataset.summary = JSON.stringify(result.summary);
  table.dataset.observations = JSON.stringify(result.observations);
  // What was run, exactly: anyone (the test) can run it again elsewhere.
  table.dataset.run = JSON.stringify({ config: lastRun.config, scenario: lastRun.scenario });
  $('timeline').innerHTML = timeline(result);
  $('load').innerHTML = load(result);
  $('health').innerHTML = health(result);
  const said = $('observations');
  said.replaceChildren();
  for (const [reason, text] of Object.entries(result.observations)) {
    const term = document.createElement('dt');
    term.textContent = reason;
    const detail = document.createElement('dd');
    detail.textContent = text;
    said.append(term, detail);
  }
  $('transitions').textContent =
    result.transitions.length === 0
      ? 'No breaker transitions.'
      : result.transitions.map((t) => `${(t.at / 1000).toFixed(3)} s  ${t.from} -> ${t.to}  (${t.reason})`).join('\n');
  const shown = result.logs.slice(0, LOG_LINES_SHOWN).join('\n');
  const more = result.logs.length - LOG_LINES_SHOWN;
  $('logs').textContent = more > 0 ? `${shown}\n… and ${more} more (${result.logs.length} in all)` : shown;
}

/** @param {string} source @param {HTMLButtonElement} button */
async function copy(source, button) {
  const text = $(source).textContent ?? '';
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    // No clipboard (an insecure origin, a denied permission): select it instead.
    getSelection()?.selectAllChildren($(source));
    button.textContent = 'Selected: copy with Ctrl+C';
  }
}

async function main() {
  await ready;
  const answer = await ask('defaults');
  if (!answer.ok) throw new Error(answer.error.message);
  defaults = answer.resolved;
  buildForm(policyForm, defaults);
  for (const [kind, spec] of Object.entries(SCENARIOS)) kindSelect.append(new Option(spec.label, kind));
  buildScenarioParams();
  syncToggles();
  policyForm.addEventListener('input', () => {
    syncToggles();
    void check();
  });
  scenarioForm.addEventListener('input', (event) => {
    if (event.target === kindSelect) buildScenarioParams();
    updateRunnable();
  });
  runButton.addEventListener('click', () => void run());
  $('copy-js').addEventListener('click', (e) => void copy('code-js', /** @type {HTMLButtonElement} */ (e.target)));
  $('copy-py').addEventListener('click', (e) => void copy('code-py', /** @type {HTMLButtonElement} */ (e.target)));
  await check();
  await run();
}

main().catch((error) => {
  $('status').textContent = `The page failed to start: ${error.message}`;
  document.body.dataset.state = 'failed';
});
