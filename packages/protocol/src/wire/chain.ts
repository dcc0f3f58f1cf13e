// What the web app reads of the chain services (esplora, the ord-shaped runes API, mempool.space's
// fee estimates), as zod schemas with the types inferred from them (SPEC §7).
import * as z from 'zod';

const int = z.number().int();

/** GET {mempool}/{network}/api/v1/fees/recommended (SPEC §7). */
export const recommendedFeesSchema = z.object({
  fastestFee: z.number(),
  halfHourFee: z.number(),
  hourFee: z.number(),
  economyFee: z.number(),
  minimumFee: z.number(),
});
export type RecommendedFeesDto = z.infer<typeof recommendedFeesSchema>;

/** Esplora UTXO (GET {esplora}/address/:address/utxo). */
export const utxoSchema = z.object({
  txid: z.string(),
  vout: int,
  value: int,
  status: z.object({
    confirmed: z.boolean(),
    block_height: int.optional(),
    block_hash: z.string().optional(),
    block_time: int.optional(),
  }),
});
export type UtxoDto = z.infer<typeof utxoSchema>;

/** GET {runes}/address/:address/outputs — SPEC §3 UNIT output. */
export const unitOutputSchema = z.object({
  txid: z.string(),
  vout: int,
  script_hex: z.string(),
  btc_amount: int,
  unit_amount: int,
  spent: z.boolean(),
});
export type UnitOutputDto = z.infer<typeof unitOutputSchema>;

const txoStatsSchema = z.object({
  funded_txo_count: int,
  funded_txo_sum: int,
  spent_txo_count: int,
  spent_txo_sum: int,
  tx_count: int,
});

/** Esplora address summary (SPEC §7: funded - spent = balance). */
export const addressStatsSchema = z.object({
  address: z.string(),
  chain_stats: txoStatsSchema,
  mempool_stats: txoStatsSchema,
});
export type AddressStatsDto = z.infer<typeof addressStatsSchema>;
