// A claim that will never be mined (docs/protocol.md, "Leaving without the guardians"): when a block
// settles a repossession the owner's exit beat, or one whose input a mined transaction spent, the
// claimant's chats are told once, in the words of the dashboard (`failedSentence`). Once: the
// outbox's dedupe key names the chat and the claim's transaction.
import type { Kysely } from 'kysely';
import { failedSentence, type Network } from '@unit/protocol';
import type { FailedClaim } from '../store/repossession-race';
import type { Database } from '../store/schema';
import { enqueueOutbox } from '../store/telegram';
import type { RetryPolicy } from './telegram-outbox';

/** Chats told of one claim at most (one vault's followers). */
const CLAIM_CHATS_LIMIT = 50;

export type { FailedClaim };

/** Queues the message to the chats following the claimant's vault; how many were queued. */
export async function queueClaimFailed(
  db: Kysely<Database>,
  args: { network: Network; policy: RetryPolicy; claim: FailedClaim },
): Promise<number> {
  const { network, policy, claim } = args;
  const rows = await db
    .selectFrom('telegram_subscriptions as s')
    .innerJoin('vaults as v', 'v.creation_account', 's.address')
    .select(['s.chat_id', 'v.vault_tag'])
    .where('s.network', '=', network)
    .where('v.vault_id', '=', claim.claimant)
    .orderBy('s.chat_id')
    .limit(CLAIM_CHATS_LIMIT)
    .execute();
  const sentence = failedSentence('repossess', claim.cause, null);
  const messages = rows.map((row) => ({
    chat_id: row.chat_id,
    text: `Vault ${row.vault_tag}: ${sentence}`,
    ...policy,
    dedupe_key: `claim-failed:${row.chat_id}:${claim.txid}`,
  }));
  await enqueueOutbox(db, messages);
  return messages.length;
}
