// Term warnings (docs/protocol.md, "Leaving without the guardians"): on each block every followed
// vault whose term is within a warning of TERM_WARNING_DAYS (termWarningBlocks of the configured
// term) is told once per warning and term, in the same words as the dashboard's banner. Once: the
// outbox's dedupe key names the chat, the vault, its settlement height and the warning's days, so a
// renewed term warns afresh and a repeated block queues nothing more.
import type { Kysely } from 'kysely';
import {
  termWarningBlocks,
  termWarningDays,
  termWarningText,
  type Network,
  type TermConfig,
} from '@unit/protocol';
import type { Database } from '../store/schema';
import { enqueueOutbox } from '../store/telegram';
import type { RetryPolicy } from './telegram-outbox';

/** Followed vaults near their term read per block (bounded; far above what one bot serves). */
const TERM_WARNING_BATCH = 2000;

/** Queues the warnings due at `tipHeight`; the number of messages handed to the outbox. */
export async function queueTermWarnings(
  db: Kysely<Database>,
  args: {
    network: Network;
    tipHeight: number;
    term: TermConfig;
    policy: RetryPolicy;
  },
): Promise<number> {
  const { network, tipHeight, term, policy } = args;
  const widest = Math.max(...termWarningBlocks(term).map((w) => w.blocks));
  const rows = await db
    .selectFrom('telegram_subscriptions as s')
    .innerJoin('vaults as v', 'v.creation_account', 's.address')
    .select(['s.chat_id', 'v.vault_id', 'v.vault_tag', 'v.settle_height'])
    .where('s.network', '=', network)
    .where('v.status', '=', 'active')
    .where('v.settle_height', '>', tipHeight)
    .where('v.settle_height', '<=', tipHeight + widest)
    .orderBy('v.vault_id')
    .limit(TERM_WARNING_BATCH)
    .execute();
  const messages = rows.flatMap((row) => {
    const settleHeight = Number(row.settle_height);
    const days = termWarningDays(tipHeight, settleHeight, term);
    if (days === null) return [];
    const text = termWarningText({ days, blocksLeft: settleHeight - tipHeight, settleHeight });
    return [
      {
        chat_id: row.chat_id,
        text: [`Vault ${row.vault_tag}: ${text.title}.`, text.body, text.whatToDo].join('\n'),
        ...policy,
        dedupe_key: `term:${row.chat_id}:${row.vault_id}:${settleHeight}:${days}`,
      },
    ];
  });
  await enqueueOutbox(db, messages);
  return messages.length;
}
