// The devnet's market in network mode (GUARDIAN_NETWORK local or external on the devnet): the price
// the guardians' `devnet@<app>` feed reads at GET /api/devnet/market. The app's own price series is
// then the guardians' quorum (oracle.ts), so the guardians must not read that series back as their
// feed: they read this market instead, and the series follows their median.
//
// It is what the app's own price was before the network: the seeded random walk on each price tick
// (the leader's), or the price set by hand (`POST /api/devnet/price`, `npm run devnet -- price`).
// It lives in the devnet's `devnet_meta` table, so every instance of a cluster serves and sets the
// same market. Off mode has no market: a devnet price set by hand is the app's price, as before.
import type { Kysely } from 'kysely';
import type { DevnetDatabase } from './tables';
import type { PricePoint } from '../store/prices';
import type { Database } from '../store/schema';
import type { ServerConfig } from '../config';

const KEY = 'market_price';

export class DevnetMarket {
  private readonly db: Kysely<Pick<DevnetDatabase, 'devnet_meta'>>;

  constructor(db: Kysely<Database>) {
    this.db = db as unknown as Kysely<Pick<DevnetDatabase, 'devnet_meta'>>;
  }

  /** The market's last price, or null before the first tick or set. */
  async get(): Promise<PricePoint | null> {
    const row = await this.db
      .selectFrom('devnet_meta')
      .select('value')
      .where('key', '=', KEY)
      .executeTakeFirst();
    if (!row) return null;
    const { priceCents, timestamp } = JSON.parse(row.value) as PricePoint;
    return { priceCents, timestamp };
  }

  async set(point: PricePoint): Promise<PricePoint> {
    const value = JSON.stringify({ priceCents: point.priceCents, timestamp: point.timestamp });
    await this.db
      .insertInto('devnet_meta')
      .values({ key: KEY, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
    return point;
  }
}

/** The devnet's market in network mode; null off the devnet or off the network. */
export const devnetMarketOf = (config: ServerConfig, db: Kysely<Database>): DevnetMarket | null =>
  config.network === 'devnet' && config.guardianNetwork.mode !== 'off'
    ? new DevnetMarket(db)
    : null;
