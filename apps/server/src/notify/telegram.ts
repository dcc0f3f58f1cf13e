// Telegram notifications (SPEC §7). The server sends them itself, with no browser open.
// The notifier holds the bot (off without a token) and its worker, and hands each concern to a
// file of its own:
// - telegram-commands.ts: the one-time link and the bot's /start, /status, /alerts and /stop;
// - telegram-history.ts: "submitted" and "confirmed" messages from the vault history;
// - telegram-alerts.ts: entering Moderate, Risky or liquidation, compared on every oracle tick;
// - telegram-term-warnings.ts: 30, 7 and 1 days before a vault's term, on every block;
// - telegram-outbox.ts: the persisted outbox every message goes through, with SPEC §7's retries;
// - telegram-messages.ts: what the messages say, and their facts per vault action;
// - telegram-timeout.ts: the time-out of every Bot API call.
import { Bot } from 'grammy';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Network, TelegramNotifyDto, TermConfig } from '@unit/protocol';
import type { Database } from '../store/schema';
import { TelegramAlerts } from './telegram-alerts';
import { installCommands, newLink } from './telegram-commands';
import { TelegramHistory } from './telegram-history';
import { explorerBase, RISK_ALERT_RETRIES } from './telegram-messages';
import { TelegramOutbox } from './telegram-outbox';
import { queueClaimFailed, type FailedClaim } from './telegram-claim-failed';
import { queueTermWarnings } from './telegram-term-warnings';
import { DEFAULT_TELEGRAM_TIMEOUT_MS } from '../config-schema';
import { callTimeout, initDeadline } from './telegram-timeout';

export interface TelegramNotifierOptions {
  db: Kysely<Database>;
  network: Network;
  token: string | null;
  apiRoot: string | null;
  /** Absolute or origin-relative block explorer base for transaction links. */
  explorerUrl: string;
  /** This server's public origin, for an origin-relative explorer (the devnet's /explorer). */
  origin?: string;
  log: Logger;
  /** How often the worker looks for due messages and new history. */
  drainIntervalMs?: number;
  /** Overrides SPEC §7's 5 s between create retries (tests). */
  retryDelayMs?: number;
  /** Long-poll the Bot API for /start, /status and /stop (off in tests that fake only sendMessage). */
  polling?: boolean;
  /** The longest wait for one Bot API answer (TELEGRAM_TIMEOUT; telegram-timeout.ts). */
  timeoutMs?: number;
  /** The vaults' term (VAULT_TERM_BLOCKS, ...): the owners are warned before it on each block. */
  vaultTerm?: TermConfig;
}

/** The parts that exist only with a bot. */
interface Parts {
  bot: Bot;
  outbox: TelegramOutbox;
  history: TelegramHistory;
  alerts: TelegramAlerts;
}

export class TelegramNotifier {
  private readonly parts: Parts | null;
  private timer: NodeJS.Timeout | null = null;
  private username: string | null = null;
  private handlersInstalled = false;

  constructor(private readonly options: TelegramNotifierOptions) {
    const { db, network, log, token, apiRoot } = options;
    if (!token) {
      this.parts = null;
      return;
    }
    const bot = new Bot(token, { client: apiRoot ? { apiRoot } : {} });
    bot.api.config.use(callTimeout(options.timeoutMs ?? DEFAULT_TELEGRAM_TIMEOUT_MS));
    const outbox = new TelegramOutbox(bot, db, log, options.retryDelayMs);
    const explorerUrl = explorerBase(options.explorerUrl, options.origin);
    this.parts = {
      bot,
      outbox,
      history: new TelegramHistory({ db, network, explorerUrl, outbox }),
      alerts: new TelegramAlerts({ db, network, outbox, log }),
    };
  }

  get enabled(): boolean {
    return this.parts !== null;
  }

  /** The bot's @username for the "Enable Telegram Notification" link, once known. */
  get botUsername(): string | null {
    return this.username;
  }

