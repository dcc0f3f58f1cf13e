// The guardian's JSON-RPC methods (JSON-RPC 2.0 over the WebSocket at /guardian): each method's
// params and result as zod schemas, the types inferred from them. The guardian validates params with
// these (malformed -> 'bad_request' before any rule runs); the one client (rpc-client.ts) types its
// calls and checks every answer with them. SPEC §3 field names are kept as the spec spells them.
import * as z from 'zod';
import { VAULT_NAME_MAX_LENGTH } from '../constants';
import { validateVaultName } from '../validation';
import {
  amount,
  feeRate,
  hexOf,
  nonceSchema,
  positiveAmount,
  psbtSchema,
  pubkeySchema,
  txidSchema,
  unixSeconds,
  type VaultAction,
} from './fields';

/**
 * One guardian's signed price (the guardian network's `GET /v1/price`): BIP-340 by its identity key
 * over `taggedHash("unit/guardian-price", u16 id || u32 set version || u64 cents || u64 time)`.
 */
export const guardianPriceSchema = z.strictObject({
  guardian: z.number().int().min(1).max(0xffff),
  setVersion: z.number().int().min(0).max(0xffff_ffff),
  priceCents: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  time: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  sig: z.string().regex(/^[0-9a-f]{128}$/),
});
export type GuardianPriceDto = z.infer<typeof guardianPriceSchema>;
/** A set has at most this many guardians whose prices a quote carries. */
export const QUOTE_QUORUM_MAX_PRICES = 64;

/**
 * A vault term's heights as a quote carries them (VaultTerm of vault-term.ts): the heights a new
 * vault output of layout 2 commits to, from the chain tip the app read when it quoted.
 */
export const quoteTermSchema = z.strictObject({
  settle_height: z.number().int().min(1).max(499_999_999),
  exit_height: z.number().int().min(1).max(499_999_999),
});
export type QuoteTermDto = z.infer<typeof quoteTermSchema>;

/** What the guardian needs of an oracle quote to check it: the oracle's signature binds them. */
export const signedQuoteSchema = z.object({
  price_cents: positiveAmount,
  time: unixSeconds,
  th: amount,
  ts: unixSeconds,
  signature: hexOf(64),
  /**
   * With the guardian network: the t or more signed guardian prices, in id order, whose median is
   * `price_cents` and whose oldest stamp is `time` (docs/protocol.md, "The quote in network mode").
   * Each is signed by its guardian, so the oracle's signature does not cover them.
   */
  quorum: z.array(guardianPriceSchema).max(QUOTE_QUORUM_MAX_PRICES).optional(),
  /**
   * Layout 2: the term the new vault output commits to. Not covered by the oracle's signature: each
   * guardian checks it against its own chain tip (termProblem, TERM_TIP_TOLERANCE_BLOCKS).
   */
  term: quoteTermSchema.optional(),
});
export type SignedQuote = z.infer<typeof signedQuoteSchema>;

export const reservationIdSchema = hexOf(16);

/**
 * The common envelope of every vault.* request (SignedVaultRequest): the wallet-signed PSBT plus
 * what the guardian needs to check it. Built by envelope.ts.
 */
export function signedRequestSchema<P extends z.ZodType>(payload: P) {
  return z.object({
    payload,
    vault_pubkey: pubkeySchema,
    /** base64 PSBT with the wallet's signatures */
    psbt: psbtSchema,
    /** hex, 16 bytes; also inside the state record */
    nonce: nonceSchema,
    expires_at: unixSeconds,
    /** the oracle quote the state record was built on, as GET /api/oracle/quote answered it */
    quote: signedQuoteSchema,
    reservation_id: reservationIdSchema.optional(),
  });
}

/** A vault.* request with the payload `P`. */
export type SignedVaultRequest<P> = Omit<
  z.infer<ReturnType<typeof signedRequestSchema<z.ZodUnknown>>>,
  'payload'
> & {
  payload: P;
};

/** unit.reserve params (SPEC §3 Reserve). */
export const reserveParamsSchema = z.object({
  unit_amount: amount,
  vault_action: z.enum(['open', 'borrow', 'repay']),
  vault_pubkey: pubkeySchema,
});
export type ReserveParams = z.infer<typeof reserveParamsSchema>;

