// The JSON bodies of /api that the web app reads and sends: zod schemas, the types inferred from
// them. Amounts are integers (sats, UNIT hundredths) as JSON numbers. The server validates the
// bodies it receives with the `*BodySchema`s; the answers' schemas are the shapes it promises.
import * as z from 'zod';
import type { ConfigConstants } from '../constants';
import { actionCodeSchema, amount, networkSchema, unixSeconds, vaultActionSchema } from './fields';
import { guardianPriceSchema, signedQuoteSchema } from './guardian';

const int = z.number().int();
const nullableString = z.string().nullable();
/** A Bitcoin address as the routes accept it. */
export const addressSchema = z.string().regex(/^[A-Za-z0-9]{14,90}$/, 'expected a Bitcoin address');

const configConstantsSchema = z.object({
  minBtcSats: int,
  dustLimitSats: int,
  minVaultBalanceSats: int,
  collateralPercent: z.number(),
  liquidationThresholdPercent: z.number(),
  unitPostageSats: int,
  flowTimeoutMs: int,
  speedUpAfterSeconds: int,
  amountIntDigits: z.object({ btc: int, unit: int, usd: int }),
  priceQuorum: z.boolean().optional(),
  vaultTerm: z.object({ termBlocks: int, graceBlocks: int }).optional(),
}) satisfies z.ZodType<ConfigConstants>;

/** GET /api/config: every URL and configurable constant the web app uses. */
export const configSchema = z.object({
  network: networkSchema,
  /** Base URLs, absolute or relative to the app's origin. */
  esploraUrl: z.string(),
  mempoolUrl: z.string(),
  ordinalsUrl: z.string(),
  runesUrl: z.string(),
  explorerUrl: z.string(),
  guardianUrl: z.string(),
  docsUrl: z.string(),
  /** null: not configured on this server, so not shown */
  social: z.object({ twitter: nullableString, discord: nullableString, telegram: nullableString }),
  guardPubkey: z.string(),
  /** x-only: this server's treasury key, or the guardian network's group key (then the address is `OP_1 <key>`). */
  treasuryPubkey: z.string(),
  /** Where the treasury's UNIT lives: pay and find the treasury by this address's script. */
  treasuryAddress: z.string(),
  unitRuneId: z.string(),
  telegramBot: nullableString,
  constants: configConstantsSchema,
});
export type ConfigDto = z.infer<typeof configSchema>;

/**
 * Why the price is stale, so the page can say it before the user clicks: the guardians have no
 * price quorum (network mode: fewer than their threshold answer with agreeing fresh prices), or the
 * price source gives no fresh price (the feeds disagree or do not answer, or the devnet's simulated
 * feed was stopped).
 */
export const priceStaleReasonSchema = z.enum(['no_quorum', 'no_fresh_price']);
export type PriceStaleReason = z.infer<typeof priceStaleReasonSchema>;

/** GET /api/bitcoin-price (SPEC §7). */
export const bitcoinPriceSchema = z.object({
  USD: z.number(),
  /** unix seconds */
  time: int,
  /**
   * true while the oracle's live feeds give no fresh price (fewer than two answered, or they
   * disagree): USD and time are then the last fresh price, and the guardian co-signs nothing.
   */
  stale: z.boolean().optional(),
  /** why, while `stale` is true; null or absent while the price is fresh */
  stale_reason: priceStaleReasonSchema.nullable().optional(),
});
export type BitcoinPriceDto = z.infer<typeof bitcoinPriceSchema>;

export const pricePointSchema = z.object({ timestamp: int, price: z.number() });
export type PricePointDto = z.infer<typeof pricePointSchema>;

/** GET /api/price-history?timePeriod= (SPEC §7). */
export const priceHistorySchema = z.object({
  data: z.array(pricePointSchema),
  /** percent change over the period */
  change: z.number(),
  error: nullableString,
});
export type PriceHistoryDto = z.infer<typeof priceHistorySchema>;

/** GET /api/oracle/quote?th=&ts= */
export const oracleQuoteSchema = z.object({
  price_cents: amount,
  /** unix seconds of the price */
  time: unixSeconds,
  th: amount,
  ts: unixSeconds,
  threshold_hash: z.string(),
  /**
   * With the guardian network (GUARDIAN_NETWORK local/external): each oracle's hash160 of its
   * threshold secret, in leaf order (the guardians with ids 1..min(n, 3)); `threshold_hash` is the
   * first. A new vault has one liquidation leaf per hash. Absent when the server is the one oracle.
   */
  threshold_hashes: z.array(z.string()).optional(),
  /** Each oracle's signed statement of its hash (docs/guardian-network.md), in the same order. */
  oracle_statements: z
    .array(
      z.object({
        guardian: int,
        setVersion: int,
        th: amount,
        ts: unixSeconds,
        hash: z.string(),
        sig: z.string(),
      }),
    )
    .optional(),
  is_expired: z.boolean(),
  secret: nullableString,
  oracle_pubkey: z.string(),
  /** Schnorr signature over sha256("unit/quote" || u64be(price_cents) || u32be(time) || u64be(th) || u32be(ts)) */
  signature: z.string(),
  /** network mode only: the guardians' signed prices the quote is the median of, in id order */
  quorum: signedQuoteSchema.shape.quorum,
  /**
   * The term the new vault output commits to (layout 2, docs/protocol.md "Leaving without the
   * guardians"): vaultTermAt of the chain tip the server read, which the guardians accept within
   * TERM_TIP_TOLERANCE_BLOCKS of their own. Absent when the app writes layout 1.
   */
  term: signedQuoteSchema.shape.term,
});
export type OracleQuoteDto = z.infer<typeof oracleQuoteSchema>;

