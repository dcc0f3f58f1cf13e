// Telegram notifications (SPEC §7, issue 14). The server sends them itself, with no browser open:
// - a chat links itself to an address with a one-time code (`/start <code>`) that only the
//   address's signed-in owner can get (POST /api/telegram/link); `/status` and `/stop` answer it;
// - every history record the guardian writes for a followed vault gives a "submitted" message, and
//   its confirmation a "confirmed" one with the explorer link (a cursor and dedupe keys persist
//   what was queued, so a restart queues nothing twice);
// - on every oracle tick each followed vault's band is compared with the last one announced, and
//   entering Moderate, Risky or liquidation is announced once.
// Everything goes through the persisted outbox, drained with SPEC §7's retry policy: the create
// message is retried 5 times at 5 s, the others are not retried. Off without a bot token.
import { randomBytes } from 'node:crypto';
import { Bot, type Context } from 'grammy';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  ACTION_CODE_OF,
  ALERT_BAND_LABELS,
  alertBand,
  centsToUnitString,
  collateralRatio,
  formatHealth,
  formatUsd,
  isAlertingBand,
  liquidationPriceUsd,
  satsToBtcString,
  TELEGRAM_NOTIFY_RETRIES_ACTION,
  TELEGRAM_NOTIFY_RETRIES_CREATE,
  TELEGRAM_NOTIFY_RETRY_DELAY_MS,
  type ActionCode,
  type AlertBand,
  type Network,
  type TelegramNotifyDto,
  type VaultAction,
} from '@unit/protocol';
import type { Database } from '../store/schema';
import { getSetting, putSetting } from '../store/settings';
import {
  chatSubscriptions,
  consumeLinkCode,
  createLinkCode,
  dueOutbox,
  enqueueOutbox,
  markOutboxFailed,
  markOutboxSent,
  subscribeTelegram,
  subscribedChats,
  unsubscribeChat,
  type OutboxMessage,
} from '../store/telegram';
import { ensureUser, linkUserAccounts } from '../store/users';

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
}

const ACTION_TITLES: Record<VaultAction, string> = {
  open: 'Vault creation submitted',
  deposit: 'BTC deposit submitted',
  withdraw: 'BTC withdrawal submitted',
  borrow: 'Vault borrow submitted',
  repay: 'UNIT repayment submitted',
  repossess: 'Liquidation claim submitted',
};

const CONFIRMED_TITLES: Record<VaultAction, string> = {
  open: 'Vault creation confirmed',
  deposit: 'BTC deposit confirmed',
  withdraw: 'BTC withdrawal confirmed',
  borrow: 'Vault borrow confirmed',
  repay: 'UNIT repayment confirmed',
  repossess: 'Liquidation claim confirmed',
};

const ACTION_OF_CODE = Object.fromEntries(
  Object.entries(ACTION_CODE_OF).map(([action, code]) => [code, action]),
) as Partial<Record<ActionCode, VaultAction>>;

/** A link code: 18 random bytes, base64url (Telegram start payloads allow [A-Za-z0-9_-]{1,64}). */
const LINK_CODE = /^[A-Za-z0-9_-]{24}$/;
/** How long a link code can be used: the time to open Telegram and press Start. */
export const LINK_CODE_TTL_S = 10 * 60;
/** History records looked at per pass; the cursor moves on by this many at most. */
const HISTORY_BATCH = 200;
/** Followed vaults compared per tick (bounded; far above what one bot serves today). */
const ALERT_BATCH = 2000;
const CURSOR_SETTING = 'telegram.history_cursor';

export function notificationText(dto: TelegramNotifyDto, explorerUrl: string): string {
  const lines = [ACTION_TITLES[dto.tx_action]];
  if (dto.btc_amount > 0) lines.push(`BTC: ${satsToBtcString(dto.btc_amount)}`);
  if (dto.unit_amount > 0) lines.push(`UNIT: ${centsToUnitString(dto.unit_amount)}`);
  lines.push(`Vault: ${dto.vault_id}`);
  lines.push(txLine(explorerUrl, dto.tx_id));
  return lines.join('\n');
}

function txLine(explorerUrl: string, txid: string): string {
  return explorerUrl.startsWith('http')
    ? `${explorerUrl.replace(/\/$/, '')}/tx/${txid}`
    : `Transaction: ${txid}`;
}

