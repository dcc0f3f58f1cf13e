// Telegram notifications against a tiny fake Bot API on loopback: grammy talks real HTTP to it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listOutbox, subscribeTelegram } from '../src/store';
import { postJson, startTestApp, type RunningApp } from './support';

const TOKEN = '123456:TEST-token';

interface FakeBotApi {
  url: string;
  sent: Array<{ chat_id: string; text: string }>;
  /** sendMessage answers 500 this many more times before succeeding. */
  failNext: number;
  close(): Promise<void>;
}

async function startFakeBotApi(): Promise<FakeBotApi> {
  const fake: FakeBotApi = { url: '', sent: [], failNext: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const method = req.url?.split('/').pop();
      const reply = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (!req.url?.startsWith(`/bot${TOKEN}/`)) return reply(401, { ok: false, error_code: 401 });
      if (method === 'getMe') {
        return reply(200, {
          ok: true,
          result: { id: 1, is_bot: true, first_name: 'Unit', username: 'unit_vault_bot' },
        });
      }
      if (method === 'sendMessage') {
        if (fake.failNext > 0) {
          fake.failNext--;
          return reply(500, { ok: false, error_code: 500, description: 'Internal Server Error' });
        }
        const body = JSON.parse(raw) as { chat_id: string | number; text: string };
        fake.sent.push({ chat_id: String(body.chat_id), text: body.text });
        return reply(200, { ok: true, result: { message_id: fake.sent.length } });
      }
      return reply(404, { ok: false, error_code: 404, description: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}

const ADDRESS = 'tb1qfollower0000000000000000000000000000';

const notification = (tx_action: string) => ({
  network: 'devnet',
  address: ADDRESS,
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

describe('Telegram notifications', () => {
  let bot: FakeBotApi;
  let server: RunningApp;

  beforeEach(async () => {
    bot = await startFakeBotApi();
    server = await startTestApp(
      { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: bot.url },
      { telegramPolling: false, telegramDrainIntervalMs: 20, telegramRetryDelayMs: 20 },
    );
    await subscribeTelegram(server.store.db, {
      address: ADDRESS,
      chat_id: '777',
      network: 'devnet',
    });
  });
  afterEach(async () => {
    await server.stop();
    await bot.close();
  });

  it('names the bot in /api/config once the Bot API answers getMe', async () => {
    const res = await fetch(`${server.url}/api/config`);
    expect(((await res.json()) as { telegramBot: string }).telegramBot).toBe('unit_vault_bot');
  });

  it('queues a notification and the worker delivers it to the following chat', async () => {
    const res = await postJson(`${server.url}/api/notify`, notification('deposit'));
    expect(res).toEqual({ status: 202, body: { queued: 1, enabled: true } });
    await until(async () => bot.sent.length === 1);
    expect(bot.sent[0]!.chat_id).toBe('777');
    expect(bot.sent[0]!.text).toContain('BTC deposit submitted');
    expect(bot.sent[0]!.text).toContain('BTC: 1.5');
    expect(bot.sent[0]!.text).toContain('UNIT: 2,500.50');
  });

  it('retries the create notification until it gets through (SPEC §7: 5 retries)', async () => {
    bot.failNext = 5;
    await postJson(`${server.url}/api/notify`, notification('open'));
    await until(async () => (await listOutbox(server.store.db))[0]?.status === 'sent');
    expect(bot.sent).toHaveLength(1);
    const [row] = await listOutbox(server.store.db);
    expect(row).toMatchObject({ status: 'sent', attempts: 6, max_attempts: 6 });
  });

  it('does not retry an action notification (SPEC §7: 0 retries)', async () => {
    bot.failNext = 1;
    await postJson(`${server.url}/api/notify`, notification('borrow'));
    await until(async () => (await listOutbox(server.store.db))[0]?.status === 'failed');
    await new Promise((r) => setTimeout(r, 100));
    expect(bot.sent).toEqual([]);
    expect((await listOutbox(server.store.db))[0]).toMatchObject({ attempts: 1, max_attempts: 1 });
  });

  it('queues nothing for an address no chat follows', async () => {
    const res = await postJson(`${server.url}/api/notify`, {
      ...notification('repay'),
      address: 'tb1qstranger000000000000000000000000000',
    });
    expect(res.body).toEqual({ queued: 0, enabled: true });
  });
});
