// The oracle hashes a new vault commits to, checked by each guardian (issue 20, item 4): exactly the
// set's oracles (oracleMembers: ids 1..min(n, 3)) in that order, each hash carried by a statement
// that guardian's identity key signed for this (threshold, stamp) and set version, and this
// guardian's own hash recomputed from its own oracle secret. The app only carries the statements
// (its quote route); it cannot make a vault commit to a hash that is not the oracles'.
import { hex } from '@scure/base';
import { equalBytes } from '@scure/btc-signer/utils.js';
import {
  oracleHashProblem,
  oracleMembers,
  parseOracleHashStatement,
} from '../oracle/threshold-oracle';
import type { OracleEnv } from '../oracle/routes';
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
  const expected = oracleMembers(env.set);
  const names = expected.map((m) => m.name).join(', ');
  if (hashes.length !== expected.length || statements.length !== expected.length)
    return `the new vault must commit to the threshold hashes of ${names}, in order`;
  for (let i = 0; i < expected.length; i++) {
    const member = expected[i]!;
    let statement;
    try {
      statement = parseOracleHashStatement(statements[i]);
    } catch {
      return `threshold hash ${i + 1} has no statement of ${member.name}`;
    }
    if (statement.guardian !== member.id)
      return `threshold hash ${i + 1} must be ${member.name}'s, not guardian ${statement.guardian}'s`;
    const problem = oracleHashProblem(env.set, statement, th, ts);
    if (problem) return `threshold hash ${i + 1} (${member.name}): ${problem}`;
    if (statement.hash !== hex.encode(hashes[i]!))
      return `threshold hash ${i + 1} is not the one ${member.name} signed`;
    if (member.id === env.oracle.guardian && !equalBytes(hashes[i]!, env.oracle.hash(th, ts)))
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
