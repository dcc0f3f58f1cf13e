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

function get(url: string, localAddress: string): Promise<void> {
  return new Promise((resolve) => {
    const req = http.get(url, { localAddress, agent: false, timeout: 10_000 }, (res) => {
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

async function source(address: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < perSource) {
      const i = next++;
      await get(urls[i % urls.length]!, address);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

await Promise.all(sources.map(source));
process.stdout.write(JSON.stringify({ statuses, retryAfter }) + '\n');
