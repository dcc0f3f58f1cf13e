// The open validator's check of a network-mode record's price quorum (docs/protocol.md, "The
// guardians publish the signed prices"). The chain holds only the hash of the quote's signed
// prices; each guardian that approved the record keeps them and serves them at
// `GET /v1/prices/<commitment>`. The validator asks every guardian it knows (each read with its own
// time-out, an answer of bounded size), and holds what each serves to the record:
// - the answer is a list of signed prices whose hash is the record's commitment;
// - they are signed for a set the validator holds (the published, verified set files), and are a
//   quorum of that set whose median is the record's quote price (quoteQuorumProblem, the check
//   every guardian runs on a quote), stamped within a quote's life of the record's stamp.
// Prices that pass make the record checked. When no guardian serves passing prices, a guardian that
// served other prices for the commitment names a broken rule; when none serves any, or the set of
// their version is unknown here, the record stays `unverifiable`.
import {
  KEPT_PRICES_PATH,
  quoteQuorumProblem,
  readPublic,
  type GuardianSetBody,
  type QuorumSet,
} from '@unit/guardian-net';
import { parseSignedPrice, priceQuorumCommitment } from '@unit/guardian-net/price';
import type { LedgerFinding, QuorumToCheck } from '@unit/bitcoin';
import { GUARDIAN_PRICE_MAX_FUTURE_SECONDS, ORACLE_QUOTE_MAX_AGE_SECONDS } from '@unit/protocol';

/** How far a record's stamp and its prices' oldest stamp may be apart (see recordPricesVerdict). */
export const STAMP_SLACK_SECONDS = ORACLE_QUOTE_MAX_AGE_SECONDS + GUARDIAN_PRICE_MAX_FUTURE_SECONDS;
/** Each guardian's answer; a guardian that does not answer in time is passed over. */
export const PRICE_READ_TIMEOUT_MS = 5_000;
/** 64 prices of under 200 bytes each, with room. */
const MAX_ANSWER_BYTES = 32_768;
const MAX_PRICES = 64;

export type PricesVerdict =
  { ok: true } | { ok: false; kind: 'broken-rule' | 'unverifiable'; problem: string };

/** Why `served` (a guardian's answer) are not the prices behind `q`'s record, or ok. */
export function recordPricesVerdict(
  q: Pick<QuorumToCheck, 'commitment' | 'record'>,
  served: unknown,
  setOf: (version: number) => QuorumSet | undefined,
): PricesVerdict {
  const raw = (served as { prices?: unknown } | null)?.prices;
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_PRICES)
    return { ok: false, kind: 'broken-rule', problem: 'the answer is not a list of signed prices' };
  let prices;
  try {
    prices = raw.map(parseSignedPrice);
  } catch {
    return { ok: false, kind: 'broken-rule', problem: 'the answer is not a list of signed prices' };
  }
  if (priceQuorumCommitment(prices) !== q.commitment)
    return {
      ok: false,
      kind: 'broken-rule',
      problem: "its prices do not hash to the record's price quorum commitment",
    };
  const version = prices[0]!.setVersion;
  const set = setOf(version);
  if (!set)
    return {
      ok: false,
      kind: 'unverifiable',
      problem: `its prices are signed for guardian set version ${version}, which this validator does not hold (give it with --set)`,
    };
  // The quote's `time` (the oldest price's stamp) is not on the chain; the record's stamp is the
  // threshold's `ts`. At signing both were within the quote's life of the guardians' clocks, so
  // they are at most that life (and the clock slack a price may run ahead) apart.
  const stamps = prices.map((p) => p.time);
  const oldest = Math.min(...stamps);
  const quote = { price_cents: Number(q.record.quotePriceCents), time: oldest, quorum: prices };
  // Judged at the newest stamp: that they were a quorum together and are the record's price.
  const problem = quoteQuorumProblem(quote, set, Math.max(...stamps));
  if (problem) return { ok: false, kind: 'broken-rule', problem };
  const apart = Math.abs(q.record.quoteStamp - oldest);
  if (apart > STAMP_SLACK_SECONDS)
    return {
      ok: false,
      kind: 'broken-rule',
      problem: `its prices are stamped ${apart} s from the record's quote stamp ${q.record.quoteStamp}, more than a quote lives (${STAMP_SLACK_SECONDS} s)`,
    };
  return { ok: true };
}