const submittedKey = (txid: string, chat: string) => `tx:${txid}:${chat}:submitted`;

export class TelegramNotifier {
  readonly bot: Bot | null;
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private scanning: Promise<void> | null = null;
  private alerting: Promise<void> = Promise.resolve();
  private username: string | null = null;
  private handlersInstalled = false;
  private readonly explorerUrl: string;

  constructor(private readonly options: TelegramNotifierOptions) {
    this.bot = options.token
      ? new Bot(options.token, {
          client: options.apiRoot ? { apiRoot: options.apiRoot } : {},
        })
      : null;
    const { explorerUrl, origin } = options;
    this.explorerUrl =
      !explorerUrl.startsWith('http') && origin
        ? `${origin.replace(/\/$/, '')}/${explorerUrl.replace(/^\//, '')}`
        : explorerUrl;
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
    await this.startWorker();
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
  async startWorker(): Promise<void> {
    const { bot, options } = this;
    if (!bot || this.timer) return;
    if (options.polling && this.username) {
      // A worker taken back after a lost lock polls again with the handlers it already has.
      if (!this.handlersInstalled) this.installHandlers(bot);
      // Updates sent while the server was down are still answered: a /start must not be lost.
      void bot.start().catch((err: unknown) => {
        options.log.warn({ err: String(err) }, 'telegram polling stopped');
      });
    }
    // The first start begins at the newest record: nothing older is announced.
    if ((await getSetting(options.db, CURSOR_SETTING)) === null) {
      await putSetting(options.db, CURSOR_SETTING, String(await this.newestHistoryId()));
    }
    this.timer = setInterval(() => {
      void this.scanHistory()
        .catch((err: unknown) => options.log.warn({ err: String(err) }, 'history scan failed'))
        .then(() => this.drain());
    }, options.drainIntervalMs ?? 1000);
    this.timer.unref();
  }

  private installHandlers(bot: Bot): void {
    const { options } = this;
    this.handlersInstalled = true;
    bot.command('start', (ctx) => this.onStart(ctx));
    bot.command('status', (ctx) => this.onStatus(ctx));
    bot.command('stop', (ctx) => this.onStop(ctx));
    bot.command('alerts', (ctx) => this.onAlerts(ctx));
    bot.catch((err) => options.log.warn({ err: String(err.error) }, 'telegram update failed'));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.bot?.isRunning()) await this.bot.stop();
    await this.scanning;
    await this.alerting;
    await this.draining;
  }

  /** POST /api/telegram/link: a one-time deep link that binds the chat opening it to `address`. */
  async createLink(address: string): Promise<{ url: string; expires_at: number } | null> {
    if (!this.bot || !this.username) return null;
    const code = randomBytes(18).toString('base64url');
    const expiresAt = Math.floor(Date.now() / 1000) + LINK_CODE_TTL_S;
    await createLinkCode(this.options.db, { code, address, expires_at: expiresAt });
    return { url: `https://t.me/${this.username}?start=${code}`, expires_at: expiresAt };
  }

  private async onStart(ctx: Context): Promise<void> {
    const { db, network } = this.options;
    const code = typeof ctx.match === 'string' ? ctx.match.trim() : '';
    const chatId = String(ctx.chat!.id);
    if (code === '') {
      await ctx.reply(
        "To follow your vault, press 'Enable Telegram Notification' in the vault app and open " +
          'the link it gives you.',
      );
      return;
    }
    const address = LINK_CODE.test(code) ? await consumeLinkCode(db, code) : null;
    if (!address) {
      await ctx.reply(
        'This link has expired or was already used. In the vault app, press ' +
          "'Enable Telegram Notification' again for a new one.",
      );
      return;
    }
    await subscribeTelegram(db, { address, chat_id: chatId, network });
    await ensureUser(db, address);
    await linkUserAccounts(db, address, { telegram_id: String(ctx.from?.id ?? chatId) });
    await ctx.reply(
      `Linked to ${address}.\n` +
        'You will get a message when a vault transaction is submitted and confirmed, and when ' +
        'your vault becomes Moderate, Risky or is liquidated.\n' +
        'Send /status for your vault, /alerts off to stop risk alerts, /stop to end notifications.',
    );
  }

