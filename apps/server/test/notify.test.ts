// Telegram against a fake Bot API on loopback: grammy talks real HTTP to it. The outbox's retry
// policy, the browser's per-transaction call (now only from the signed-in owner), linking a chat
// with a one-time code, /start, /status, /stop, a message with no browser, and the state without
// a bot token.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiErrorDto, ConfigDto, TelegramLinkDto } from '@unit/protocol';
import {
  appendVaultHistory,
  getUser,
  insertVault,
  listOutbox,
  subscribeTelegram,
} from '../src/store';
import { postAs, signIn, testAccount } from './accounts';
import {
  FAKE_BOT_TOKEN,
  FAKE_BOT_USERNAME,
  startFakeBotApi,
  type FakeBotApi,
} from './fake-bot-api';
import { postJson, startTestApp, type RunningApp } from './support';
import { historyEntry, savingsVault } from './rows';

const owner = testAccount(0x31);
const CHAT = 777;

const notification = (tx_action: string) => ({
  network: 'devnet',
  address: owner.address,
  tx_id: 'ab'.repeat(32),
  tx_action,
  btc_amount: 150_000_000,
  unit_amount: 250_050,
  vault_id: 'cd'.repeat(32),
});

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('Telegram notifications from the browser call', () => {
  let bot: FakeBotApi;
  let server: RunningApp;
  let cookie: string;

  beforeEach(async () => {
    bot = await startFakeBotApi();
    server = await startTestApp(
      { TELEGRAM_BOT_TOKEN: FAKE_BOT_TOKEN, TELEGRAM_API_ROOT: bot.url },
      { telegramPolling: false, telegramDrainIntervalMs: 20, telegramRetryDelayMs: 20 },
    );
    await subscribeTelegram(server.store.db, {
      address: owner.address,
      chat_id: String(CHAT),
      network: 'devnet',
    });
    cookie = await signIn(server.url, owner);
  });
  afterEach(async () => {
    await server.stop();
    await bot.close();
  });

  it('names the bot in /api/config once the Bot API answers getMe', async () => {
    const res = await fetch(`${server.url}/api/config`);
    expect(((await res.json()) as ConfigDto).telegramBot).toBe(FAKE_BOT_USERNAME);
  });

  it("refuses a notice without the owner's session", async () => {
    const anonymous = await postJson(`${server.url}/api/notify`, notification('deposit'));
    expect(anonymous.status).toBe(401);
    const stranger = await signIn(server.url, testAccount(0x32));
    const foreign = await postAs(stranger, `${server.url}/api/notify`, notification('deposit'));
    expect(foreign.status).toBe(403);
    expect(await listOutbox(server.store.db)).toEqual([]);
  });

  it('queues a notice and the worker delivers it to the following chat, once', async () => {
    const res = await postAs(cookie, `${server.url}/api/notify`, notification('deposit'));
    expect(res).toEqual({ status: 202, body: { queued: 1, enabled: true } });
    // The same transaction announced again (a retry of the browser) is not queued twice.
    await postAs(cookie, `${server.url}/api/notify`, notification('deposit'));
    const text = await bot.waitForMessage(CHAT, 'BTC deposit submitted');
    expect(text).toContain('BTC: 1.5');
    expect(text).toContain('UNIT: 2,500.50');
    await new Promise((r) => setTimeout(r, 100));
    expect(bot.sent).toHaveLength(1);
  });

  it('retries the create notification until it gets through (SPEC §7: 5 retries)', async () => {
    bot.failNext = 5;
    await postAs(cookie, `${server.url}/api/notify`, notification('open'));
    await until(async () => (await listOutbox(server.store.db))[0]?.status === 'sent');
    expect(bot.sent).toHaveLength(1);
    const [row] = await listOutbox(server.store.db);
    expect(row).toMatchObject({ status: 'sent', attempts: 6, max_attempts: 6 });
  });

  it('does not retry an action notification (SPEC §7: 0 retries)', async () => {
    bot.failNext = 1;
    await postAs(cookie, `${server.url}/api/notify`, notification('borrow'));
    await until(async () => (await listOutbox(server.store.db))[0]?.status === 'failed');
    await new Promise((r) => setTimeout(r, 100));
    expect(bot.sent).toEqual([]);
    expect((await listOutbox(server.store.db))[0]).toMatchObject({ attempts: 1, max_attempts: 1 });
  });

  it('queues nothing for an address no chat follows', async () => {
    const loner = testAccount(0x33);
    const res = await postAs(await signIn(server.url, loner), `${server.url}/api/notify`, {
      ...notification('repay'),
      address: loner.address,
    });
    expect(res.body).toEqual({ queued: 0, enabled: true });
  });
});

