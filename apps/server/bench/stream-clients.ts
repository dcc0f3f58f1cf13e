// The live screens of streams.ts, in a process of their own (forked by it): many GET /api/events
// held open at once, each from a loopback address shared by 8 streams (Linux routes all of 127/8
// to loopback), as that many browser tabs would be. Each notes when a price event first reaches it
// after it is armed; the bench reads those times (wall clock, as the bench's own) over IPC.
import http from 'node:http';

export type ToClients =
  | { cmd: 'open'; urls: string[]; count: number }
  | { cmd: 'arm' }
  | { cmd: 'collect'; waitMs: number }
  | { cmd: 'close' };

export interface Opened {
  opened: number;
  /** Answers other than 200 (a limit refusing), and connections that failed. */
  refused: number;
  failed: string[];
}

export interface Arrivals {
  /** When each open stream first saw a price after `arm` (Date.now()), or -1: not in time. */
  at: number[];
  /** Index of the instance (in `urls`) each stream is on. */
  on: number[];
  /** Streams that ended meanwhile (dropped or closed by the server). */
  ended: number;
}

const PRICE = Buffer.from('event: price');
const PER_ADDRESS = 8;
const BATCH = 100;

interface Screen {
  req: http.ClientRequest;
  on: number;
  at: number;
  ended: boolean;
}

const screens: Screen[] = [];
let armed = false;

/** 127.0.2.2 and up: 250 addresses per /24, 8 streams each. */
const addressOf = (n: number) => {
  const a = Math.floor(n / PER_ADDRESS);
  return `127.0.${2 + Math.floor(a / 250)}.${2 + (a % 250)}`;
};

function openOne(url: string, on: number, n: number): Promise<number | string> {
  return new Promise((resolve) => {
    const screen: Screen = { req: null as unknown as http.ClientRequest, on, at: -1, ended: false };
    screen.req = http.get(
      `${url}/api/events`,
      { localAddress: addressOf(n), agent: false },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return resolve(res.statusCode ?? 0);
        }
        screens.push(screen);
        res.on('data', (chunk: Buffer) => {
          if (armed && screen.at < 0 && chunk.includes(PRICE)) screen.at = Date.now();
        });
        res.on('close', () => (screen.ended = true));
        res.once('data', () => resolve(200));
      },
    );
    screen.req.on('error', (err) => resolve(err.message));
  });
}

async function open(urls: string[], count: number): Promise<Opened> {
  const result: Opened = { opened: 0, refused: 0, failed: [] };
  for (let from = 0; from < count; from += BATCH) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(BATCH, count - from) }, (_, i) => {
        const n = from + i;
        // Consecutive addresses alternate between instances, so each holds whole addresses.
        const on = Math.floor(n / PER_ADDRESS) % urls.length;
        return openOne(urls[on]!, on, n);
      }),
    );
    for (const status of batch) {
      if (status === 200) result.opened++;
      else if (typeof status === 'number') result.refused++;
      else if (result.failed.length < 5) result.failed.push(status);
    }
  }
  return result;
}

async function collect(waitMs: number): Promise<Arrivals> {
  const until = Date.now() + waitMs;
  while (Date.now() < until && screens.some((s) => s.at < 0 && !s.ended))
    await new Promise((resolve) => setTimeout(resolve, 20));
  return {
    at: screens.map((s) => s.at),
    on: screens.map((s) => s.on),
    ended: screens.filter((s) => s.ended).length,
  };
}

process.on('message', (message: ToClients) => {
  void (async () => {
    switch (message.cmd) {
      case 'open':
        return process.send!(await open(message.urls, message.count));
      case 'arm':
        armed = true;
        for (const s of screens) s.at = -1;
        return process.send!({ ok: true });
      case 'collect': {
        const arrivals = await collect(message.waitMs);
        armed = false;
        return process.send!(arrivals);
      }
      case 'close':
        for (const s of screens) s.req.destroy();
        process.exit(0);
    }
  })();
});
process.send!({ ready: true });
