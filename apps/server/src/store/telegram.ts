// Telegram subscriptions (which chats follow an address) and the outbox the notify worker drains.
import type { Kysely, Selectable } from 'kysely';
import type { Database, TelegramOutboxTable } from './schema';

export type OutboxRow = Selectable<TelegramOutboxTable>;

export async function subscribeTelegram(
  db: Kysely<Database>,
  subscription: { address: string; chat_id: string; network: string },
  now = Math.floor(Date.now() / 1000),
): Promise<void> {
  await db
    .insertInto('telegram_subscriptions')
    .values({ ...subscription, created_at: now })
    .onConflict((oc) => oc.columns(['address', 'chat_id']).doNothing())
    .execute();
}

export async function subscribedChats(
  db: Kysely<Database>,
  address: string,
  network: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('telegram_subscriptions')
    .select('chat_id')
    .where('address', '=', address)
    .where('network', '=', network)
    .orderBy('chat_id')
    .execute();
  return rows.map((r) => r.chat_id);
}

export interface OutboxMessage {
  chat_id: string;
  text: string;
  /** Total tries: 1 + retries. */
  max_attempts: number;
  retry_delay_ms: number;
}

export async function enqueueOutbox(
  db: Kysely<Database>,
  messages: OutboxMessage[],
  nowMs = Date.now(),
): Promise<void> {
  if (messages.length === 0) return;
  await db
    .insertInto('telegram_outbox')
    .values(
      messages.map((m) => ({
        ...m,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: nowMs,
        created_at: nowMs,
      })),
    )
    .execute();
}

/** Pending messages due at `nowMs`, oldest first. */
export async function dueOutbox(
  db: Kysely<Database>,
  nowMs = Date.now(),
  limit = 20,
): Promise<OutboxRow[]> {
  return db
    .selectFrom('telegram_outbox')
    .selectAll()
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', nowMs)
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function markOutboxSent(db: Kysely<Database>, id: number): Promise<void> {
  await db
    .updateTable('telegram_outbox')
    .set((eb) => ({ status: 'sent', attempts: eb('attempts', '+', 1), last_error: null }))
    .where('id', '=', id)
    .execute();
}

/** Counts a failed try: schedules the next one, or gives up when the tries are spent. */
export async function markOutboxFailed(
  db: Kysely<Database>,
  row: OutboxRow,
  error: string,
  nowMs = Date.now(),
): Promise<'retry' | 'failed'> {
  const attempts = row.attempts + 1;
  const outcome = attempts >= row.max_attempts ? 'failed' : 'retry';
  await db
    .updateTable('telegram_outbox')
    .set({
      attempts,
      last_error: error.slice(0, 500),
      status: outcome === 'failed' ? 'failed' : 'pending',
      next_attempt_at: nowMs + row.retry_delay_ms,
    })
    .where('id', '=', row.id)
    .execute();
  return outcome;
}

export async function listOutbox(db: Kysely<Database>): Promise<OutboxRow[]> {
  return db.selectFrom('telegram_outbox').selectAll().orderBy('id').execute();
}