describe('linking a chat through the bot', () => {
  let bot: FakeBotApi;
  let server: RunningApp;

  beforeEach(async () => {
    bot = await startFakeBotApi();
    server = await startTestApp(
      { TELEGRAM_BOT_TOKEN: FAKE_BOT_TOKEN, TELEGRAM_API_ROOT: bot.url },
      { telegramDrainIntervalMs: 20, telegramRetryDelayMs: 20 },
    );
  });
  afterEach(async () => {
    await server.stop();
    await bot.close();
  });

  const link = async (cookie: string | null) =>
    postAs(cookie, `${server.url}/api/telegram/link`, {});

  it('links with a one-time code, answers /status and /stop, and messages with no browser', async () => {
    expect((await link(null)).status).toBe(401);
    const cookie = await signIn(server.url, owner);
    const res = await link(cookie);
    expect(res.status).toBe(200);
    const { url } = res.body as TelegramLinkDto;
    const code = new URL(url).searchParams.get('start')!;
    expect(url).toBe(`https://t.me/${FAKE_BOT_USERNAME}?start=${code}`);
    expect(code).toMatch(/^[A-Za-z0-9_-]{24}$/);

    // An address in place of a code (the old scheme) links nothing.
    bot.sendText(CHAT + 1, `/start ${owner.address}`);
    await bot.waitForMessage(CHAT + 1, 'expired or was already used');

    bot.sendText(CHAT, `/start ${code}`);
    expect(await bot.waitForMessage(CHAT, 'Linked to')).toContain(owner.address);
    expect((await getUser(server.store.db, owner.address))?.telegram_id).toBe(String(CHAT));

    // The code is spent: another chat cannot use it.
    bot.sendText(CHAT + 2, `/start ${code}`);
    await bot.waitForMessage(CHAT + 2, 'expired or was already used');

    bot.sendText(CHAT, '/status');
    expect(await bot.waitForMessage(CHAT, 'no vault yet')).toContain(owner.address);

    // The guardian's store writes a vault and its deposit: the app's own loop announces it.
    const vaultId = 'ef'.repeat(32);
    const depositTx = '12'.repeat(32);
    await insertVault(
      server.store.db,
      savingsVault({
        vault_id: vaultId,
        vault_tag: 'efefefef',
        creation_account: owner.address,
        runes_account: owner.taprootAddress,
      }),
    );
    await appendVaultHistory(
      server.store.db,
      historyEntry({
        vault_id: vaultId,
        timestamp: 1_700_000_100,
        action: 'd',
        btc_amt: 10_000_000,
        unit_amt: 0,
        oracle_price: 95_000,
        transaction_id: depositTx,
        confirmed: 0,
      }),
    );
    const deposit = await bot.waitForMessage(CHAT, 'BTC deposit submitted');
    expect(deposit).toContain('BTC: 0.1');
    expect(deposit).toContain(`/explorer/tx/${depositTx}`);

    bot.sendText(CHAT, '/status');
    const status = await bot.waitForMessage(CHAT, 'Collateral:');
    expect(status).toContain('Collateral: 0.5 BTC');
    expect(status).toContain('Debt: 10,000.00 UNIT');
    expect(status).toMatch(/Ratio: \d+%/);
    expect(status).toContain('Liquidation price: $27,000');

    bot.sendText(CHAT, '/alerts off');
    await bot.waitForMessage(CHAT, 'Risk alerts are off.');
    const subscription = () =>
      server.store.db
        .selectFrom('telegram_subscriptions')
        .select('risk_alerts')
        .where('chat_id', '=', String(CHAT))
        .executeTakeFirst();
    expect(await subscription()).toEqual({ risk_alerts: 0 });
    bot.sendText(CHAT, '/alerts on');
    await bot.waitForMessage(CHAT, 'Risk alerts are on.');
    expect(await subscription()).toEqual({ risk_alerts: 1 });

    bot.sendText(CHAT + 3, '/start');
    await bot.waitForMessage(CHAT + 3, "press 'Enable Telegram Notification'");

    bot.sendText(CHAT, '/stop');
    await bot.waitForMessage(CHAT, 'Notifications are off');
    expect((await getUser(server.store.db, owner.address))?.telegram_id).toBeNull();
    bot.sendText(CHAT, '/status');
    await bot.waitForMessage(CHAT, 'follows no vault');

    const methods = new Set(bot.requests.map((r) => r.method));
    expect(methods).toEqual(new Set(['getMe', 'deleteWebhook', 'getUpdates', 'sendMessage']));
  });
});

describe('without a bot token', () => {
  it('says Telegram is not configured', async () => {
    const server = await startTestApp();
    try {
      const config = (await (await fetch(`${server.url}/api/config`)).json()) as ConfigDto;
      expect(config.telegramBot).toBeNull();
      const res = await postAs(
        await signIn(server.url, owner),
        `${server.url}/api/telegram/link`,
        {},
      );
      expect(res.status).toBe(503);
      expect((res.body as ApiErrorDto).code).toBe('not_configured');
    } finally {
      await server.stop();
    }
  });
});
