// The route table's other routes (routes.ts): the oracle's and the audit's reads, exports and the
// live stream, the indexer proxy, the browser's error reports, the devnet's controls and the
// operator's probes. Those that send their own bytes name their media type.
import * as z from 'zod';
import { DUST_LIMIT_SATS } from '../constants';
import { hexOf } from './fields';
import { unitOutputSchema, utxoSchema } from './chain';
import {
  bitcoinPriceSchema,
  closedVaultSchema,
  oracleQuoteSchema,
  priceQuorumAuditSchema,
  priceStaleReasonSchema,
  transactionFateSchema,
  vaultLiquidationSchema,
} from './http';
import type { RouteSchemas } from './route-schema';

const vaultIdParam = z.string().min(1).max(100);
/**
 * A tb1 address, Taproot's 62 characters included: an operator funds the treasury, a Taproot
 * address, from the faucet of the devnet playing signet (SPEC §5's 39 to 59 is for users' payments).
 */
const TESTNET_ADDRESS = /^tb1[02-9ac-hj-np-z]{36,59}$/;
/** The devnet faucet's most: 100 BTC. */
const MAX_FAUCET_SATS = 100 * 100_000_000;
export const DEVNET_MAX_MINE_BLOCKS = 100;

const checkResultSchema = z.enum(['ok', 'failing', 'timeout']);

export const OPS_ROUTES = {
  thresholdHash: {
    summary: 'The oracle’s key and the threshold hash of (th, ts), without a price.',
    query: z.object({
      th: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
      ts: z.coerce.number().int().min(0).max(0xffff_ffff),
    }),
    response: z.object({
      oracle_pubkey: z.string(),
      threshold_hash: z.string(),
      threshold_hashes: oracleQuoteSchema.shape.threshold_hashes,
      oracle_statements: oracleQuoteSchema.shape.oracle_statements,
    }),
  },
  priceQuorum: {
    summary: 'The signed guardian prices behind a state record’s price-quorum commitment, checked.',
    params: z.object({
      commitment: z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/, 'expected the 32-byte commitment as 64 hex characters')
        .transform((s) => s.toLowerCase()),
    }),
    response: priceQuorumAuditSchema,
  },
  vaultLiquidation: {
    summary:
      'A liquidated vault’s claimant and exact oracle price; 404 when it was not liquidated.',
    params: z.object({ vaultId: vaultIdParam }),
    response: vaultLiquidationSchema,
  },
  transactionFate: {
    summary:
      'Whether a transaction the guardians co-signed waits, confirmed or failed, and why; 404 when unknown.',
    params: z.object({
      txid: z
        .string()
        .regex(/^[0-9a-fA-F]{64}$/, 'expected a transaction id as 64 hex characters')
        .transform((s) => s.toLowerCase()),
    }),
    response: transactionFateSchema,
  },
  closedVaults: {
    summary: 'A key’s repossessed vaults, newest first.',
    params: z.object({ pubkey: z.string().regex(/^[0-9a-fA-F]{64}$/) }),
    response: z.array(closedVaultSchema),
  },
  historyCsv: {
    summary: 'A vault’s whole history as a CSV file.',
    params: z.object({ vaultId: vaultIdParam }),
    contentType: 'text/csv',
    response: z.string(),
  },
  ledger: {
    summary: 'The app’s ledger of every vault at a block height, and its digest.',
    params: z.object({ height: z.coerce.number().int().min(0).max(100_000_000) }),
    response: z.object({
      height: z.number().int(),
      digest: hexOf(32),
      vaults: z.array(
        z.object({
          vault_id: z.string(),
          collateral_sats: z.string(),
          debt: z.string(),
          status: z.enum(['open', 'repossessed', 'settled', 'unrecorded', 'exited']),
        }),
      ),
    }),
  },
  events: {
    summary: 'Server-sent events: blocks, prices and vault changes as they happen.',
    contentType: 'text/event-stream',
    response: z.string(),
  },
  indexerOutputs: {
    summary: 'An address’s UNIT outputs, read from the runes indexer.',
    params: z.object({ address: z.string() }),
    response: z.array(unitOutputSchema),
  },
  indexerUtxos: {
    summary: 'An address’s payment outputs (those carrying no runes), read from the indexer.',
    params: z.object({ address: z.string() }),
    response: z.array(utxoSchema),
  },
  clientErrors: {
    summary: 'What a browser’s error boundary caught, logged for the team.',
    body: z.strictObject({
      /** where it was caught: the whole screen or one contained part */
      boundary: z.enum(['screen', 'chart']),
      message: z.string().max(1_000),
      stack: z.string().max(6_000).optional(),
      componentStack: z.string().max(6_000).optional(),
      /** the page's path and query, never another origin */
      path: z.string().max(500).regex(/^\//, 'expected a path'),
    }),
    status: 204,
    response: z.null(),
  },
  openApi: {
    summary: 'This document: the OpenAPI 3 description of every route.',
    response: z.record(z.string(), z.unknown()),
  },
  devnetMarket: {
    summary: 'The devnet’s market price, which its guardians read (devnet only).',
    response: bitcoinPriceSchema,
  },
  devnetPrice: {
    summary: 'Sets the devnet’s price in US dollars (devnet only).',
    body: z.object({ usd: z.number().positive().max(100_000_000) }),
    response: bitcoinPriceSchema,
  },
  devnetPriceFeed: {
    summary: 'Stops or restarts the devnet’s simulated price feed (devnet only).',
    body: z.object({ running: z.boolean() }),
    response: z.object({
      running: z.boolean(),
      stale: z.boolean(),
      stale_reason: priceStaleReasonSchema.nullable(),
    }),
  },
  devnetFaucet: {
    summary: 'Sends devnet bitcoin to a tb1 address.',
    body: z.object({
      address: z.string().regex(TESTNET_ADDRESS, 'address must be a tb1 address'),
      sats: z
        .number()
        .int()
        .min(DUST_LIMIT_SATS, `sats must be at least ${DUST_LIMIT_SATS}`)
        .max(MAX_FAUCET_SATS, 'sats must be at most 100 BTC'),
    }),
    response: z.object({ txid: hexOf(32) }),
  },
  devnetChain: {
    summary: 'Takes the devnet’s chain service down or up, for the app’s own guardian.',
    body: z.object({ available: z.boolean() }),
    response: z.object({ available: z.boolean() }),
  },
  devnetMine: {
    summary: 'Mines devnet blocks (one by default).',
    body: z.object({ blocks: z.number().int().min(1).max(DEVNET_MAX_MINE_BLOCKS).default(1) }),
    response: z.object({ height: z.number().int(), hashes: z.array(hexOf(32)) }),
  },
  healthz: {
    summary: 'Whether the process answers.',
    response: z.object({ status: z.literal('ok') }),
  },
  readyz: {
    summary:
      'Whether the server can serve: 200 when every check passes, else 503 with the same body.',
    response: z.object({
      status: z.enum(['ready', 'not_ready']),
      checks: z.object({
        database: checkResultSchema,
        chain: checkResultSchema,
        price: checkResultSchema,
        guardians: checkResultSchema.optional(),
      }),
      reasons: z.object({ guardians: z.string().optional() }).optional(),
    }),
  },
  metrics: {
    summary: 'Prometheus metrics; a bearer token when the server is configured with one.',
    contentType: 'text/plain',
    response: z.string(),
  },
} as const satisfies Record<string, RouteSchemas>;
