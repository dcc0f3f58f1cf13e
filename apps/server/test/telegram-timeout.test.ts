// Every Telegram Bot API call has our own time-out (TELEGRAM_TIMEOUT; grammy's would be 500 s),
// against the fake Bot API on loopback holding its answers: the start does not wait on getMe, a
// sendMessage unanswered is given up and retried by the outbox, and the long poll is not cut.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigDto } from '@unit/protocol';
import { listOutbox, subscribeTelegram } from '../src/store';
import { postAs, signIn, testAccount } from './accounts';
import {
  FAKE_BOT_TOKEN,
  FAKE_BOT_USERNAME,
  startFakeBotApi,
  type FakeBotApi,
} from './fake-bot-api';
import { startTestApp, type RunningApp } from './support';

const owner = testAccount(0x41);
const CHAT = 778;
const TIMEOUT_MS = 300;

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a Telegram Bot API too slow to answer', () => {
  let bot: FakeBotApi;
  let server: RunningApp | null = null;
  const start = (polling: boolean) =>
    startTestApp(
      {
        TELEGRAM_BOT_TOKEN: FAKE_BOT_TOKEN,
        TELEGRAM_API_ROOT: bot.url,
        TELEGRAM_TIMEOUT: String(TIMEOUT_MS),
      },
      { telegramPolling: polling, telegramDrainIntervalMs: 20, telegramRetryDelayMs: 20 },
    );

  beforeEach(async () => {
    bot = await startFakeBotApi();
  });
  afterEach(async () => {
    await server?.stop();
    server = null;
    await bot.close();
  });

  it('does not hold the start: getMe unanswered is given up, and the bot is unnamed', async () => {
    bot.holdNext.getMe = 1;
    server = await start(false);
    expect(bot.held.getMe).toBe(1);
    const config = (await (await fetch(`${server.url}/api/config`)).json()) as ConfigDto;
    expect(config.telegramBot).toBeNull();
  });

  it('gives up a sendMessage unanswered, and the outbox sends it again', async () => {
    server = await start(false);
    await subscribeTelegram(server.store.db, {
      address: owner.address,
      chat_id: String(CHAT),
      network: 'devnet',
    });
    bot.holdNext.sendMessage = 1;
    const cookie = await signIn(server.url, owner);
    await postAs(cookie, `${server.url}/api/notify`, {
      network: 'devnet',
      address: owner.address,
      tx_id: 'ab'.repeat(32),
      tx_action: 'open',
      btc_amount: 150_000_000,
      unit_amount: 250_050,
      vault_id: 'cd'.repeat(32),
    });
    const db = server.store.db;
    await until(async () => (await listOutbox(db))[0]?.status === 'sent');
    expect(bot.held.sendMessage).toBe(1);
    expect(bot.sent).toHaveLength(1);
    expect((await listOutbox(db))[0]).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it("keeps the long poll open past the time-out: Telegram's own wait comes on top", async () => {
    server = await start(true);
    const config = (await (await fetch(`${server.url}/api/config`)).json()) as ConfigDto;
    expect(config.telegramBot).toBe(FAKE_BOT_USERNAME);
    // The fake holds each empty long poll 500 ms, longer than the 300 ms time-out.
    await until(() => bot.requests.filter((r) => r.method === 'getUpdates').length >= 3);
    expect(bot.abandoned.getUpdates ?? 0).toBe(0);
  });
});