/**
 * `settled`: the guardians settled it at its term; `exited`: its owner took it through the exit
 * leaf after the exit height (docs/protocol.md, "Leaving without the guardians").
 */
const vaultStatusSchema = z.enum(['active', 'liquidated', 'repossessed', 'settled', 'exited']);

/**
 * GET /api/vaults/by-pubkey/:pubkey (404 {code:'not_found'} when none) — SPEC §3 Vault; also
 * GET /api/vaults?pubkey= as a list of zero or one, for the web app's polling.
 */
export const vaultSchema = z.object({
  vault_id: z.string(),
  vault_tag: z.string(),
  name: z.string(),
  unit_borrowed: amount,
  /** sats */
  btc_locked: amount,
  creation_account: z.string(),
  guard_pubkey: z.string(),
  master_id: z.string(),
  vault_pubkey: z.string(),
  vault_txid: z.string(),
  vault_vout: int,
  threshold_cents: amount,
  stamp: int,
  /**
   * Layout 2: the term the vault output commits to (settlement and exit heights), so a client
   * rebuilds the output; null (or absent, from an older server) for a layout 1 output.
   */
  settle_height: int.nullable().optional(),
  exit_height: int.nullable().optional(),
  status: vaultStatusSchema,
  created_at: int,
});
export type VaultDto = z.infer<typeof vaultSchema>;

/** GET /api/vaults/:vaultId/history — SPEC §3 Vault history record. */
export const vaultHistoryRecordSchema = z.object({
  timestamp: int,
  action: actionCodeSchema,
  btc_amt: int,
  unit_amt: int,
  vault_amount: int,
  amount_borrowed: int,
  oracle_price: int,
  transaction_id: z.string(),
  utxo: z.string(),
  utxo_script: z.string(),
  liquidation_hash: nullableString,
  liquidation_threshold: int.nullable(),
  vault_id: z.string(),
  confirmed: z.boolean(),
});
export type VaultHistoryRecordDto = z.infer<typeof vaultHistoryRecordSchema>;

/**
 * GET /api/vaults/:vaultId/history?limit=&before= — one page of a vault's history, newest first.
 * `before` is a `next` from an earlier page; without it the page is the newest one.
 */
export const vaultHistoryPageSchema = z.object({
  records: z.array(vaultHistoryRecordSchema),
  /** cursor of the next older page; null when this page reaches the vault's first record */
  next: nullableString,
  /** the vault's state before the page's oldest record; null when that record is the first */
  state_before: z.object({ vault_amount: int, amount_borrowed: int }).nullable(),
});
export type VaultHistoryPageDto = z.infer<typeof vaultHistoryPageSchema>;

/** GET /api/vaults/:vaultId/points — SPEC §3 History point. */
export const historyPointSchema = z.object({
  timestamp: int,
  btc_locked: int,
  unit_borrowed: int,
  vaults: int,
});
export type HistoryPointDto = z.infer<typeof historyPointSchema>;

/** `exited`: its owner took it back through the exit leaf before anyone repossessed it. */
const closedStatusSchema = z.enum(['liquidated', 'repossessed', 'exited']);

/** GET /api/liquidations */
export const liquidatedVaultSchema = z.object({
  vault_id: z.string(),
  name: z.string(),
  /** What a repossessor needs to spend the vault's liquidation leaf (docs/protocol.md). */
  vault_pubkey: z.string(),
  vault_txid: z.string(),
  vault_vout: int,
  stamp: int,
  btc_locked: amount,
  unit_borrowed: amount,
  threshold_cents: amount,
  liquidated_at: int,
  liquidation_hash: z.string(),
  status: closedStatusSchema,
  /** x-only hex: the guardian key the vault's output commits to (an older set's if it never moved). */
  guard_pubkey: z.string(),
  /**
   * Its oracle commitments (1..3: the guardian network's vaults commit to up to three threshold
   * hashes), so the repossess fee counts its deepest liquidation leaf (estimateVsize's `oracles`).
   */
  oracles: int,
  /** Layout 2: the term its output commits to, which a repossessor rebuilds; null for layout 1. */
  settle_height: int.nullable().optional(),
  exit_height: int.nullable().optional(),
});
export type LiquidatedVaultDto = z.infer<typeof liquidatedVaultSchema>;

