// Telegram messages the server composes itself, with no browser: a real guardian on a real devnet
// writes the history, and the notifier (grammy against a fake Bot API) announces each submitted
// and confirmed transaction of a followed vault and each entry into a risky band, once, also
// across a restart.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TelegramNotifier } from '../src/notify/telegram';
import { accountMigrations } from '../src/auth/migrations';
import { devnetMigrations } from '../src/devnet/migrations';
import { guardianMigrations } from '../src/cosign';
import { migrateToLatest, subscribeTelegram } from '../src/store';
import { FAKE_BOT_TOKEN, startFakeBotApi, type FakeBotApi } from './fake-bot-api';
import { call, startHarness, type Harness, type TestWallet } from './guardian/harness';

const CHAT = 501;
const QUIET = 502;

describe('messages from guardian and chain events', () => {
  let h: Harness;
  let bot: FakeBotApi;
  let alice: TestWallet;
  let notifier: TelegramNotifier;
  const makeNotifier = () =>
    new TelegramNotifier({
      db: h.store.db,
      network: 'devnet',
      token: FAKE_BOT_TOKEN,
      apiRoot: bot.url,
      explorerUrl: '/explorer',
      origin: 'http://unit.test',
      log: pino({ level: 'silent' }),
      drainIntervalMs: 20,
      retryDelayMs: 20,
      polling: false,
    });
  const texts = () => bot.sent.filter((m) => m.chat_id === String(CHAT)).map((m) => m.text);
  const settle = () => new Promise((r) => setTimeout(r, 200));
  const tick = async (usd: number) => {
    h.clock.now += 30;
    const point = await h.oracle.setPrice(usd * 100);
    await h.guardian.onPriceTick(point.priceCents, point.timestamp);
    await notifier.onPriceTick(point.priceCents);
  };

  beforeAll(async () => {
    h = await startHarness();
    await migrateToLatest(h.store.db, {
      ...devnetMigrations,
      ...guardianMigrations,
      ...accountMigrations,
    });
    bot = await startFakeBotApi();
    notifier = makeNotifier();
    await notifier.start();
    alice = await h.wallet('alice');
    await subscribeTelegram(h.store.db, {
      address: alice.paymentAddress,
      chat_id: String(CHAT),
      network: 'devnet',
    });
    // A second chat of the same owner that sent /alerts off: transactions only.
    await subscribeTelegram(h.store.db, {
      address: alice.paymentAddress,
      chat_id: String(QUIET),
      network: 'devnet',
    });
    await h.store.db
      .updateTable('telegram_subscriptions')
      .set({ risk_alerts: 0 })
      .where('chat_id', '=', String(QUIET))
      .execute();
  });
  afterAll(async () => {
    await notifier.stop();
    await bot.close();
    await h.close();
  });

  it('announces an opening and a deposit when submitted and when confirmed', async () => {
    await call(h.guardian, 'vault.open', (await alice.open(1_000_000n, 59_000n)).request);
    expect(await bot.waitForMessage(CHAT, 'Vault creation submitted')).toContain('UNIT: 590.00');
    const { request } = await alice.deposit(500_000n);
    const { vault_txid: txid } = await call<{ vault_txid: string }>(
      h.guardian,
      'vault.deposit',
      request,
    );
    const submitted = await bot.waitForMessage(CHAT, 'BTC deposit submitted');
    expect(submitted).toContain('BTC: 0.005');
    expect(submitted).toContain(`http://unit.test/explorer/tx/${txid}`);
    expect(texts().join('\n')).not.toContain('confirmed');

    await h.devnet.mine(1);
    await h.guardian.onBlock();
    const confirmed = await bot.waitForMessage(CHAT, 'BTC deposit confirmed');
    expect(confirmed).toContain(`http://unit.test/explorer/tx/${txid}`);
    await bot.waitForMessage(CHAT, 'Vault creation confirmed');
    await settle();
    expect(texts()).toHaveLength(4);
  });

  it('alerts once when the vault enters Moderate, then Risky, after price drops', async () => {
    // 0.015 BTC backing 590 UNIT: ratio = price / 393.33.
    await tick(95_000); // 241%: Healthy, stored, no message
    await tick(70_000); // 178%: Moderate
    const moderate = await bot.waitForMessage(CHAT, 'is now Moderate');
    expect(moderate).toContain('collateral ratio 178%');
    expect(moderate).toContain('Liquidation price: $53,100');
    await tick(69_000); // still Moderate: nothing new
    await tick(60_000); // 153%: Risky
    await bot.waitForMessage(CHAT, 'is now Risky');
    await tick(60_500);
    await settle();
    expect(texts().filter((t) => t.includes('is now'))).toHaveLength(2);
    const quiet = bot.sent.filter((m) => m.chat_id === String(QUIET)).map((m) => m.text);
    expect(quiet.some((t) => t.includes('BTC deposit confirmed'))).toBe(true);
    expect(quiet.some((t) => t.includes('is now'))).toBe(false);
  });

  it('sends nothing twice after a restart, then announces the liquidation', async () => {
    const before = texts().length;
    await notifier.stop();
    notifier = makeNotifier();
    await notifier.start();
    await tick(60_000); // Risky was announced before the restart
    await h.devnet.mine(1);
    await h.guardian.onBlock();
    await notifier.scanHistory();
    await settle();
    expect(texts()).toHaveLength(before);

    await tick(53_000); // under the threshold: the sweep liquidates, the alert follows
    expect(await bot.waitForMessage(CHAT, 'was liquidated')).toContain('BTC $53,000');
    await tick(52_000);
    await settle();
    expect(texts()).toHaveLength(before + 1);
  });
});
