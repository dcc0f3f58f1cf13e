// A flood of a guardian route from several loopback addresses (127.0.0.2, ...), in its own
// process so its work is not the app's: `tsx flooder.ts <json>` with {urls, sources, perSource,
// concurrency}. Prints one JSON line: how many answers of each status it got. Over https as any
// stranger would: no certificate of its own, the guardian's not checked (it only wants answers).
import http from 'node:http';
import https from 'node:https';

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
    const req = (url.startsWith('https:') ? https : http).get(
      url,
      { agent, timeout: 10_000 },
      (res) => {
        statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
        if (res.statusCode === 429) retryAfter ??= String(res.headers['retry-after']);
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => {
      statuses.error = (statuses.error ?? 0) + 1;
      resolve();
    });
  });
}

async function source(localAddress: string): Promise<void> {
  // Kept-alive connections from this address: as fast as a flooder would be.
  const tls = urls[0]!.startsWith('https:');
  const options = {
    keepAlive: true,
    maxSockets: concurrency,
    localAddress,
    rejectUnauthorized: false,
  };
  const agent = tls ? new https.Agent(options) : new http.Agent(options);
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
