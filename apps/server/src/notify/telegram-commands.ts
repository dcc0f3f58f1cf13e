// The bot's commands (grammy): a chat links itself to an address with a one-time code
// (`/start <code>`) that only the address's signed-in owner can get (POST /api/telegram/link);
// `/status` shows the followed vaults, `/alerts on|off` turns the risk alerts on or off, and
// `/stop` ends the notifications.
import { randomBytes } from 'node:crypto';
import type { Bot, Context } from 'grammy';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  ALERT_BAND_LABELS,
  alertBand,
  centsToUnitString,
  collateralRatio,
  formatHealth,
  formatUsd,
  liquidationPriceUsd,
  satsToBtcString,
  type Network,
} from '@unit/protocol';
import type { Database } from '../store/schema';
import {
  chatSubscriptions,
  consumeLinkCode,
  createLinkCode,
  subscribeTelegram,
  unsubscribeChat,
} from '../store/telegram';
import { ensureUser, linkUserAccounts } from '../store/users';

/** A link code: 18 random bytes, base64url (Telegram start payloads allow [A-Za-z0-9_-]{1,64}). */
const LINK_CODE = /^[A-Za-z0-9_-]{24}$/;
/** How long a link code can be used: the time to open Telegram and press Start. */
const LINK_CODE_TTL_S = 10 * 60;

const NOT_FOLLOWING =
  "This chat follows no vault. In the vault app, press 'Enable Telegram Notification'.";

export interface TelegramCommandsOptions {
  db: Kysely<Database>;
  network: Network;
  log: Logger;
}

/** POST /api/telegram/link: a one-time deep link that binds the chat opening it to `address`. */
export async function newLink(
  db: Kysely<Database>,
  botUsername: string,
  address: string,
): Promise<{ url: string; expires_at: number }> {
  const code = randomBytes(18).toString('base64url');
  const expiresAt = Math.floor(Date.now() / 1000) + LINK_CODE_TTL_S;
  await createLinkCode(db, { code, address, expires_at: expiresAt });
  return { url: `https://t.me/${botUsername}?start=${code}`, expires_at: expiresAt };
}

export function installCommands(bot: Bot, options: TelegramCommandsOptions): void {
  bot.command('start', (ctx) => onStart(ctx, options));
  bot.command('status', (ctx) => onStatus(ctx, options));
  bot.command('stop', (ctx) => onStop(ctx, options));
  bot.command('alerts', (ctx) => onAlerts(ctx, options));
  bot.catch((err) => options.log.warn({ err: String(err.error) }, 'telegram update failed'));
}

async function onStart(ctx: Context, { db, network }: TelegramCommandsOptions): Promise<void> {
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

async function onStatus(ctx: Context, { db, network }: TelegramCommandsOptions): Promise<void> {
  const addresses = await chatSubscriptions(db, String(ctx.chat!.id), network);
  if (addresses.length === 0) {
    await ctx.reply(NOT_FOLLOWING);
    return;
  }
  const vaults = await db
    .selectFrom('vaults')
    .selectAll()
    .where('creation_account', 'in', addresses)
    // A repossessed, settled or exited vault holds nothing: /status lists the others.
    .where('status', 'not in', ['repossessed', 'settled', 'exited'])
    .orderBy('created_at', 'desc')
    .limit(10)
    .execute();
  const price = await latestPriceUsd(db);
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
async function onAlerts(ctx: Context, { db, network }: TelegramCommandsOptions): Promise<void> {
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
    await ctx.reply(NOT_FOLLOWING);
    return;
  }
  // Back on: the next tick compares afresh, so a vault already at risk is announced again.
  if (choice === 'on') {
    await db.deleteFrom('telegram_alert_bands').where('chat_id', '=', chatId).execute();
  }
  await ctx.reply(choice === 'on' ? 'Risk alerts are on.' : 'Risk alerts are off.');
}

async function onStop(ctx: Context, { db }: TelegramCommandsOptions): Promise<void> {
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

async function latestPriceUsd(db: Kysely<Database>): Promise<number | null> {
  const row = await db
    .selectFrom('price_points')
    .select('price_cents')
    .orderBy('timestamp', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.price_cents) / 100 : null;
}
