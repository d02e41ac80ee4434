// @ts-check
/**
 * The charts, as SVG text (no chart library: three kinds of marks do not
 * earn one's bytes). Colours come from classes in style.css, not inline
 * styles, so the page needs no 'unsafe-inline' in its CSP.
 */

const WIDTH = 920;
const LEFT = 44;
const RIGHT = 12;
const PLOT = WIDTH - LEFT - RIGHT;

/** @param {string} text */
function esc(text) {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

/** @param {number} n */
const f1 = (n) => (Math.round(n * 10) / 10).toString();

/** Seconds ticks along the x axis. @param {number} endMs @param {number} y @param {(ms: number) => number} x */
function timeAxis(endMs, y, x) {
  const seconds = endMs / 1000;
  const step = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600].find((s) => seconds / s <= 12) ?? 1200;
  let out = `<line class="axis" x1="${LEFT}" y1="${y}" x2="${WIDTH - RIGHT}" y2="${y}"/>`;
  for (let s = 0; s <= seconds; s += step) {
    const px = f1(x(s * 1000));
    out += `<line class="axis" x1="${px}" y1="${y}" x2="${px}" y2="${y + 4}"/><text class="tick" x="${px}" y="${y + 15}" text-anchor="middle">${s} s</text>`;
  }
  return out;
}

/** @param {number} endMs */
function xScale(endMs) {
  const span = Math.max(endMs, 1);
  return (/** @type {number} */ ms) => LEFT + (ms / span) * PLOT;
}

/**
 * One lane per client, one mark per attempt: a bar from when it was sent to
 * when its answer (or its timeout) came, coloured by what happened.
 * @param {{ endMs: number, scenario: Record<string, any>, attempts: { client: number, call: number, attempt: number, start: number, end: number, label: string }[] }} run
 */
export function timeline(run) {
  const lanes = run.scenario.clients;
  const lane = Math.max(4, Math.min(16, Math.floor(420 / lanes)));
  const height = lanes * lane + 30;
  const x = xScale(run.endMs);
  // The waits between a call's attempts (the backoff or the server's hint),
  // as thin lines under the marks: where the schedule comes from.
  let waits = '';
  /** @type {Map<string, { end: number }>} */
  const previous = new Map();
  for (const a of run.attempts) {
    const id = `${a.client}:${a.call}`;
    const before = previous.get(id);
    if (before) {
      const y = a.client * lane + lane / 2;
      waits += `<line class="wait" x1="${f1(x(before.end))}" y1="${y}" x2="${f1(x(a.start))}" y2="${y}"/>`;
    }
    previous.set(id, a);
  }
  let marks = '';
  for (const a of run.attempts) {
    const x0 = x(a.start);
    const w = Math.max(2, x(a.end) - x0);
    const y = a.client * lane + 1;
    const tip = `client ${a.client}, call ${a.call}, attempt ${a.attempt}: ${a.label}, sent at ${(a.start / 1000).toFixed(3)} s, ${a.end - a.start} ms`;
    marks += `<rect class="mark k-${a.label.replace(/\W+/g, '-')}" data-attempt="" x="${f1(x0)}" y="${y}" width="${f1(w)}" height="${lane - 2}"><title>${esc(tip)}</title></rect>`;
  }
  const labelEvery = Math.ceil(lanes / 10);
  let labels = '';
  for (let c = 0; c < lanes; c += labelEvery) labels += `<text class="tick" x="${LEFT - 4}" y="${c * lane + lane - 2}" text-anchor="end">${c}</text>`;
  return svg('timeline', height, `Attempts per client over virtual time (${run.attempts.length} attempts)`, labels + waits + marks + timeAxis(run.endMs, lanes * lane + 4, x));
}

/**
 * Attempts arriving at the server each second, against its capacity.
 * @param {{ endMs: number, load: number[], scenario: Record<string, any> }} run
 */