  private async onStatus(ctx: Context): Promise<void> {
    const { db, network } = this.options;
    const addresses = await chatSubscriptions(db, String(ctx.chat!.id), network);
    if (addresses.length === 0) {
      await ctx.reply(
        "This chat follows no vault. In the vault app, press 'Enable Telegram Notification'.",
      );
      return;
    }
    const vaults = await db
      .selectFrom('vaults')
      .selectAll()
      .where('creation_account', 'in', addresses)
      .where('status', '!=', 'repossessed')
      .orderBy('created_at', 'desc')
      .limit(10)
      .execute();
    const price = await this.latestPriceUsd();
    const lines: string[] = [];
    for (const address of addresses) {
      const own = vaults.filter((v) => v.creation_account === address);
      if (own.length === 0) lines.push(`${address}: no vault yet.`);
      for (const v of own) {
        const ratio = collateralRatio(v.btc_locked, v.unit_borrowed, price);
        const band = alertBand(v, price);
        const liquidation = liquidationPriceUsd(v.btc_locked, v.unit_borrowed);
        lines.push(
          [
            `Vault ${v.vault_tag} (${address})`,
            `Collateral: ${satsToBtcString(v.btc_locked)} BTC`,
            `Debt: ${centsToUnitString(v.unit_borrowed)} UNIT`,
            `Ratio: ${formatHealth(ratio)} (${ALERT_BAND_LABELS[band]})`,
            `Liquidation price: ${liquidation === null ? 'none' : formatUsd(liquidation)}`,
          ].join('\n'),
        );
      }
    }
    await ctx.reply(lines.join('\n\n'));
  }

