// The API at the framework's limit: each hot read route of the app against a bare Fastify 5
// answering the same body (no plugins, no hooks, no database), loaded in turn in one run.
import type { Child, Figure } from './measure';
import { compare, throughput } from './measure';
import { VAULT_ID, VAULT_PUBKEY } from './seed';

/** The routes the app answers within a tenth of bare Fastify, and price history's own goal. */
const ROUTES = [
  { name: 'bitcoin-price', path: '/api/bitcoin-price', goal: 0.9 },
  { name: 'vaults?pubkey=', path: `/api/vaults?pubkey=${VAULT_PUBKEY}`, goal: 0.9 },
  { name: "a vault's history page", path: `/api/vaults/${VAULT_ID}/history?limit=20`, goal: 0.9 },
  { name: 'price-history 24h', path: '/api/price-history?timePeriod=24h', goal: 0.7 },
] as const;

async function body(app: Child, path: string): Promise<string> {
  const res = await fetch(app.url + path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return res.text();
}

/** Hands the bare server the app's own answers, then loads each route on both in turn. */
export async function frameworkFigures(app: Child, bare: Child): Promise<Figure[]> {
  const bodies = await Promise.all(ROUTES.map((r) => body(app, r.path)));
  const [price, vaults, historyPage, history24h] = bodies as [string, string, string, string];
  await bare.ask({ cmd: 'content', price, vaults, historyPage, history24h });
  const figures: Figure[] = [];
  for (const route of ROUTES) {
    const { ratio, noise } = await compare(
      () => throughput(app.url, [route.path]),
      () => throughput(bare.url, [route.path]),
    );
    const size = (await body(app, route.path)).length;
    figures.push({
      name: `GET ${route.name} throughput vs bare Fastify 5 (${size} B)`,
      value: ratio,
      goal: { min: route.goal },
      noise,
      unit: '',
    });
  }
  return figures;
}