export function load(run) {
  const h = 140;
  const top = Math.max(run.scenario.capacityPerS, ...run.load, 1) * 1.1;
  const y = (/** @type {number} */ v) => h - (v / top) * h;
  const x = xScale(Math.max(run.endMs, run.load.length * 1000));
  let bars = '';
  run.load.forEach((n, second) => {
    const x0 = x(second * 1000);
    bars += `<rect class="bar${n > run.scenario.capacityPerS ? ' over' : ''}" x="${f1(x0 + 1)}" y="${f1(y(n))}" width="${f1(Math.max(1, x((second + 1) * 1000) - x0 - 2))}" height="${f1(h - y(n))}"><title>${second}-${second + 1} s: ${n} attempts</title></rect>`;
  });
  const cap = f1(y(run.scenario.capacityPerS));
  const capacity = `<line class="capacity" x1="${LEFT}" y1="${cap}" x2="${WIDTH - RIGHT}" y2="${cap}"/><text class="tick" x="${WIDTH - RIGHT}" y="${Number(cap) - 4}" text-anchor="end">capacity ${run.scenario.capacityPerS}/s</text>`;
  const scale = `<text class="tick" x="${LEFT - 4}" y="10" text-anchor="end">${Math.round(top)}</text><text class="tick" x="${LEFT - 4}" y="${h}" text-anchor="end">0</text>`;
  return svg('load', h + 24, 'Attempts arriving at the server per second, against its capacity', bars + capacity + scale + timeAxis(Math.max(run.endMs, run.load.length * 1000), h, x));
}

/**
 * The breaker's state (a band) and the ratio budget's balance (the retries
 * its ratio allows in the window minus those made: a step line), sampled
 * after every event of the run.
 * @param {{ endMs: number, breaker: { t: number, state: string }[], budget: { t: number, balance: number }[] }} run
 */
export function health(run) {
  const x = xScale(run.endMs);
  const band = 18;
  let out = `<text class="tick" x="${LEFT - 4}" y="${band - 5}" text-anchor="end">breaker</text>`;
  run.breaker.forEach((b, i) => {
    const end = run.breaker[i + 1]?.t ?? run.endMs;
    out += `<rect class="state s-${b.state}" x="${f1(x(b.t))}" y="0" width="${f1(Math.max(1, x(end) - x(b.t)))}" height="${band}"><title>${b.state} from ${(b.t / 1000).toFixed(3)} s</title></rect>`;
  });
  const h = 100;
  const top0 = band + 12;
  const max = Math.max(1, ...run.budget.map((b) => b.balance));
  const min = Math.min(0, ...run.budget.map((b) => b.balance));
  const y = (/** @type {number} */ v) => top0 + h - ((v - min) / (max - min)) * h;
  let d = '';
  run.budget.forEach((b, i) => {
    const next = run.budget[i + 1]?.t ?? run.endMs;
    d += `${i === 0 ? 'M' : 'L'}${f1(x(b.t))},${f1(y(b.balance))}L${f1(x(next))},${f1(y(b.balance))}`;
  });
  out += `<path class="budget" d="${d}"/>`;
  out += `<text class="tick" x="${LEFT - 4}" y="${top0 + 8}" text-anchor="end">${max}</text><text class="tick" x="${LEFT - 4}" y="${top0 + h}" text-anchor="end">${min}</text>`;
  out += `<line class="axis zero" x1="${LEFT}" y1="${f1(y(0))}" x2="${WIDTH - RIGHT}" y2="${f1(y(0))}"/>`;
  return svg('health', top0 + h + 24, "The breaker's state, and the ratio budget's balance (maxRetries minus retries)", out + timeAxis(run.endMs, top0 + h, x));
}

/** @param {string} name @param {number} height @param {string} title @param {string} body */
function svg(name, height, title, body) {
  return `<svg class="chart ${name}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${esc(title)}" xmlns="http://www.w3.org/2000/svg"><title>${esc(title)}</title>${body}</svg>`;
}
