// axe-core on a page: fails on serious or critical violations. Every journey's accessibility check,
// those of the app server's fixtures and those of pages served without it.
import { expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeRunner {
  run(context: Document, options: { resultTypes: string[] }): Promise<{ violations: Violation[] }>;
}

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core on the page and fails on serious or critical violations. */
export async function expectNoSeriousA11yViolations(page: Page): Promise<void> {
  // Once per document: a page checked several times between navigations keeps its axe.
  if (!(await page.evaluate(() => 'axe' in window)))
    await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: AxeRunner }).axe;
    // A colour transition under way (a button turning from one style to another) is measured
    // half-way by axe: let the finite ones end first, at most 1 s (spinners never end).
    const finite = document.getAnimations().filter((a) => {
      const end = a.effect?.getComputedTiming().endTime;
      return typeof end === 'number' && Number.isFinite(end);
    });
    await Promise.race([
      Promise.all(finite.map((a) => a.finished.catch(() => undefined))),
      new Promise((resolve) => setTimeout(resolve, 1_000)),
    ]);
    // Only the violations are aggregated (the passes and the rules that did not apply are
    // not wanted here): every rule still runs on every node, so the violations are the same.
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.impact}: ${v.id} ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      );
  });
  expect(violations, 'serious or critical accessibility violations').toEqual([]);
}
