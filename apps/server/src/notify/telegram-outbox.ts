// The Telegram outbox: every message is queued in `telegram_outbox` (store/telegram.ts) and sent
// from there, so a message survives a restart and a failed send is retried on SPEC §7's policy.
// Only the instance that leads the outbox job drains it, so each message is sent once.
import type { Bot } from 'grammy';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { TELEGRAM_NOTIFY_RETRY_DELAY_MS } from '@unit/protocol';
import type { Database } from '../store/schema';
import { dueOutbox, markOutboxFailed, markOutboxSent, type OutboxMessage } from '../store/telegram';

export type RetryPolicy = Pick<OutboxMessage, 'max_attempts' | 'retry_delay_ms'>;

export class TelegramOutbox {
  private draining: Promise<void> | null = null;

  constructor(
    private readonly bot: Bot,
    private readonly db: Kysely<Database>,
    private readonly log: Logger,
    /** Overrides SPEC §7's 5 s between retries (tests). */
    private readonly retryDelayMs?: number,
  ) {}

  /** The attempts and spacing of a message retried `retries` times after its first send. */
  policy(retries: number): RetryPolicy {
    return {
      max_attempts: 1 + retries,
      retry_delay_ms: this.retryDelayMs ?? TELEGRAM_NOTIFY_RETRY_DELAY_MS,
    };
  }

  /** Sends every due message once; overlapping calls share one pass. */
  drain(): Promise<void> {
    this.draining ??= this.drainOnce().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  /** Resolves once the pass under way, if any, has ended. */
  async idle(): Promise<void> {
    await this.draining;
  }

  private async drainOnce(): Promise<void> {
    for (const row of await dueOutbox(this.db)) {
      try {
        await this.bot.api.sendMessage(row.chat_id, row.text);
        await markOutboxSent(this.db, row.id);
      } catch (err) {
        const outcome = await markOutboxFailed(this.db, row, String(err));
        this.log.warn({ id: row.id, outcome }, 'telegram send failed');
      }
    }
  }
}
