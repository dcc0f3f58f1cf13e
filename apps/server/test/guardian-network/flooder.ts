// A flood of a guardian route from several loopback addresses (127.0.0.2, ...), in its own
// process so its work is not the app's: `tsx flooder.ts <json>` with {urls, sources, perSource,
// concurrency}. Prints one JSON line: how many answers of each status it got.
import http from 'node:http';

const { urls, sources, perSource, concurrency } = JSON.parse(process.argv[2]!) as {
  urls: string[];
  sources: string[];
  perSource: number;
  concurrency: number;
};
const statuses: Record<string, number> = {};
let retryAfter: string | null = null;

function get(url: string, agent: http.Agent): Promise<void> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent, timeout: 10_000 }, (res) => {
      statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
      if (res.statusCode === 429) retryAfter ??= String(res.headers['retry-after']);
      res.resume();
      res.on('end', resolve);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => {
      statuses.error = (statuses.error ?? 0) + 1;
      resolve();
    });
  });
}

async function source(localAddress: string): Promise<void> {
  // Kept-alive connections from this address: as fast as a flooder would be.
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, localAddress });
  let next = 0;
  const worker = async () => {
    while (next < perSource) {
      const i = next++;
      await get(urls[i % urls.length]!, agent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
}

await Promise.all(sources.map(source));
process.stdout.write(JSON.stringify({ statuses, retryAfter }) + '\n');
