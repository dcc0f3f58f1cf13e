// The thin runner of a vault request: the planner (plan.ts) says what to reserve, what to read and
// which quote to ask for; the caller's I/O does it (the web app over its API and the wallet, the
// tests over their store, devnet and keys), in the order the web app has always done it: reserve,
// draw the envelope, quote, read the outputs, build, sign and wrap. Sending is the caller's.
import { base64, hex } from '@scure/base';
import type {
  ReserveParams,
  ReserveResult,
  SignedQuote,
  SignedVaultRequest,
  VaultAction,
} from '@unit/protocol';
import { draftEnvelope, signVaultRequest, type EnvelopeDraft } from '@unit/protocol/wire/client';
import { addressToScript } from '../address';
import type { PaymentUtxo } from '../flows/coin-select';
import type { QuoteCommitment } from '../flows/quoted-vault';
import type { RuneId, VaultOutputParams } from '../core';
import type { UnitUtxo, VaultStateFields } from '../actions/params';
import {
  buildVaultRequest,
  planVaultRequest,
  quotedRequest,
  reservedTreasuryUtxo,
  type VaultRequestInput,
  type VaultRequestPlan,
  type VaultRequestPsbt,
  type WalletKey,
} from './plan';

/** A quote as GET /api/oracle/quote serves it: what the envelope carries and the PSBT commits to. */
export type RequestQuote = SignedQuote & QuoteCommitment;

/** The reading, reserving and signing a request needs, each the caller's. */
export interface VaultRequestIo {
  /**
   * unit.reserve, over the socket the request will be sent on (the reservation lives with it);
   * asked only of an action that reserves.
   */
  reserve?(params: ReserveParams): Promise<ReserveResult>;
  /** The oracle's quote of the threshold of the state after, at `ts`. */
  quote(thresholdCents: number, ts: number): Promise<RequestQuote>;
  /** The wallet's payment outputs (asked only of an action that pays from the wallet). */
  paymentUtxos(): Promise<readonly PaymentUtxo[]>;
  /** The wallet's UNIT outputs (asked only of an action that spends them: repay). */
  unitUtxos?(): Promise<readonly UnitUtxo[]>;
  /** The account's postage and the treasury's (asked only of an action whose UNIT carries it). */
  postage?(): Promise<{ postageSats?: bigint; treasuryPostageSats?: bigint }>;
  /** The wallet: signs its inputs of the base64 PSBT (`signers`: which key signs which) and answers it. */
  sign(psbt: string, signers: VaultRequestPsbt['signers']): Promise<string> | string;
}

export interface VaultRequestContext {
  /** The requester's vault key, hex. */
  vaultPubkey: string;
  /** The new vault output's keys but the requester's: the newest guardian set's, the network. */
  keys: Omit<VaultOutputParams, 'thresholdHash' | 'vaultPubkey'>;
  /** Unix seconds, read once the reservation is held (the envelope's clock). */
  now(): number;
  /** The envelope's lifetime and its nonce's randomness (protocol's draftEnvelope defaults). */
  lifetimeSeconds?: number;
  random?: (bytes: number) => Uint8Array;
  /** The treasury's key-path internal key for its UNIT output; absent: the group's `OP_1 <key>`. */
  treasuryInternalKey?: Uint8Array;
  /** Where the repossession tax goes; a repay pays back to the reservation's treasury address. */
  treasuryScript?: Uint8Array;
  unitRuneId?: RuneId;
  label?: string;
  liquidatedVaultId?: string;
  /** The state record as signed, from the one the quote gives (a test's forgeries). */
  recordState?(state: VaultStateFields): VaultStateFields;
}

export interface PreparedVaultRequest<A extends VaultAction = VaultAction> {
  plan: VaultRequestPlan<A>;
  reservation: ReserveResult | null;
  quote: RequestQuote;
  draft: EnvelopeDraft;
  psbt: VaultRequestPsbt<A>;
  /** The signed request, ready for `vault.<action>`. */
  request: SignedVaultRequest<VaultRequestPsbt<A>['payload']>;
}

/** Plans, reserves, quotes, reads, builds and signs one vault request. */
export async function prepareVaultRequest<A extends VaultAction>(
  input: VaultRequestInput<A>,
  context: VaultRequestContext,
  io: VaultRequestIo,
): Promise<PreparedVaultRequest<A>> {
  const plan = planVaultRequest(input);
  const { needs } = plan;
  if (plan.reserve && !io.reserve) throw new TypeError(`a ${input.action} needs a reservation`);
  const reservation = plan.reserve
    ? await io.reserve!({ ...plan.reserve, vault_pubkey: context.vaultPubkey })
    : null;
  const now = context.now();
  const draft = draftEnvelope(now, context.lifetimeSeconds, context.random);
  const quote = await io.quote(plan.thresholdCents, now);
  const quoted = quotedRequest(plan, {
    quote,
    draft,
    keys: { ...context.keys, vaultPubkey: hex.decode(context.vaultPubkey) },
  });
  const state = context.recordState ? context.recordState(quoted.state) : quoted.state;
  const postage = needs.accountPostage && io.postage ? await io.postage() : {};
  const utxos = needs.payments ? await io.paymentUtxos() : [];
  const unitUtxos = needs.unitUtxos && io.unitUtxos ? await io.unitUtxos() : [];
  const treasury = reservation?.treasury_utxo;
  const psbt = buildVaultRequest(
    plan,
    { state, newVault: quoted.newVault },
    {
      utxos,
      unitUtxos,
      ...(treasury
        ? { treasury: reservedTreasuryUtxo(treasury, context.treasuryInternalKey) }
        : {}),
      ...treasuryScriptOf(plan, reservation, context),
      ...(plan.reserve && context.unitRuneId ? { unitRuneId: context.unitRuneId } : {}),
      ...postage,
      ...(context.label !== undefined ? { label: context.label } : {}),
      ...(context.liquidatedVaultId !== undefined
        ? { liquidatedVaultId: context.liquidatedVaultId }
        : {}),
    },
  );
  const request = await signVaultRequest({
    draft,
    payload: psbt.payload,
    vaultPubkey: context.vaultPubkey,
    quote,
    reservationId: reservation?.reservation_id ?? null,
    psbt: base64.encode(psbt.built.psbt),
    sign: (unsigned) => io.sign(unsigned, psbt.signers),
  });
  return { plan, reservation, quote, draft, psbt, request };
}

/**
 * Where the UNIT of a repay goes back: the treasury address its reservation names (ACTION_SHAPES'
 * 'treasury-address'); the repossession tax goes to the caller's treasury script.
 */
function treasuryScriptOf(
  plan: VaultRequestPlan,
  reservation: ReserveResult | null,
  context: VaultRequestContext,
): { treasuryScript?: Uint8Array } {
  if (plan.shape.reserve === 'treasury-address' && reservation)
    return { treasuryScript: addressToScript(reservation.treasury_address, context.keys.network) };
  return context.treasuryScript ? { treasuryScript: context.treasuryScript } : {};
}

export type { WalletKey };