  /** `/alerts off` stops the risk alerts (transaction messages go on); `/alerts on` resumes. */
  private async onAlerts(ctx: Context): Promise<void> {
    const { db, network } = this.options;
    const chatId = String(ctx.chat!.id);
    const choice = typeof ctx.match === 'string' ? ctx.match.trim().toLowerCase() : '';
    if (choice !== 'on' && choice !== 'off') {
      await ctx.reply('Send /alerts off to stop risk alerts, /alerts on to resume them.');
      return;
    }
    const updated = await db
      .updateTable('telegram_subscriptions')
      .set({ risk_alerts: choice === 'on' ? 1 : 0 })
      .where('chat_id', '=', chatId)
      .where('network', '=', network)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) {
      await ctx.reply(
        "This chat follows no vault. In the vault app, press 'Enable Telegram Notification'.",
      );
      return;
    }
    // Back on: the next tick compares afresh, so a vault already at risk is announced again.
    if (choice === 'on') {
      await db.deleteFrom('telegram_alert_bands').where('chat_id', '=', chatId).execute();
    }
    await ctx.reply(choice === 'on' ? 'Risk alerts are on.' : 'Risk alerts are off.');
  }

  private async onStop(ctx: Context): Promise<void> {
    const { db } = this.options;
    const chatId = String(ctx.chat!.id);
    const addresses = await unsubscribeChat(db, chatId);
    if (addresses.length > 0) {
      await db
        .updateTable('users')
        .set({ telegram_id: null })
        .where('address', 'in', addresses)
        .execute();
    }
    await ctx.reply(
      addresses.length > 0
        ? 'Notifications are off. Link again from the vault app whenever you like.'
        : 'This chat had no notifications to stop.',
    );
  }

  /**
   * SPEC §7's per-transaction call from the browser: queued under the same key as the server's own
   * "submitted" message, so whichever comes first is the only one sent.
   */
  async notify(dto: TelegramNotifyDto): Promise<number> {
    if (!this.bot) return 0;
    const { db, network } = this.options;
    if (dto.network !== network) return 0;
    const chats = await subscribedChats(db, dto.address, network);
    const text = notificationText(dto, this.explorerUrl);
    await enqueueOutbox(
      db,
      chats.map((chat_id) => ({
        chat_id,
        text,
        ...this.retries(dto.tx_action),
        dedupe_key: submittedKey(dto.tx_id, chat_id),
      })),
    );
    return chats.length;
  }

  private retries(action: VaultAction): Pick<OutboxMessage, 'max_attempts' | 'retry_delay_ms'> {
    const retries =
      action === 'open' ? TELEGRAM_NOTIFY_RETRIES_CREATE : TELEGRAM_NOTIFY_RETRIES_ACTION;
    return {
      max_attempts: 1 + retries,
      retry_delay_ms: this.options.retryDelayMs ?? TELEGRAM_NOTIFY_RETRY_DELAY_MS,
    };
  }

  /** Queues "submitted" for new history of followed vaults and "confirmed" for confirmed ones. */
  scanHistory(): Promise<void> {
    if (!this.bot) return Promise.resolve();
    this.scanning ??= this.scanOnce().finally(() => {
      this.scanning = null;
    });
    return this.scanning;
  }

  private async scanOnce(): Promise<void> {
    const { db, network } = this.options;
    const cursor = Number((await getSetting(db, CURSOR_SETTING)) ?? 0);
    const ids = await db
      .selectFrom('vault_history')
      .select('id')
      .where('id', '>', cursor)
      .orderBy('id')
      .limit(HISTORY_BATCH)
      .execute();
    if (ids.length > 0) {
      const last = ids[ids.length - 1]!.id;
      const rows = await db
        .selectFrom('vault_history as h')
        .innerJoin('vaults as v', 'v.vault_id', 'h.vault_id')
        .innerJoin('telegram_subscriptions as s', 's.address', 'v.creation_account')
        .select([
          'h.id',
          'h.action',
          'h.btc_amt',
          'h.unit_amt',
          'h.vault_id',
          'h.transaction_id',
          'h.confirmed',
          'v.status',
          's.chat_id',
        ])
        .where('h.id', '>', cursor)
        .where('h.id', '<=', last)
        .where('s.network', '=', network)
        .orderBy('h.id')
        .execute();
      const messages: OutboxMessage[] = [];
      const watch = new Set<number>();
      for (const row of rows) {
        const action = ACTION_OF_CODE[row.action as ActionCode];
        // Liquidations are announced by the risk alerts, once per vault and chat.
        if (!action) continue;
        const dto: TelegramNotifyDto = {
          network,
          address: '',
          tx_id: row.transaction_id,
          tx_action: action,
          btc_amount: Number(row.btc_amt),
          unit_amount: Number(row.unit_amt),
          vault_id: row.vault_id,
        };
        // The liquidated vault's own `x` record: its owner learns the claim, not "submitted".
        const text =
          action === 'repossess' && row.status === 'repossessed'
            ? `Your liquidated vault was repossessed.\nVault: ${row.vault_id}\n${txLine(this.explorerUrl, row.transaction_id)}`
            : notificationText(dto, this.explorerUrl);
        messages.push({
          chat_id: row.chat_id,
          text,
          ...this.retries(action),
          dedupe_key: submittedKey(row.transaction_id, row.chat_id),
        });
        watch.add(row.id);
      }
      await db.transaction().execute(async (trx) => {
        await enqueueOutbox(trx, messages);
        if (watch.size > 0) {
          const now = Math.floor(Date.now() / 1000);
          await trx
            .insertInto('telegram_watch')
            .values([...watch].map((history_id) => ({ history_id, created_at: now })))
            .onConflict((oc) => oc.column('history_id').doNothing())
            .execute();
        }
        await putSetting(trx, CURSOR_SETTING, String(last));
      });
    }
    await this.announceConfirmations();
  }

  private async announceConfirmations(): Promise<void> {
    const { db, network } = this.options;
    const rows = await db
      .selectFrom('telegram_watch as w')
      .innerJoin('vault_history as h', 'h.id', 'w.history_id')
      .innerJoin('vaults as v', 'v.vault_id', 'h.vault_id')
      .innerJoin('telegram_subscriptions as s', 's.address', 'v.creation_account')
      .select(['w.history_id', 'h.action', 'h.vault_id', 'h.transaction_id', 's.chat_id'])
      .where('h.confirmed', '=', 1)
      .where('s.network', '=', network)
      .orderBy('w.history_id')
      .limit(HISTORY_BATCH)
      .execute();
    if (rows.length === 0) return;
    const messages: OutboxMessage[] = rows.map((row) => {
      const action = ACTION_OF_CODE[row.action as ActionCode] ?? 'deposit';
      return {
        chat_id: row.chat_id,
        text: `${CONFIRMED_TITLES[action]}\nVault: ${row.vault_id}\n${txLine(this.explorerUrl, row.transaction_id)}`,
        ...this.retries(action),
        dedupe_key: `tx:${row.transaction_id}:${row.chat_id}:confirmed`,
      };
    });
    await db.transaction().execute(async (trx) => {
      await enqueueOutbox(trx, messages);
      await trx
        .deleteFrom('telegram_watch')
        .where(
          'history_id',
          'in',
          rows.map((r) => r.history_id),
        )
        .execute();
    });
  }

  /**
   * Risk alerts at a new oracle price: each followed vault's band against the last one stored for
   * its chat; a change is stored, and announced when it enters Moderate, Risky or liquidation.
   * Ticks are handled one after another so two never compare against the same stored band.
   */
  onPriceTick(priceCents: number): Promise<void> {
    if (!this.bot) return Promise.resolve();
    const next = this.alerting.then(() => this.compareBands(priceCents));
    this.alerting = next.catch((err: unknown) => {
      this.options.log.warn({ err: String(err) }, 'risk alerts failed');
    });
    return next;
  }

  private async compareBands(priceCents: number): Promise<void> {
    const { db, network } = this.options;
    const price = priceCents / 100;
    const rows = await db
      .selectFrom('telegram_subscriptions as s')
      .innerJoin('vaults as v', 'v.creation_account', 's.address')
      .leftJoin('telegram_alert_bands as b', (join) =>
        join.onRef('b.chat_id', '=', 's.chat_id').onRef('b.vault_id', '=', 'v.vault_id'),
      )
      .select([
        's.chat_id',
        'v.vault_id',
        'v.vault_tag',
        'v.status',
        'v.btc_locked',
        'v.unit_borrowed',
        'v.threshold_cents',
        'b.band',
      ])
      .where('s.network', '=', network)
      .where('s.risk_alerts', '=', 1)
      .where('v.status', 'in', ['active', 'liquidated'])
      .orderBy('v.vault_id')
      .limit(ALERT_BATCH)
      .execute();
    const now = Math.floor(Date.now() / 1000);
    for (const row of rows) {
      const band = alertBand(row, price);
      if (band === row.band) continue;
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('telegram_alert_bands')
          .values({ chat_id: row.chat_id, vault_id: row.vault_id, band, updated_at: now })
          .onConflict((oc) =>
            oc.columns(['chat_id', 'vault_id']).doUpdateSet({ band, updated_at: now }),
          )
          .execute();
        if (!isAlertingBand(band)) return;
        await enqueueOutbox(trx, [
          {
            chat_id: row.chat_id,
            text: riskAlertText(row, band, price),
            max_attempts: 1 + TELEGRAM_NOTIFY_RETRIES_CREATE,
            retry_delay_ms: this.options.retryDelayMs ?? TELEGRAM_NOTIFY_RETRY_DELAY_MS,
            dedupe_key: `band:${row.chat_id}:${row.vault_id}:${band}:${now}`,
          },
        ]);
      });
    }
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

  private async newestHistoryId(): Promise<number> {
    const row = await this.options.db
      .selectFrom('vault_history')
      .select('id')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.id ?? 0;
  }

  private async latestPriceUsd(): Promise<number | null> {
    const row = await this.options.db
      .selectFrom('price_points')
      .select('price_cents')
      .orderBy('timestamp', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.price_cents) / 100 : null;
  }
}

function riskAlertText(
  vault: { vault_tag: string; btc_locked: number; unit_borrowed: number },
  band: AlertBand,
  price: number,
): string {
  if (band === 'liquidated') {
    return [
      `Vault ${vault.vault_tag} was liquidated at BTC ${formatUsd(price)}.`,
      'Its collateral can now be repossessed by another vault.',
    ].join('\n');
  }
  const ratio = collateralRatio(vault.btc_locked, vault.unit_borrowed, price);
  const liquidation = liquidationPriceUsd(vault.btc_locked, vault.unit_borrowed);
  return [
    `Vault ${vault.vault_tag} is now ${ALERT_BAND_LABELS[band]}: collateral ratio ${formatHealth(ratio)} at BTC ${formatUsd(price)}.`,
    `Liquidation price: ${liquidation === null ? 'none' : formatUsd(liquidation)}.`,
    'Deposit BTC or repay UNIT to stay clear of liquidation.',
  ].join('\n');
}
