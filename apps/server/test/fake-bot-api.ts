// A fake Telegram Bot API on loopback: grammy talks real HTTP to it (its apiRoot). It records every
// request, answers getMe, sendMessage, deleteWebhook and getUpdates (long polling, fed by
// `sendText`, as if a user typed in the chat), and can fail sendMessage, or hold any method's next
// requests unanswered (a Bot API too slow to answer), on demand.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAKE_BOT_TOKEN = '123456:TEST-token';
export const FAKE_BOT_USERNAME = 'unit_vault_bot';

export interface FakeBotRequest {
  method: string;
  body: Record<string, unknown>;
}

export interface FakeBotApi {
  url: string;
  requests: FakeBotRequest[];
  /** sendMessage calls that succeeded, in order */
  sent: Array<{ chat_id: string; text: string }>;
  /** sendMessage answers 500 this many more times before succeeding */
  failNext: number;
  /** The next requests of a method (by name) this many more times get no answer until close. */
  holdNext: Record<string, number>;
  /** Requests held unanswered so far, by method. */
  held: Record<string, number>;
  /** Requests whose client hung up before their answer, by method. */
  abandoned: Record<string, number>;
  /** Queues a user's message for getUpdates, as Telegram would deliver it. */
  sendText(chatId: number, text: string): void;
  /** Resolves once a message to `chatId` containing `text` was sent; returns it. */
  waitForMessage(chatId: number | string, text: string, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

export async function startFakeBotApi(token = FAKE_BOT_TOKEN): Promise<FakeBotApi> {
  const updates: object[] = [];
  let nextUpdateId = 1;
  let waiting: Array<() => void> = [];
  const wake = () => {
    const woken = waiting;
    waiting = [];
    woken.forEach((w) => w());
  };

  const fake: FakeBotApi = {
    url: '',
    requests: [],
    sent: [],
    failNext: 0,
    holdNext: {},
    held: {},
    abandoned: {},
    sendText(chatId, text) {
      const command = /^\/\w+/.exec(text);
      updates.push({
        update_id: nextUpdateId++,
        message: {
          message_id: nextUpdateId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: chatId, type: 'private', first_name: 'Satoshi' },
          from: { id: chatId, is_bot: false, first_name: 'Satoshi' },
          text,
          ...(command
            ? { entities: [{ type: 'bot_command', offset: 0, length: command[0].length }] }
            : {}),
        },
      });
      wake();
    },
    async waitForMessage(chatId, text, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const hit = fake.sent.find((m) => m.chat_id === String(chatId) && m.text.includes(text));
        if (hit) return hit.text;
        if (Date.now() > end) {
          throw new Error(
            `no message to ${chatId} containing "${text}"; sent: ${JSON.stringify(fake.sent)}`,
          );
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: async () => undefined,
  };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const method = req.url?.split('/').pop()?.split('?')[0] ?? '';
      const reply = (status: number, body: object) => {
        if (res.writableEnded) return;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (!req.url?.startsWith(`/bot${token}/`)) return reply(401, { ok: false, error_code: 401 });
      const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>;
      fake.requests.push({ method, body });
      res.on('close', () => {
        if (!res.writableEnded) fake.abandoned[method] = (fake.abandoned[method] ?? 0) + 1;
      });
      if ((fake.holdNext[method] ?? 0) > 0) {
        fake.holdNext[method]!--;
        fake.held[method] = (fake.held[method] ?? 0) + 1;
        return;
      }
      if (method === 'getMe') {
        return reply(200, {
          ok: true,
          result: { id: 1, is_bot: true, first_name: 'Unit', username: FAKE_BOT_USERNAME },
        });
      }
      if (method === 'deleteWebhook') return reply(200, { ok: true, result: true });
      if (method === 'getUpdates') {
        const offset = Number(body.offset ?? 0);
        const answer = () =>
          reply(200, {
            ok: true,
            result: updates.filter((u) => (u as { update_id: number }).update_id >= offset),
          });
        const pending = () => updates.some((u) => (u as { update_id: number }).update_id >= offset);
        if (pending() || Number(body.timeout ?? 0) === 0) return answer();
        // Long polling: answer when an update arrives, or empty after a short while.
        const timer = setTimeout(answer, 500);
        waiting.push(() => {
          clearTimeout(timer);
          answer();
        });
        return;
      }
      if (method === 'sendMessage') {
        if (fake.failNext > 0) {
          fake.failNext--;
          return reply(500, { ok: false, error_code: 500, description: 'Internal Server Error' });
        }
        fake.sent.push({ chat_id: String(body.chat_id), text: String(body.text) });
        return reply(200, {
          ok: true,
          result: {
            message_id: fake.sent.length,
            date: Math.floor(Date.now() / 1000),
            chat: { id: Number(body.chat_id), type: 'private' },
            text: body.text,
          },
        });
      }
      return reply(404, { ok: false, error_code: 404, description: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise((resolve) => {
      wake();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
