// Whether the open validators this server is configured with (UNIT_VALIDATORS) rebuilt the same
// ledger as its database, for GET /api/network and the /network page. Each validator (`npm run
// validator -- --serve`) answers `GET /digest/tip` with the height it has read and its ledger
// digest there; the app compares at the lower of that height and its own chain tip (asking the
// validator for `/digest/<height>` when the validator is ahead), with its own digest at that height
// (the same function as GET /api/ledger). A validator that does not answer in time, or not with a
// height and a digest, is `unreachable`.
//
// /api/network is public: the answer is kept for `cacheMs`, one read in flight is shared, each
// validator is asked with its own time-out and a 4 KB cap on what it sends back, and at most
// NETWORK_VALIDATORS_MAX are configured.
import * as z from 'zod';
import { readCapped } from '@unit/guardian-net';
import type { LedgerJson } from '@unit/bitcoin';
import type { NetworkValidatorDto } from '@unit/protocol/wire';
import type { Chain } from '../chain/port';

/** One validator's answer must come within this. */
export const VALIDATOR_TIMEOUT_MS = 3_000;
/** How long the comparison is served before the validators are asked again. */
export const VALIDATOR_CACHE_MS = 30_000;
const MAX_ANSWER_BYTES = 4_096;

const digestAnswer = z.object({
  height: z.number().int().min(0).max(100_000_000),
  digest: z.string().regex(/^[0-9a-f]{64}$/),
});

export interface AppDigests {
  /** the app's chain tip height */
  tip: () => Promise<number>;
  /** the app's ledger digest after block `height` (GET /api/ledger's) */
  digestAt: (height: number) => Promise<string>;
}

async function digestOf(url: string, which: string, timeoutMs: number) {
  const res = await fetch(`${url}/digest/${which}`, {
    signal: AbortSignal.timeout(timeoutMs),
    redirect: 'error',
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`it answered HTTP ${res.status} for /digest/${which}`);
  }
  const parsed = digestAnswer.safeParse(JSON.parse(await readCapped(res, MAX_ANSWER_BYTES)));
  if (!parsed.success) throw new Error('its answer is not a height and a ledger digest');
  return parsed.data;
}

/** Asks one validator and compares at a height both have read. */
export async function compareWithValidator(
  url: string,
  app: AppDigests,
  timeoutMs = VALIDATOR_TIMEOUT_MS,
): Promise<NetworkValidatorDto> {
  const checked_at = Math.floor(Date.now() / 1000);
  const base = url.replace(/\/+$/, '');
  let theirs: z.infer<typeof digestAnswer>;
  try {
    const tip = await digestOf(base, 'tip', timeoutMs);
    const ourTip = await app.tip();
    theirs = tip.height <= ourTip ? tip : await digestOf(base, String(ourTip), timeoutMs);
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    const problem = timedOut
      ? `It did not answer within ${timeoutMs / 1000} s.`
      : `It could not be read: ${(error as Error).message.slice(0, 200)}.`;
    return { url, state: 'unreachable', height: null, digest: null, app_digest: null, problem, checked_at }; // prettier-ignore
  }
  let ours: string;
  try {
    ours = await app.digestAt(theirs.height);
  } catch {
    const problem = `This server could not read its own ledger at block ${theirs.height}; its log says why.`;
    return { url, state: 'unreachable', height: theirs.height, digest: theirs.digest, app_digest: null, problem, checked_at }; // prettier-ignore
  }
  const state = ours === theirs.digest ? 'agrees' : 'disagrees';
  return { url, state, height: theirs.height, digest: theirs.digest, app_digest: ours, problem: null, checked_at }; // prettier-ignore
}

/** Every configured validator compared, at most once per `cacheMs`, one read in flight shared. */
export function validatorAgreement(
  urls: readonly string[],
  app: AppDigests,
  options: { cacheMs?: number; timeoutMs?: number } = {},
): () => Promise<NetworkValidatorDto[]> {
  const cacheMs = options.cacheMs ?? VALIDATOR_CACHE_MS;
  let kept: { at: number; value: NetworkValidatorDto[] } | null = null;
  let inFlight: Promise<NetworkValidatorDto[]> | null = null;
  return async () => {
    if (urls.length === 0) return [];
    if (kept && Date.now() - kept.at < cacheMs) return kept.value;
    inFlight ??= Promise.all(urls.map((u) => compareWithValidator(u, app, options.timeoutMs)))
      .then((value) => {
        kept = { at: Date.now(), value };
        return value;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };
}

/** The app's own comparison: its chain's tip and GET /api/ledger's digest (`ledgerAt`). */
export function appValidators(
  urls: readonly string[],
  chain: Pick<Chain, 'tip'>,
  ledgerAt: (height: number) => Promise<LedgerJson>,
  cacheMs?: number,
): () => Promise<NetworkValidatorDto[]> {
  const app: AppDigests = {
    tip: async () => (await chain.tip()).height,
    digestAt: async (height) => (await ledgerAt(height)).digest,
  };
  return validatorAgreement(urls, app, cacheMs === undefined ? {} : { cacheMs });
}
