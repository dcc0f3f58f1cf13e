// Telegram subscriptions (which chats follow an address), one-time link codes, and the outbox the
// notify worker drains.
import { createHash } from 'node:crypto';
import type { ColumnType, Kysely, Selectable } from 'kysely';
import type { Database, Int64, TelegramOutboxTable } from './schema';

// Columns and tables of migration 0400_accounts (auth/migrations.ts), merged into the store's
// schema here so the shared schema file stays untouched.
declare module './schema' {
  interface Database {
    telegram_link_codes: TelegramLinkCodesTable;
    telegram_watch: TelegramWatchTable;
    telegram_alert_bands: TelegramAlertBandsTable;
  }
  interface TelegramOutboxTable {
    /** set on messages the server composes, so one event is never queued twice */
    dedupe_key: string | null;
  }
  interface TelegramSubscriptionsTable {
    risk_alerts: ColumnType<number, number | undefined, number>;
  }
}

export interface TelegramLinkCodesTable {
  /** SHA-256 of the code, hex (the code itself is never stored) */
  code: string;
  address: string;
  expires_at: Int64;
  used_at: Int64 | null;
}

export interface TelegramWatchTable {
  history_id: number;
  created_at: Int64;
}

export interface TelegramAlertBandsTable {
  chat_id: string;
  vault_id: string;
  band: string;
  updated_at: Int64;
}

export type OutboxRow = Selectable<TelegramOutboxTable>;

/**
 * A link code is kept as its SHA-256 only: a code is a bearer token for a few minutes (whoever sends
 * it to the bot follows the address), so a copy of the table must not hold live ones.
 */
const codeHash = (code: string) => createHash('sha256').update(code).digest('hex');

export async function createLinkCode(
  db: Kysely<Database>,
  link: { code: string; address: string; expires_at: number },
  now = Math.floor(Date.now() / 1000),
): Promise<void> {
  // Codes expire in minutes; dropping the old ones here keeps the table small.
  await db.deleteFrom('telegram_link_codes').where('expires_at', '<', now).execute();
  await db
    .insertInto('telegram_link_codes')
    .values({ ...link, code: codeHash(link.code), used_at: null })
    .execute();
}

/** Spends a link code: its address when the code exists, is unexpired and unused, else null. */
export async function consumeLinkCode(
  db: Kysely<Database>,
  code: string,
  now = Math.floor(Date.now() / 1000),
): Promise<string | null> {
  const row = await db
    .selectFrom('telegram_link_codes')
    .select(['address', 'expires_at', 'used_at'])
    .where('code', '=', codeHash(code))
    .executeTakeFirst();
  if (!row || row.used_at !== null || Number(row.expires_at) < now) return null;
  const spent = await db
    .updateTable('telegram_link_codes')
    .set({ used_at: now })
    .where('code', '=', codeHash(code))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(spent.numUpdatedRows) === 1 ? row.address : null;
}

/**
 * The other side of the subscriptions one side holds on a network: a chat's addresses, or an
 * address's chats; at most `limit`, in order.
 */
async function followedOn(
  db: Kysely<Database>,
  network: string,
  side: 'chat_id' | 'address',
  value: string,
  limit: number,
): Promise<string[]> {
  const other = side === 'chat_id' ? 'address' : 'chat_id';
  const rows = await db
    .selectFrom('telegram_subscriptions')
    .select(other)
    .where(side, '=', value)
    .where('network', '=', network)
    .orderBy(other)
    .limit(limit)
    .execute();
  return rows.map((r) => r[other]);
}

/** The addresses a chat follows on the network (a chat links a handful at most). */
export const chatSubscriptions = (db: Kysely<Database>, chatId: string, network: string) =>
  followedOn(db, network, 'chat_id', chatId, 20);

/** /stop: the chat follows nothing any more; returns the addresses it followed. */
export async function unsubscribeChat(db: Kysely<Database>, chatId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('telegram_subscriptions')
    .select('address')
    .where('chat_id', '=', chatId)
    .limit(100)
    .execute();
  await db.deleteFrom('telegram_subscriptions').where('chat_id', '=', chatId).execute();
  await db.deleteFrom('telegram_alert_bands').where('chat_id', '=', chatId).execute();
  return rows.map((r) => r.address);
}

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

/** The chats that follow an address on the network (bounded: far more than one vault has). */
export const subscribedChats = (db: Kysely<Database>, address: string, network: string) =>
  followedOn(db, network, 'address', address, 10_000);

export interface OutboxMessage {
  chat_id: string;
  text: string;
  /** Total tries: 1 + retries. */
  max_attempts: number;
  retry_delay_ms: number;
  /** a message with a key already queued (sent or not) is not queued again */
  dedupe_key?: string | null;
}

export async function enqueueOutbox(
  db: Kysely<Database>,
  messages: OutboxMessage[],
  nowMs = Date.now(),
): Promise<void> {
  if (messages.length === 0) return;
  // The key column is written only when a message has a key: a store without migration 0400
  // (the storage suite) still queues plain messages.
  const keyed = messages.some((m) => m.dedupe_key);
  const rows = messages.map(({ dedupe_key, ...m }) => ({
    ...m,
    ...(keyed ? { dedupe_key: dedupe_key ?? null } : {}),
    status: 'pending' as const,
    attempts: 0,
    next_attempt_at: nowMs,
    created_at: nowMs,
  }));
  const insert = db.insertInto('telegram_outbox').values(rows);
  await (
    messages.some((m) => m.dedupe_key)
      ? insert.onConflict((oc) => oc.column('dedupe_key').doNothing())
      : insert
  ).execute();
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
