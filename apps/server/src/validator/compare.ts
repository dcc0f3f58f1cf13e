// A validator's comparison with an app's ledger (`--compare <app URL>`): the app's
// `GET /api/ledger/<height>` read, checked as hostile input, and each vault whose entry differs
// named with both sides' collateral, debt and status.
import {
  ledgerDifferences,
  ledgerFromJson,
  ledgerDigest,
  type LedgerDifference,
  type LedgerVault,
} from '@unit/bitcoin';

const COMPARE_TIMEOUT_MS = 15_000;
/** 10,000 vaults' entries are about 1.5 MB of JSON; far more is not a ledger. */
const MAX_LEDGER_BYTES = 64 * 1024 * 1024;

export type Comparison =
  | { agree: true; digest: string }
  | { agree: false; theirs: string; differences: LedgerDifference[] }
  | { agree: null; problem: string };

/** The app's ledger after `height` against ours. */
export async function compareWithApp(
  app: string,
  height: number,
  ours: readonly LedgerVault[],
): Promise<Comparison> {
  const url = `${app.replace(/\/+$/, '')}/api/ledger/${height}`;
  let body: unknown;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(COMPARE_TIMEOUT_MS) });
    const text = await res.text();
    if (text.length > MAX_LEDGER_BYTES) return { agree: null, problem: `${url}: too large` };
    if (res.status !== 200) return { agree: null, problem: `${url} answered HTTP ${res.status}` };
    body = JSON.parse(text);
  } catch (error) {
    return { agree: null, problem: `${url}: ${(error as Error).message}` };
  }
  const theirs = ledgerFromJson(body);
  if (!theirs) return { agree: null, problem: `${url}: not a ledger` };
  // Their digest is recomputed from their entries: a digest that does not match them is theirs to fix.
  const claimed = (body as { digest?: unknown }).digest;
  const digest = ledgerDigest(theirs);
  if (claimed !== digest) return { agree: null, problem: `${url}: its digest is not its entries'` };
  const mine = ledgerDigest(ours);
  if (digest === mine) return { agree: true, digest };
  return { agree: false, theirs: digest, differences: ledgerDifferences(ours, theirs) };
}

const show = (v: LedgerVault | null) =>
  v ? `${v.collateralSats} sats, debt ${v.debt}, ${v.status}` : 'no such vault';

/** The lines a comparison prints. */
export function comparisonLines(height: number, c: Comparison): string[] {
  if (c.agree === true) return [`  app agrees at ${height}`];
  if (c.agree === null) return [`  app not compared at ${height}: ${c.problem}`];
  return [
    `  app DISAGREES at ${height}: its digest ${c.theirs}`,
    ...c.differences.map(
      (d) => `    vault ${d.vaultId}: chain says ${show(d.ours)}; app says ${show(d.theirs)}`,
    ),
  ];
}