/**
 * GET /api/vaults/:vaultId/liquidation (404 when the vault was never liquidated): what the vault's
 * history does not hold, the claimant of a repossessed vault, with the exact oracle price.
 */
export const vaultLiquidationSchema = z.object({
  vault_id: z.string(),
  liquidated_at: int,
  /** the vault's liquidation price, USD cents */
  threshold_cents: amount,
  /** the oracle price that liquidated it, USD cents */
  price_cents: amount,
  btc_locked: amount,
  unit_borrowed: amount,
  status: closedStatusSchema,
  /** the vault that repossessed it, once claimed */
  claimant: z.object({ vault_id: z.string(), vault_tag: z.string(), name: z.string() }).nullable(),
  /** the transaction that took the vault: the repossession, or its owner's exit (`exited`) */
  claim_txid: nullableString,
});
export type VaultLiquidationDto = z.infer<typeof vaultLiquidationSchema>;

/** Why a request whose transaction was sent failed afterwards (GET /api/transactions/:txid). */
export const TRANSACTION_FAILURE_CAUSES = ['exit', 'input_spent', 'other'] as const;
export type TransactionFailureCause = (typeof TRANSACTION_FAILURE_CAUSES)[number];

/**
 * GET /api/transactions/:txid: the fate of a transaction the guardians co-signed, read from the
 * request the app keeps: `pending` until a block holds it, `confirmed`, or `failed` (it will never
 * be mined: a repossession its liquidated vault's owner beat by the exit, one whose input another
 * mined transaction spent, a broadcast refused) with why.
 */
export const transactionFateSchema = z.object({
  txid: z.string(),
  status: z.enum(['pending', 'confirmed', 'failed']),
  /** set when failed: what the app knows of why */
  cause: z.enum(TRANSACTION_FAILURE_CAUSES).nullable(),
  /** set when failed: the reason the app recorded, in words */
  reason: nullableString,
});
export type TransactionFateDto = z.infer<typeof transactionFateSchema>;

/** GET /api/vaults/by-pubkey/:pubkey/closed: a key's closed (repossessed) vaults, newest first. */
export const closedVaultSchema = z.object({
  vault_id: z.string(),
  vault_tag: z.string(),
  name: z.string(),
  /** unix seconds */
  created_at: int,
});
export type ClosedVaultDto = z.infer<typeof closedVaultSchema>;

/** GET /api/quote?action=&amount=&feeRate= : operation cost of an action. */
export const operationQuoteSchema = z.object({
  action: vaultActionSchema,
  fee_rate: z.number(),
  vsize: int,
  operation_cost_sats: amount,
});
export type OperationQuoteDto = z.infer<typeof operationQuoteSchema>;

/** POST /api/notify body (SPEC §3 Telegram notify payload). */
export const telegramNotifyBodySchema = z.object({
  network: networkSchema,
  address: addressSchema,
  tx_id: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'expected 32 bytes of hex')
    .transform((s) => s.toLowerCase()),
  tx_action: vaultActionSchema,
  btc_amount: amount,
  unit_amount: amount,
  vault_id: z.string().max(100),
});
export type TelegramNotifyDto = z.infer<typeof telegramNotifyBodySchema>;

/** 202 answer of POST /api/notify: how many chats the message was queued for. */
export const telegramNotifyAcceptedSchema = z.object({
  queued: int,
  /** false when the server runs without a Telegram bot */
  enabled: z.boolean(),
});
export type TelegramNotifyAcceptedDto = z.infer<typeof telegramNotifyAcceptedSchema>;

/**
 * GET /api/price-quorum/:commitment (docs/protocol.md, "Auditing a record's price quorum"): the
 * signed guardian prices a network-mode state record's last 32 bytes hash, as the app kept them
 * when it co-signed, and whether they verify against the guardian set this server holds.
 */
export const priceQuorumAuditSchema = z.object({
  /** 64 hex: priceQuorumCommitment(prices), the record's last 32 bytes */
  commitment: z.string(),
  /** the set the prices are signed for */
  set_version: int,
  /** that set's threshold t, or null when this server holds no set of that version */
  threshold: int.nullable(),
  /** the signed prices in guardian id order, exactly as hashed */
  prices: z.array(guardianPriceSchema),
  /** their median (the quote's price) and oldest stamp (the quote's time) */
  price_cents: int,
  time: unixSeconds,
  /** true when the prices hash to `commitment`, every signature verifies and they are a quorum */
  verified: z.boolean(),
  /** why not, or null */
  problem: nullableString,
  /** unix seconds: when the app co-signed the first request quoting them */
  recorded_at: unixSeconds,
});
export type PriceQuorumAuditDto = z.infer<typeof priceQuorumAuditSchema>;