export const reserveResultSchema = z.object({
  reservation_id: reservationIdSchema,
  /** unix seconds */
  expires_at: unixSeconds,
  /** open and borrow: the treasury UNIT UTXO the transaction must spend */
  treasury_utxo: z
    .object({
      txid: txidSchema,
      vout: amount,
      value: amount,
      script_hex: z.string().regex(/^([0-9a-fA-F]{2})+$/),
      unit_amount: amount,
    })
    .nullable(),
  treasury_address: z.string().min(1).max(100),
  postage_sats: amount,
});
export type ReserveResult = z.infer<typeof reserveResultSchema>;

export const createConfigPayloadSchema = z.object({
  borrow_amount: positiveAmount,
  deposit_amount: positiveAmount,
  vault_label: z
    .string()
    .trim()
    .min(1)
    .max(VAULT_NAME_MAX_LENGTH * 2)
    .refine((name) => validateVaultName(name) === null, 'vault name too long'),
  tx_feerate: feeRate,
});
export const depositPayloadSchema = z.object({
  deposit_amount: positiveAmount,
  tx_feerate: feeRate,
});
export const withdrawPayloadSchema = z.object({
  change_amount: positiveAmount,
  tx_feerate: feeRate,
});
export const borrowPayloadSchema = z.object({
  borrow_amount: positiveAmount,
  deposit_amount: z.literal(0),
  tx_feerate: feeRate,
});
export const repayPayloadSchema = z.object({
  repay_amount: positiveAmount,
  deposit_amount: z.literal(0),
  tx_feerate: feeRate,
});
export const repossessPayloadSchema = z.object({
  liquidated_vault_id: hexOf(32),
  tx_feerate: feeRate,
});
export type CreateConfigPayload = z.infer<typeof createConfigPayloadSchema>;
export type DepositPayload = z.infer<typeof depositPayloadSchema>;
export type WithdrawPayload = z.infer<typeof withdrawPayloadSchema>;
export type BorrowPayload = z.infer<typeof borrowPayloadSchema>;
export type RepayPayload = z.infer<typeof repayPayloadSchema>;
export type RepossessPayload = z.infer<typeof repossessPayloadSchema>;

/** SPEC §3 Responses. Open and borrow are one transaction, so issue_txid equals vault_txid. */
export const openResultSchema = z.object({
  issue_txid: txidSchema,
  vault_txid: txidSchema,
  vault_id: z.string().min(1).max(100),
});
export const borrowResultSchema = z.object({ issue_txid: txidSchema, vault_txid: txidSchema });
export const repayResultSchema = z.object({ repay_txid: txidSchema, vault_txid: txidSchema });
export const vaultTxResultSchema = z.object({ vault_txid: txidSchema });
export type OpenResult = z.infer<typeof openResultSchema>;
export type BorrowResult = z.infer<typeof borrowResultSchema>;
export type RepayResult = z.infer<typeof repayResultSchema>;
export type VaultTxResult = z.infer<typeof vaultTxResultSchema>;

/**
 * vault.speedup params: a BIP-125 replacement of `original_txid` (a vault transaction the guardian
 * broadcast, still unconfirmed) signed by the wallet; it may change nothing but the fee.
 */
export const speedUpRequestSchema = z.object({
  original_txid: txidSchema,
  vault_pubkey: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 32 bytes of hex'),
  /** base64 PSBT of the replacement, the wallet's inputs signed */
  psbt: psbtSchema,
});
export type SpeedUpRequest = z.infer<typeof speedUpRequestSchema>;

export const speedUpResultSchema = z.object({
  /** the replacement's txid, now in the mempool in place of the original */
  vault_txid: txidSchema,
  replaced_txid: txidSchema,
});
export type SpeedUpResult = z.infer<typeof speedUpResultSchema>;

/**
 * One guardian's decision on a request: `pending` until it answers; `excluded` when it approved but
 * was left out of the signing (no commitment, dropped between rounds, a bad share); `reason` is its
 * own words for a refusal or the coordinator's for an exclusion or an unreachable guardian.
 */
