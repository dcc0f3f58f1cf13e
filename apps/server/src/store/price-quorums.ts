// The price quorums that network-mode state records commit to (docs/protocol.md, "Auditing a
// record's price quorum"). A record ends with `priceQuorumCommitment(quote.quorum)`; the chain
// holds only that hash, so the app keeps the signed prices it hashes, keyed by the hash, written
// when a request is co-signed (cosign/pipeline.ts). Several requests quote one quorum: the first
// write keeps it. A row is t..n signed prices (at most QUOTE_QUORUM_MAX_PRICES, the quote's bound).
import type { Kysely, Migration } from 'kysely';
import * as z from 'zod';
import { priceQuorumCommitment } from '@unit/bitcoin';
import {
  guardianPriceSchema,
  QUOTE_QUORUM_MAX_PRICES,
  type GuardianPriceDto,
} from '@unit/protocol/wire';
import type { Database } from './schema';
import { createTableOf } from './columns';

export const priceQuorumMigrations: Record<string, Migration> = {
  guardian_0006_price_quorums: {
    async up(db: Kysely<unknown>): Promise<void> {
      await createTableOf(
        db,
        'price_quorums',
        `
            commitment text primary key, prices_json text not null, created_at bigint not null`,
      );
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('price_quorums').execute();
    },
  },
};

const pricesSchema = z.array(guardianPriceSchema).min(1).max(QUOTE_QUORUM_MAX_PRICES);

/**
 * The text `priceQuorumCommitment` hashes (@unit/bitcoin's price-commitment.ts): the prices in
 * guardian id order, each with its keys sorted, integers and a hex string, no spaces.
 */
export function priceQuorumJson(prices: readonly GuardianPriceDto[]): string {
  const sorted = [...prices].sort((a, b) => a.guardian - b.guardian);
  return JSON.stringify(
    sorted.map(({ guardian, priceCents, setVersion, sig, time }) => ({
      guardian,
      priceCents,
      setVersion,
      sig,
      time,
    })),
  );
}

export const priceQuorumHex = (prices: readonly GuardianPriceDto[]): string =>
  Buffer.from(priceQuorumCommitment(prices)).toString('hex');

/** Keeps a quote's quorum under its commitment (hex); a quorum kept before stays as it is. */
export async function recordPriceQuorum(
  db: Kysely<Database>,
  prices: readonly GuardianPriceDto[],
  now: number,
): Promise<string> {
  const checked = pricesSchema.parse(prices);
  const commitment = priceQuorumHex(checked);
  await db
    .insertInto('price_quorums')
    .values({ commitment, prices_json: priceQuorumJson(checked), created_at: now })
    .onConflict((oc) => oc.column('commitment').doNothing())
    .execute();
  return commitment;
}

export interface StoredPriceQuorum {
  commitment: string;
  prices: GuardianPriceDto[];
  createdAt: number;
}

/** The quorum kept under `commitment` (64 lowercase hex), or null. */
export async function getPriceQuorum(
  db: Kysely<Database>,
  commitment: string,
): Promise<StoredPriceQuorum | null> {
  const row = await db
    .selectFrom('price_quorums')
    .selectAll()
    .where('commitment', '=', commitment.toLowerCase())
    .executeTakeFirst();
  if (!row) return null;
  return {
    commitment: row.commitment,
    prices: pricesSchema.parse(JSON.parse(row.prices_json)),
    createdAt: Number(row.created_at),
  };
}
