// Devnet controls from a terminal, against the running server (npm run devnet -- <command>):
//   fund <address> <btc>   faucet payment, e.g. `fund tb1q... 0.5`
//   mine <n>               mine n blocks now
//   price <usd>            set the simulated BTC/USD price (served by the server core)
//   serve [address]        play a network for another instance: only the chain's services, the
//                          exchanges' price tickers and the faucet, mine and price controls, on
//                          HOST:PORT, its chain in DATA_DIR, its UNIT premined to the address
//                          (serve.ts); START_PRICE (whole USD) is the tickers' first price
import { pathToFileURL } from 'node:url';

const SATS_PER_BTC = 100_000_000n;

/** Decimal BTC text to sats without floating point (SPEC §9: 8 decimals). */
export function btcToSats(text: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,8}))?$/.exec(text.trim());
  if (!match) throw new Error(`not a BTC amount with at most 8 decimals: ${text}`);
  return BigInt(match[1]!) * SATS_PER_BTC + BigInt((match[2] ?? '').padEnd(8, '0'));
}

export type CliRequest = { path: string; body: Record<string, unknown> };

/** The HTTP call a command stands for; throws a usage message on bad input. */
export function cliRequest(args: readonly string[]): CliRequest {
  const [command, ...rest] = args;
  switch (command) {
    case 'fund': {
      const [address, btc] = rest;
      if (!address || !btc) throw new Error('usage: fund <address> <btc>');
      const sats = btcToSats(btc);
      if (sats > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('amount too large');
      return { path: '/api/devnet/faucet', body: { address, sats: Number(sats) } };
    }
    case 'mine': {
      const blocks = Number(rest[0] ?? '1');
      if (!Number.isInteger(blocks) || blocks < 1)
        throw new Error('usage: mine <n>  (n a positive integer)');
      return { path: '/api/devnet/mine', body: { blocks } };
    }
    case 'price': {
      const usd = rest[0];
      if (!usd || !/^\d+(\.\d{1,2})?$/.test(usd))
        throw new Error('usage: price <usd>  (e.g. 95000 or 95000.50)');
      return { path: '/api/devnet/price', body: { usd: Number(usd) } };
    }
    default:
      throw new Error('usage: npm run devnet -- fund <address> <btc> | mine <n> | price <usd>');
  }
}

export async function runCli(
  args: readonly string[],
  baseUrl: string,
  fetchImpl: typeof fetch = fetch,
): Promise<string> {
  const { path, body } = cliRequest(args);
  const response = await fetchImpl(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status}: ${text}`);
  return text;
}

const isMain = process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain && process.argv[2] === 'serve') {
  const { serveNetwork } = await import('./serve');
  const { EXCHANGES_PREFIX } = await import('./tickers');
  const { FEED_KINDS } = await import('@unit/guardian-net/price');
  const startPrice = process.env.START_PRICE?.trim();
  if (startPrice && !/^[1-9]\d{0,8}$/.test(startPrice)) {
    console.error(
      `START_PRICE must be a whole number of US dollars, e.g. 95000 (not "${startPrice}").`,
    );
    process.exit(2);
  }
  const served = await serveNetwork({
    dataDir: process.env.DATA_DIR ?? './data',
    host: process.env.HOST ?? '127.0.0.1',
    port: Number(process.env.PORT ?? '8080'),
    blockIntervalMs: Number(process.env.BLOCK_INTERVAL ?? '10000'),
    ...(process.argv[3] ? { unitTo: process.argv[3] } : {}),
    ...(startPrice ? { startPriceCents: Number(startPrice) * 100 } : {}),
  });
  const exchanges = FEED_KINDS.map((kind) => `${kind}@${served.url}${EXCHANGES_PREFIX}/${kind}`);
  console.log(
    JSON.stringify({
      network: served.url,
      unitRuneId: served.devnet.unitRuneId,
      priceFeeds: exchanges.join(','),
    }),
  );
  const stop = () => void served.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} else if (isMain) {
  const base = `http://127.0.0.1:${process.env.PORT ?? '8080'}`;
  runCli(process.argv.slice(2), base).then(
    (out) => console.log(out),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exitCode = 1;
    },
  );
}
