// The server's answers to the app's first requests, carried in the page itself
// (apps/server/src/http/first-page.ts): each is taken once, by the request for its exact URL, in
// place of a round trip. Only while the page is new: a request made later asks the server.
export const FIRST_DATA_ID = 'first-data';
/** Past this age of the page (ms since it was asked for), its answers are not used any more. */
export const FIRST_DATA_FRESH_MS = 30_000;

let answers: Map<string, unknown> | null = null;

function load(): Map<string, unknown> {
  if (answers) return answers;
  answers = new Map();
  const block = typeof document === 'undefined' ? null : document.getElementById(FIRST_DATA_ID);
  if (!block?.textContent) return answers;
  try {
    const parsed: unknown = JSON.parse(block.textContent);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      for (const [url, body] of Object.entries(parsed)) answers.set(url, body);
  } catch {
    // a page without readable answers: every request goes to the server
  }
  return answers;
}

/** The page's answer to a GET of `url`, once; null when it has none (or is too old to use). */
export function takeFirstAnswer(url: string): { body: unknown } | null {
  const known = load();
  if (!known.has(url)) return null;
  const body = known.get(url);
  known.delete(url);
  if (performance.now() > FIRST_DATA_FRESH_MS) {
    known.clear();
    return null;
  }
  return { body };
}

/** Tests: forget what was read, so a new page's block is read again. */
export function resetFirstData(): void {
  answers = null;
}
