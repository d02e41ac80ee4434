// @ts-check
/** The summary table: the run's numbers, each row a question a policy answers. */

/** @param {number | null} ms */
const seconds = (ms) => (ms === null ? '–' : `${(ms / 1000).toFixed(3)} s`);

/**
 * Rows of [label, value], from `simulate()`'s summary.
 * @param {ReturnType<typeof import('./scenario.js').simulate>['summary']} s
 * @param {string} method
 */
export function rows(s, method) {
  const endings = Object.entries(s.endings)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  return [
    ['calls', String(s.calls)],
    ['attempts sent', String(s.attempts)],
    ['attempts per call (mean / most)', `${s.attemptsPerCall} / ${s.maxAttemptsInACall}`],
    ['success rate', `${(s.successRate * 100).toFixed(1)} % (${s.succeeded} of ${s.calls})`],
    ['time to success (p50 / p95 / max)', `${seconds(s.timeToSuccessMs.p50)} / ${seconds(s.timeToSuccessMs.p95)} / ${seconds(s.timeToSuccessMs.max)}`],
    ['how calls ended', endings],
    ['writes applied at the server', method === 'POST' ? String(s.writesApplied) : '– (reads)'],
    ['duplicates at the server', method === 'POST' ? String(s.duplicates) : '– (reads)'],
    ['peak load / capacity', `${s.peakLoadPerS} / ${s.capacityPerS} attempts/s`],
    ['breaker opened', `${s.breakerOpened} time${s.breakerOpened === 1 ? '' : 's'}`],
    ['virtual time', seconds(s.virtualMs)],
  ];
}

/**
 * @param {HTMLTableElement} table
 * @param {[string, string][]} data
 */
export function fill(table, data) {
  const body = document.createElement('tbody');
  for (const [label, value] of data) {
    const row = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = label;
    row.append(th);
    row.insertCell().textContent = value;
  }
  table.replaceChildren(body);
}
