// The coordinator's side of the guardians' oracles: the hashes a new vault commits to (every
// guardian is asked; the first three that answer, by id, each statement checked against its
// identity key, and at least min(t, 3) of them: oracleCount), and a liquidation's secret from
// whichever guardian's own price allows it.
import { bytesToHex, parseHex } from '../canonical';
import type { GuardianSetBody, Member } from '../guardian-set';
import { DEFAULT_GRACE_MS, fanOut } from '../fan-out';
import { readPublic } from '../public-read';
import { ORACLE_HASH_PATH, ORACLE_SECRET_PATH } from './routes';
import {
  hash160,
  oracleHashProblem,
  oracleCount,
  parseOracleHashStatement,
  type OracleHashStatement,
} from './threshold-oracle';

const MAX_ANSWER_BYTES = 4 * 1024;

export interface OracleCommitment {
  /** hash160 of each oracle's threshold secret, hex, in leaf order */
  hashes: string[];
  /** each oracle's signed statement, in the same order */
  statements: OracleHashStatement[];
}

export class OracleUnavailableError extends Error {}

/** One public oracle route of member `m`, pinned to its identity key (public-read.ts). */
async function getJson(
  m: Member,
  path: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<{ status: number; body: unknown }> {
  return readPublic(m, path, { timeoutMs, maxBytes: MAX_ANSWER_BYTES, signal });
}

const reasonOf = (e: unknown) =>
  e instanceof Error && e.name === 'TimeoutError' ? 'no answer in time' : (e as Error).message;

const query = (th: number, ts: number) => `?th=${th}&ts=${ts}`;

/** One guardian's signed hash of (th, ts), checked against the set; throws with why not. */
async function askHash(
  set: Pick<GuardianSetBody, 'members' | 'version'>,
  m: Member,
  th: number,
  ts: number,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<OracleHashStatement> {
  const { status, body } = await getJson(m, ORACLE_HASH_PATH + query(th, ts), signal, timeoutMs);
  if (status !== 200) throw new Error(`HTTP ${status}`);
  const statement = parseOracleHashStatement(body);
  if (statement.guardian !== m.id) throw new Error(`answered as guardian ${statement.guardian}`);
  const problem = oracleHashProblem(set, statement, th, ts);
  if (problem) throw new Error(problem);
  return statement;
}

/**
 * The guardians' signed hashes of (th, ts), checked: the first three by id of those that answer.
 * Once min(t, 3) have answered, the others get `graceMs` more (fan-out.ts: a guardian that holds
 * its connection does not hold every quote for the whole time-out); fewer than min(t, 3) is an
 * error naming each guardian that failed.
 */
export async function collectOracleHashes(
  set: Pick<GuardianSetBody, 'members' | 'version' | 't'>,
  th: number,
  ts: number,
  timeoutMs = 3_000,
  graceMs = DEFAULT_GRACE_MS,
): Promise<OracleCommitment> {
  const { min, max } = oracleCount(set);
  const members = [...set.members].sort((a, b) => a.id - b.id);
  const answers = await fanOut(members, (m, signal) => askHash(set, m, th, ts, signal, timeoutMs), {
    need: min,
    timeoutMs,
    graceMs,
    reasonOf,
  });
  const statements = answers.flatMap((a) => (a.ok ? [a.value] : [])).slice(0, max);
  if (statements.length < min) {
    const failed = answers.flatMap((a, i) => (a.ok ? [] : [`${members[i]!.name}: ${a.reason}`]));
    throw new OracleUnavailableError(
      `a vault needs the threshold hashes of at least ${min} guardians, ${statements.length} gave one: ${failed.join('; ')}`,
    );
  }
  return { hashes: statements.map((s) => s.hash), statements };
}

export interface RevealedSecret {
  secret: Uint8Array;
  /** the guardian that revealed it */
  guardian: number;
  /** which of `hashes` it opens: the liquidation leaf to spend */
  index: number;
}

/**
 * A threshold secret that opens one of `hashes`, from the first guardian whose own price allows
 * it; null with each guardian's reason when none does.
 */
export async function fetchOracleSecret(
  set: Pick<GuardianSetBody, 'members'>,
  th: number,
  ts: number,
  hashes: readonly string[],
  timeoutMs = 3_000,
): Promise<{ revealed: RevealedSecret | null; reasons: string[] }> {
  const reasons: string[] = [];
  const asks = set.members.map(async (m): Promise<RevealedSecret> => {
    try {
      const { status, body } = await getJson(
        m,
        ORACLE_SECRET_PATH + query(th, ts),
        AbortSignal.timeout(timeoutMs),
        timeoutMs,
      );
      const b = (body ?? {}) as { secret?: unknown; error?: { message?: unknown } };
      if (status !== 200) throw new Error(String(b.error?.message ?? `HTTP ${status}`));
      const secret = parseHex(b.secret, 32, 'secret');
      const index = hashes.indexOf(bytesToHex(hash160(secret)));
      if (index < 0) throw new Error("its secret opens none of the vault's hashes");
      return { secret, guardian: m.id, index };
    } catch (e) {
      reasons.push(`${m.name}: ${reasonOf(e)}`);
      throw e;
    }
  });
  try {
    return { revealed: await Promise.any(asks), reasons };
  } catch {
    return { revealed: null, reasons };
  }
}
