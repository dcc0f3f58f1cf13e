// Telegram notifications (SPEC §7). POST /api/notify queues one message per chat following the
// address; a worker drains the outbox with the spec's retry policy: the create notification is
// retried 5 times at 5 s, the other actions are not retried. Off when no bot token is configured.
import { Bot } from 'grammy';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  centsToUnitString,
  satsToBtcString,
  TELEGRAM_NOTIFY_RETRIES_ACTION,
  TELEGRAM_NOTIFY_RETRIES_CREATE,
  TELEGRAM_NOTIFY_RETRY_DELAY_MS,
  type Network,
  type TelegramNotifyDto,
  type VaultAction,
} from '@unit/protocol';
import type { Database } from '../store/schema';
import {
  dueOutbox,
  enqueueOutbox,
  markOutboxFailed,
  markOutboxSent,
  subscribeTelegram,
  subscribedChats,
} from '../store/telegram';

export interface TelegramNotifierOptions {
  db: Kysely<Database>;
  network: Network;
  token: string | null;
  apiRoot: string | null;
  /** Absolute or origin-relative block explorer base for transaction links. */
  explorerUrl: string;
  log: Logger;
  /** How often the worker looks for due messages. */
  drainIntervalMs?: number;
  /** Overrides SPEC §7's 5 s between create retries (tests). */
  retryDelayMs?: number;
  /** Long-poll for /start <address> subscriptions (off in tests that fake only sendMessage). */
  polling?: boolean;
}

const ACTION_TITLES: Record<VaultAction, string> = {
  open: 'Vault creation submitted',
  deposit: 'BTC deposit submitted',
  withdraw: 'BTC withdrawal submitted',
  borrow: 'Vault borrow submitted',
  repay: 'UNIT repayment submitted',
  repossess: 'Liquidation claim submitted',
};

/** Telegram deep-link payloads allow [A-Za-z0-9_-] up to 64 characters: a bech32 address fits. */
const START_PAYLOAD = /^[A-Za-z0-9_-]{14,64}$/;

export function notificationText(dto: TelegramNotifyDto, explorerUrl: string): string {
  const lines = [ACTION_TITLES[dto.tx_action]];
  if (dto.btc_amount > 0) lines.push(`BTC: ${satsToBtcString(dto.btc_amount)}`);
  if (dto.unit_amount > 0) lines.push(`UNIT: ${centsToUnitString(dto.unit_amount)}`);
  lines.push(`Vault: ${dto.vault_id}`);
  lines.push(
    explorerUrl.startsWith('http')
      ? `${explorerUrl.replace(/\/$/, '')}/tx/${dto.tx_id}`
      : `Transaction: ${dto.tx_id}`,
  );
  return lines.join('\n');
}

export class TelegramNotifier {
  readonly bot: Bot | null;
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private username: string | null = null;
  private handlersInstalled = false;

  constructor(private readonly options: TelegramNotifierOptions) {
    this.bot = options.token
      ? new Bot(options.token, {
          client: options.apiRoot ? { apiRoot: options.apiRoot } : {},
        })
      : null;
  }

  get enabled(): boolean {
    return this.bot !== null;
  }

  /** The bot's @username for the "Enable Telegram Notification" link, once known. */
  get botUsername(): string | null {
    return this.username;
  }

  async start(): Promise<void> {
    await this.init();
    this.startWorker();
  }

  /** Learns the bot's @username, which every instance serves in /api/config. */
  async init(): Promise<void> {
    const { bot, options } = this;
    if (!bot) return;
    try {
      await bot.init();
      this.username = bot.botInfo.username;
    } catch (err) {
      // A wrong token or an unreachable API must not stop the vault app; the outbox keeps trying.
      options.log.warn({ err: String(err) }, 'telegram bot init failed');
    }
  }

  /**
   * The worker: /start long-polling and the outbox drain. One instance at a time runs it (Telegram
   * allows one getUpdates consumer per bot, and one drainer sends each message once).
   */
  startWorker(): void {
    const { bot, options } = this;
    if (!bot || this.timer) return;
    if (options.polling && this.username) {
      // A worker taken back after a lost lock polls again with the handlers it already has.
      if (!this.handlersInstalled) this.installHandlers(bot);
      void bot.start({ drop_pending_updates: true }).catch((err: unknown) => {
        options.log.warn({ err: String(err) }, 'telegram polling stopped');
      });
    }
    this.timer = setInterval(() => void this.drain(), options.drainIntervalMs ?? 1000);
    this.timer.unref();
  }

  private installHandlers(bot: Bot): void {
    const { options } = this;
    this.handlersInstalled = true;
    bot.command('start', async (ctx) => {
      const address = ctx.match.trim();
      if (!START_PAYLOAD.test(address)) {
        await ctx.reply('Open this bot from the vault app to follow your vault.');
        return;
      }
      await subscribeTelegram(options.db, {
        address,
        chat_id: String(ctx.chat.id),
        network: options.network,
      });
      await ctx.reply('Notifications are on for your vault.');
    });
    bot.catch((err) => options.log.warn({ err: String(err.error) }, 'telegram update failed'));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.bot?.isRunning()) await this.bot.stop();
    await this.draining;
  }

  /** Queues the notification for every chat following the address; returns how many. */
  async notify(dto: TelegramNotifyDto): Promise<number> {
    if (!this.bot) return 0;
    const { db, network, explorerUrl, retryDelayMs } = this.options;
    if (dto.network !== network) return 0;
    const chats = await subscribedChats(db, dto.address, network);
    const retries =
      dto.tx_action === 'open' ? TELEGRAM_NOTIFY_RETRIES_CREATE : TELEGRAM_NOTIFY_RETRIES_ACTION;
    const text = notificationText(dto, explorerUrl);
    await enqueueOutbox(
      db,
      chats.map((chat_id) => ({
        chat_id,
        text,
        max_attempts: 1 + retries,
        retry_delay_ms: retryDelayMs ?? TELEGRAM_NOTIFY_RETRY_DELAY_MS,
      })),
    );
    return chats.length;
  }

  /** Sends every due message once; overlapping calls share one pass. */
  drain(): Promise<void> {
    this.draining ??= this.drainOnce().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  private async drainOnce(): Promise<void> {
    const { bot, options } = this;
    if (!bot) return;
    for (const row of await dueOutbox(options.db)) {
      try {
        await bot.api.sendMessage(row.chat_id, row.text);
        await markOutboxSent(options.db, row.id);
      } catch (err) {
        const outcome = await markOutboxFailed(options.db, row, String(err));
        options.log.warn({ id: row.id, outcome }, 'telegram send failed');
      }
    }
  }
}