/**
 * One guardian's kept prices for `commitment`: its JSON, `none` (404), or why it gave none. An
 * `https://` guardian is read as every party of the set reads another (readPublic): its
 * certificate must be bound to `identityKey`, the key its published set names, so the prices
 * come from that guardian's machine and no other; without a key it is not read at all.
 */
export async function readKeptPrices(
  guardian: string,
  commitment: string,
  timeoutMs = PRICE_READ_TIMEOUT_MS,
  identityKey?: string,
): Promise<{ json: unknown } | { none: string }> {
  const base = guardian.replace(/\/+$/, '');
  const path = `${KEPT_PRICES_PATH}${commitment}`;
  try {
    let status: number;
    let text: string;
    if (base.startsWith('https:')) {
      if (!identityKey)
        return {
          none: 'was not read: it is https:// and no guardian set given names its identity key (give its set with --set)',
        };
      const limits = { timeoutMs, maxBytes: MAX_ANSWER_BYTES };
      const answer = await readPublic({ url: base, identityKey }, path, limits);
      [status, text] = [answer.status, JSON.stringify(answer.body)];
    } else {
      const res = await fetch(base + path, { signal: AbortSignal.timeout(timeoutMs) });
      [status, text] = [res.status, await res.text()];
    }
    if (status === 404) return { none: 'keeps none' };
    if (status !== 200) return { none: `answered HTTP ${status}` };
    if (text.length > MAX_ANSWER_BYTES) return { json: null };
    return { json: JSON.parse(text) as unknown };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    return { none: timedOut ? `did not answer in ${timeoutMs / 1000} s` : 'is unreachable' };
  }
}

export interface PriceSources {
  /** each guardian's base URL (the published set's member URLs, and --guardians) */
  guardians: readonly string[];
  /** The identity key each guardian URL's certificate must be bound to, from the set files. */
  identityKeys?: Readonly<Record<string, string>>;
  /** the verified sets this validator holds, by version */
  sets: readonly GuardianSetBody[];
  timeoutMs?: number;
  read?: typeof readKeptPrices;
}

/** Asks every guardian for `q`'s prices; answers what the record gets (none when checked). */
export async function checkRecordPrices(
  q: QuorumToCheck,
  sources: PriceSources,
): Promise<LedgerFinding | null> {
  const read = sources.read ?? readKeptPrices;
  const setOf = (version: number) => sources.sets.find((s) => s.version === version);
  const finding = (kind: LedgerFinding['kind'], message: string): LedgerFinding => ({
    ...{ kind, txid: q.txid, vaultId: q.vaultId, message },
  });
  if (sources.guardians.length === 0)
    return finding(
      'unverifiable',
      `its price quorum ${q.commitment} was not checked: this validator knows no guardian to ask for its signed prices (give --set or --guardians)`,
    );
  const answers = await Promise.all(
    sources.guardians.map(async (g) => ({
      guardian: g,
      answer: await read(g, q.commitment, sources.timeoutMs, sources.identityKeys?.[g]),
    })),
  );
  const bad: string[] = [];
  const unknown: string[] = [];
  for (const { guardian, answer } of answers) {
    if ('none' in answer) continue;
    const verdict = recordPricesVerdict(q, answer.json, setOf);
    if (verdict.ok) return null;
    (verdict.kind === 'broken-rule' ? bad : unknown).push(`${guardian}: ${verdict.problem}`);
  }
  if (bad.length > 0)
    return finding(
      'broken-rule',
      `no guardian serves the signed prices of its price quorum ${q.commitment}; ${bad.join('; ')}`,
    );
  const why = answers.map(({ guardian, answer }) =>
    'none' in answer ? `${guardian} ${answer.none}` : '',
  );
  return finding(
    'unverifiable',
    `its price quorum ${q.commitment} was not checked: ${[...unknown, ...why.filter(Boolean)].join('; ')}`,
  );
}
