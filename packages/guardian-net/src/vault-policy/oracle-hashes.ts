// The oracle hashes a new vault commits to, checked by each guardian: min(t, 3)
// to 3 of them (oracleCount), guardian ids strictly ascending, each hash carried by a statement
// that guardian's identity key signed for this (threshold, stamp) and set version, and this
// guardian's own hash, when it is listed, recomputed from its own oracle secret. The app only
// carries the statements (its quote route); it cannot make a vault commit to a hash that is not a
// guardian's.
import { hex } from '@scure/base';
import { equalBytes } from '@scure/btc-signer/utils.js';
import {
  oracleHashProblem,
  oracleCount,
  parseOracleHashStatement,
} from '../oracle/threshold-oracle';
import type { OracleEnv } from '../oracle/threshold-oracle';
import type { ChainView } from './chain-view';
import { Refused } from './reads';

/** Why `hashes` with these statements are not the set's oracle list for (th, ts), or null. */
export function oracleListProblem(
  env: OracleEnv,
  th: number,
  ts: number,
  hashes: readonly Uint8Array[],
  statements: readonly unknown[],
): string | null {
  const { min, max } = oracleCount(env.set);
  if (hashes.length !== statements.length)
    return `the new vault's ${hashes.length} threshold hashes come with ${statements.length} statements`;
  if (hashes.length < min || hashes.length > max)
    return `the new vault must commit to ${min} to ${max} guardians' threshold hashes, not ${hashes.length}`;
  let previous = 0;
  for (let i = 0; i < hashes.length; i++) {
    let statement;
    try {
      statement = parseOracleHashStatement(statements[i]);
    } catch {
      return `threshold hash ${i + 1} has no guardian's statement`;
    }
    const name = env.set.members.find((m) => m.id === statement.guardian)?.name;
    if (statement.guardian <= previous)
      return `threshold hash ${i + 1} is guardian ${statement.guardian}'s, out of id order`;
    previous = statement.guardian;
    const problem = oracleHashProblem(env.set, statement, th, ts);
    if (problem)
      return `threshold hash ${i + 1} (${name ?? `guardian ${statement.guardian}`}): ${problem}`;
    if (statement.hash !== hex.encode(hashes[i]!))
      return `threshold hash ${i + 1} is not the one ${name} signed`;
    if (
      statement.guardian === env.oracle.guardian &&
      !equalBytes(hashes[i]!, env.oracle.hash(th, ts))
    )
      return `threshold hash ${i + 1} is not this guardian's own`;
  }
  return null;
}

/**
 * The hashes of the new vault of a request quoted at (th, ts): the app's list, checked as above
 * when the node gives its oracle (a unit test's stand-in chain view may not).
 */
export async function newVaultHashes(
  chain: ChainView,
  env: OracleEnv | undefined,
  th: number,
  ts: number,
): Promise<Uint8Array[]> {
  const { hashes, statements } = await chain.thresholdHashes(th, ts);
  if (!env) return hashes;
  const problem = oracleListProblem(env, th, ts, hashes, statements);
  if (problem) throw new Refused(problem);
  return hashes;
}