  async start(): Promise<void> {
    await this.init();
    await this.startWorker();
  }

  /** Learns the bot's @username, which every instance serves in /api/config. */
  async init(): Promise<void> {
    if (!this.parts) return;
    const { bot } = this.parts;
    try {
      // grammy retries getMe until it answers, backing off up to 20 minutes between tries: the
      // whole of it gets the one time-out, so an unreachable Bot API does not hold the start.
      await bot.init(initDeadline(this.options.timeoutMs ?? DEFAULT_TELEGRAM_TIMEOUT_MS));
      this.username = bot.botInfo.username;
    } catch (err) {
      // A wrong token or an unreachable API must not stop the vault app; the outbox keeps trying.
      this.options.log.warn({ err: String(err) }, 'telegram bot init failed');
    }
  }

  /**
   * The worker: /start long-polling and the outbox drain. One instance at a time runs it (Telegram
   * allows one getUpdates consumer per bot, and one drainer sends each message once).
   */
  async startWorker(): Promise<void> {
    const { parts, options } = this;
    if (!parts || this.timer) return;
    if (options.polling && this.username) {
      // A worker taken back after a lost lock polls again with the handlers it already has.
      if (!this.handlersInstalled) {
        this.handlersInstalled = true;
        installCommands(parts.bot, options);
      }
      // Updates sent while the server was down are still answered: a /start must not be lost.
      void parts.bot.start().catch((err: unknown) => {
        options.log.warn({ err: String(err) }, 'telegram polling stopped');
      });
    }
    await parts.history.begin();
    this.timer = setInterval(() => {
      void this.scanHistory()
        .catch((err: unknown) => options.log.warn({ err: String(err) }, 'history scan failed'))
        .then(() => this.drain());
    }, options.drainIntervalMs ?? 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (!this.parts) return;
    const { bot, history, alerts, outbox } = this.parts;
    if (bot.isRunning()) await bot.stop();
    await history.idle();
    await alerts.idle();
    await outbox.idle();
  }

  /** POST /api/telegram/link: a one-time deep link that binds the chat opening it to `address`. */
  async createLink(address: string): Promise<{ url: string; expires_at: number } | null> {
    if (!this.parts || !this.username) return null;
    return newLink(this.options.db, this.username, address);
  }

  /** SPEC §7's per-transaction call from the browser (POST /api/notify); the chats queued. */
  notify(dto: TelegramNotifyDto): Promise<number> {
    return this.parts ? this.parts.history.notify(dto) : Promise.resolve(0);
  }

  /** Queues "submitted" for new history of followed vaults and "confirmed" for confirmed ones. */
  scanHistory(): Promise<void> {
    return this.parts ? this.parts.history.scan() : Promise.resolve();
  }

  /** Risk alerts at a new oracle price (after the guardian's liquidation sweep). */
  onPriceTick(priceCents: number): Promise<void> {
    return this.parts ? this.parts.alerts.onPriceTick(priceCents) : Promise.resolve();
  }

  /** Term warnings due at a new block's height (telegram-term-warnings.ts). */
  async onBlock(tipHeight: number): Promise<void> {
    const { parts, options } = this;
    if (!parts || !options.vaultTerm) return;
    await queueTermWarnings(options.db, {
      network: options.network,
      tipHeight,
      term: options.vaultTerm,
      policy: parts.outbox.policy(RISK_ALERT_RETRIES),
    });
  }

  /** A claim a block showed can never be mined: its claimant's chats are told once. */
  async claimFailed(claim: FailedClaim): Promise<void> {
    const { parts, options } = this;
    if (!parts) return;
    await queueClaimFailed(options.db, {
      network: options.network,
      policy: parts.outbox.policy(RISK_ALERT_RETRIES),
      claim,
    });
  }

  /** Sends every due message once; overlapping calls share one pass. */
  drain(): Promise<void> {
    return this.parts ? this.parts.outbox.drain() : Promise.resolve();
  }
}
