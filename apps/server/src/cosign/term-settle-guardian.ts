// The guardian's settlement round wired to its own context (term-settle-round.ts): the chain, the
// oracle's threshold hashes, the key each vault's output commits to, the signer (this server's key,
// or the guardian network asked with the 'settle' context) and the treasury its debt goes to.
import { hex } from '@scure/base';
import { OutScript } from '@scure/btc-signer';
import type { SignedQuote } from '@unit/protocol';
import { vaultGuardKeyOf } from './vault-guard-key';
import type { GuardianContext } from './context';
import { settleDueVaults, type SettleRoundResult } from './term-settle-round';

/** One round at the tip, each vault at `quote()`'s price (a fresh quorum quote). */
export function settleAtTerm(
  g: GuardianContext,
  quote: () => Promise<SignedQuote>,
): Promise<SettleRoundResult> {
  const thresholdHashes = (th: bigint, stamp: number) => g.oracle.thresholdHashes(th, stamp);
  const guardKeyOf = vaultGuardKeyOf({ ...g, thresholdHashes });
  const { signer } = g;
  return settleDueVaults({
    db: g.db,
    chain: g.chain,
    facts: { chain: g.chain, thresholdHashes, network: g.network },
    guardKeyOf: async (row) => hex.decode(await guardKeyOf(row)),
    // With the network, each guardian pays the debt to the newest set's `OP_1 <group key>`
    // (vault-policy/settle.ts); this server's own treasury otherwise.
    treasuryScript:
      signer.kind === 'network'
        ? OutScript.encode({ type: 'tr', pubkey: signer.guardPubkey })
        : g.treasuryScript,
    quote,
    // Not urgent: the owner's exit opens only after the grace, so the hour's rate is enough.
    feeRate: async () => (await g.chain.fees()).hourFee,
    sign: (job) =>
      signer.signSettlement
        ? signer.signSettlement(job)
        : Promise.reject(new Error('this guardian signer cannot sign a settlement')),
    instanceId: g.instance.id,
    now: g.now,
    log: g.log,
  });
}