export const guardianDecisionSchema = z.object({
  id: z.number().int().min(1).max(255),
  name: z.string().max(64),
  state: z.enum(['pending', 'approved', 'refused', 'unreachable', 'excluded']),
  reason: z.string().max(300).optional(),
});
export type GuardianDecision = z.infer<typeof guardianDecisionSchema>;

/** "2 of 3 guardians approved": `approved` so far, `needed` is t, `total` is n. */
export const approvalsSchema = z.object({
  approved: z.number().int().min(0).max(255),
  needed: z.number().int().min(1).max(255),
  total: z.number().int().min(1).max(255),
  guardians: z.array(guardianDecisionSchema).max(255),
});
export type Approvals = z.infer<typeof approvalsSchema>;

/**
 * Progress notification `vault.progress` for tracker steps (SPEC §4): 2 request received,
 * 3 validation, 4 network approvals, 5 submitting. `request` is the request's nonce.
 */
export const progressNotificationSchema = z.object({
  request: nonceSchema,
  step: z.union([z.literal(2), z.literal(3), z.literal(4), z.literal(5)]),
  /** Step 4 with a guardian network: each guardian's decision as it arrives. */
  approvals: approvalsSchema.optional(),
});
export type ProgressNotification = z.infer<typeof progressNotificationSchema>;

/** Each vault action's payload and result schemas; the vault.* methods are made of them. */
export const ACTION_WIRE = {
  open: { payload: createConfigPayloadSchema, result: openResultSchema },
  deposit: { payload: depositPayloadSchema, result: vaultTxResultSchema },
  withdraw: { payload: withdrawPayloadSchema, result: vaultTxResultSchema },
  borrow: { payload: borrowPayloadSchema, result: borrowResultSchema },
  repay: { payload: repayPayloadSchema, result: repayResultSchema },
  repossess: { payload: repossessPayloadSchema, result: vaultTxResultSchema },
} as const satisfies Record<VaultAction, { payload: z.ZodType; result: z.ZodType }>;

/** The payload each vault action's request carries. */
export type ActionPayloads = {
  [A in VaultAction]: z.infer<(typeof ACTION_WIRE)[A]['payload']>;
};
/** What each vault action answers. */
export type ActionResults = { [A in VaultAction]: z.infer<(typeof ACTION_WIRE)[A]['result']> };

/** Every guardian method: its params and result schemas. */
export const GUARDIAN_METHODS = {
  'unit.reserve': { params: reserveParamsSchema, result: reserveResultSchema },
  'vault.open': {
    params: signedRequestSchema(createConfigPayloadSchema),
    result: openResultSchema,
  },
  'vault.deposit': {
    params: signedRequestSchema(depositPayloadSchema),
    result: vaultTxResultSchema,
  },
  'vault.withdraw': {
    params: signedRequestSchema(withdrawPayloadSchema),
    result: vaultTxResultSchema,
  },
  'vault.borrow': { params: signedRequestSchema(borrowPayloadSchema), result: borrowResultSchema },
  'vault.repay': { params: signedRequestSchema(repayPayloadSchema), result: repayResultSchema },
  'vault.repossess': {
    params: signedRequestSchema(repossessPayloadSchema),
    result: vaultTxResultSchema,
  },
  'vault.speedup': { params: speedUpRequestSchema, result: speedUpResultSchema },
} as const satisfies Record<`vault.${VaultAction}`, unknown> & Record<string, unknown>;

export type GuardianMethod = keyof typeof GUARDIAN_METHODS;
export type GuardianParams<M extends GuardianMethod> = z.infer<
  (typeof GUARDIAN_METHODS)[M]['params']
>;
export type GuardianResult<M extends GuardianMethod> = z.infer<
  (typeof GUARDIAN_METHODS)[M]['result']
>;
/** The typed contract: each method's params and result. */
export type GuardianMethods = {
  [M in GuardianMethod]: { params: GuardianParams<M>; result: GuardianResult<M> };
};

/** The vault.* method of an action. */
export const vaultMethodOf = <A extends VaultAction>(action: A) => `vault.${action}` as const;
