/**
 * What a page's refused cross-origin request looks like. A browser reports
 * a request its CORS check refused with the same `TypeError` as a network
 * failure ("Failed to fetch") and tells the page nothing more, so the
 * engine can only treat it as a failure that may have been applied. The
 * observation should not leave the reader guessing: when the request went
 * to another origin from a page, its detail says that a CORS refusal looks
 * the same, and, when stoic added the key header (which makes the browser
 * ask the API first), what the API must allow.
 */

/**
 * The words to add to the detail of a request to `url` that failed without
 * a response, or `''` outside a page or for a same-origin request.
 * `keyHeader` is the key header's name when the request carries it.
 */
export function refusedCrossOriginHint(url: URL, keyHeader: string | undefined): string {
  const origin = (globalThis as { location?: { origin?: unknown } }).location?.origin;
  // Node, workerd and Deno (without --location) have no page, and so no CORS.
  if (typeof origin !== 'string' || origin === 'null' || origin === url.origin) return '';
  const allow =
    keyHeader === undefined
      ? 'the API must allow this origin and the headers sent'
      : `the API must allow this origin and list ${keyHeader} in Access-Control-Allow-Headers, or pass createFetch({ keys: false })`;
  return `; a cross-origin request the browser refused (CORS) fails the same way: ${allow}`;
}
