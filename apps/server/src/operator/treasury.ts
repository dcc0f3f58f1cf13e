// The operator's treasury work (README "Operate on signet"): what the treasury holds (this
// file), splitting its UNIT into outputs of the treasury's postage so that concurrent opens and
// borrows each find one (treasury-split.ts), the UNIT etching on a network that has none yet
// (etch.ts), and taking an existing rune (rune-check.ts). Every transaction is real, signed by the
// treasury key (with the guardian network: a split by t guardians, treasury-cosign.ts; an etching
// by this server's own key, its premine paid to the group's treasury), and sent through the
// configured esplora.
import { treasuryOutput } from '../cosign/treasury-output';
import type { Transaction } from '@scure/btc-signer';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';
import type { Kysely } from 'kysely';
import { UNIT_POSTAGE_SATS, type UnitOutputDto, type UtxoDto } from '@unit/protocol';
import type { Chain } from '../chain/port';
import type { OrdIndexer } from '../chain/ord';
import type { Database } from '../store/schema';
import { heldTreasuryOutputs } from '../cosign/locks';
import type { GuardianNetworkFiles } from '../network-client/set-chain';

/** What the operator's commands need: the chain, the treasury key, and the server's database. */
export interface OperatorContext {
  chain: Chain;
  /** esplora base URL, for the reads the Chain port has no call for (a block's txids). */
  esploraUrl: string;
  fetch: typeof fetch;
  network: BTC_NETWORK;
  treasuryKey: Uint8Array;
  treasuryPubkey: Uint8Array;
  /** GUARDIAN_NETWORK local/external: `treasuryPubkey` is the group key, no key here signs for it. */
  treasuryIsGroupKey?: boolean;
  /** With the group key: t guardians sign a treasury transaction (split), each checking it. */
  cosignTreasury?: (tx: Transaction) => Promise<Transaction>;
  /** With the guardian network: its chain of sets (a `treasury move` signs with an older one). */
  guardianNetwork?: GuardianNetworkFiles;
  /** x-only; the vaults' co-signing key (reindex proves a vault's output with it). */
  guardPubkey: Uint8Array;
  db: Kysely<Database>;
  /** Where an etching in progress is remembered, so an interrupted `etch` resumes. */
  dataDir: string;
  say: (line: string) => void;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** How often to look at the chain while waiting for confirmations. */
  pollMs: number;
  /** With RUNES_API=ord: ord's JSON API, which names an etched rune's id (ord-rune.ts). */
  ord?: OrdIndexer | null;
  /** UNIT_RUNE_ID as configured; null before one exists (etch). */
  unitRuneId?: string | null;
}

export const treasuryAddress = (
  ctx: Pick<OperatorContext, 'treasuryPubkey' | 'treasuryIsGroupKey' | 'network'>,
) =>
  treasuryOutput(
    { pubkey: ctx.treasuryPubkey, isGroupKey: ctx.treasuryIsGroupKey === true },
    ctx.network,
  );

/** UNIT is counted in hundredths: the rune must have divisibility 2. */
export const UNIT_DIVISIBILITY = 2;
export const DEFAULT_UNIT_NAME = 'UNIT•RUNE•TOKEN';
/** 1,000,000,000 UNIT in hundredths, as the devnet's genesis premines. */
export const DEFAULT_UNIT_SUPPLY = 100_000_000_000n;
/** How many treasury UNIT outputs an etching or split makes by default: concurrent issues. */
export const DEFAULT_TREASURY_OUTPUTS = 8;
export const MAX_TREASURY_OUTPUTS = 250;

// ---- status ----

export interface TreasuryStatus {
  address: string;
  /** Every sat at the address, postage included. */
  btcSats: bigint;
  /** Sats spendable for fees: outputs carrying no rune. */
  paymentSats: bigint;
  unitHundredths: bigint;
  unitOutputs: Array<UnitOutputDto & { held: boolean; reservations: number }>;
  paymentOutputs: UtxoDto[];
  /** Live reservations (unit.reserve), by action. */
  reservations: Array<{
    action: string;
    unit_amount: number;
    outpoint: string | null;
    expires_at: number;
  }>;
}

/** `withUnit` false: no rune is configured yet (before the etching), so there is no UNIT to read. */
export async function treasuryStatus(
  ctx: OperatorContext,
  withUnit = true,
): Promise<TreasuryStatus> {
  const address = treasuryAddress(ctx).address;
  const [allRead, paymentRead, unitsRead] = await Promise.allSettled([
    ctx.chain.utxos(address),
    ctx.chain.paymentUtxos(address),
    // ord keys UNIT by its rune's name: before any rune id is configured (etch) there is none.
    withUnit && !(ctx.ord && !ctx.unitRuneId)
      ? ctx.chain.unitOutputs(address)
      : Promise.resolve([]),
  ]);
  // The first failure in this order (esplora, ordinals, runes), not whichever came back first.
  if (allRead.status === 'rejected') throw allRead.reason;
  if (paymentRead.status === 'rejected') throw paymentRead.reason;
  if (unitsRead.status === 'rejected') throw unitsRead.reason;
  const [all, payment, units] = [allRead.value, paymentRead.value, unitsRead.value];
  const now = ctx.now();
  const held = await heldTreasuryOutputs(ctx.db, now);
  const live = await ctx.db
    .selectFrom('reservations')
    .select(['vault_action', 'unit_amount', 'treasury_txid', 'treasury_vout', 'expires_at'])
    .where('status', '=', 'active')
    .where('expires_at', '>', now)
    .orderBy('expires_at')
    .limit(1000)
    .execute();
  const reservations = live.map((r) => ({
    action: r.vault_action,
    unit_amount: Number(r.unit_amount),
    outpoint: r.treasury_txid === null ? null : `${r.treasury_txid}:${r.treasury_vout}`,
    expires_at: Number(r.expires_at),
  }));
  const unspentUnits = units.filter((o) => !o.spent);
  return {
    address,
    btcSats: all.reduce((sum, o) => sum + BigInt(o.value), 0n),
    paymentSats: payment.reduce((sum, o) => sum + BigInt(o.value), 0n),
    unitHundredths: unspentUnits.reduce((sum, o) => sum + BigInt(o.unit_amount), 0n),
    unitOutputs: unspentUnits.map((o) => ({
      ...o,
      held: held.has(`${o.txid}:${o.vout}`),
      reservations: reservations.filter((r) => r.outpoint === `${o.txid}:${o.vout}`).length,
    })),
    paymentOutputs: payment,
    reservations,
  };
}

export const unitText = (hundredths: bigint | number) => {
  const value = BigInt(hundredths);
  return `${value / 100n}.${String(value % 100n).padStart(2, '0')}`;
};

/** What the treasury holds; its address is said before, as it is known without the chain. */
export function statusLines(status: TreasuryStatus, runeId: string | null): string[] {
  const lines = [
    `UNIT rune         ${runeId ?? '(none configured: etch one or set UNIT_RUNE_ID)'}`,
    `BTC               ${status.btcSats} sats (${status.paymentSats} for fees, the rest is UNIT postage)`,
    `UNIT              ${unitText(status.unitHundredths)} in ${status.unitOutputs.length} outputs`,
  ];
  for (const o of status.unitOutputs)
    lines.push(
      `  ${o.txid}:${o.vout}  ${unitText(o.unit_amount)} UNIT  postage ${o.btc_amount} sats${
        o.btc_amount === UNIT_POSTAGE_SATS ? '' : ` (expected ${UNIT_POSTAGE_SATS})`
      }${o.held ? '  in flight' : ''}${o.reservations > 0 ? `  ${o.reservations} reserved` : ''}`,
    );
  for (const o of status.paymentOutputs)
    lines.push(
      `  ${o.txid}:${o.vout}  ${o.value} sats for fees${o.status.confirmed ? '' : ' (unconfirmed)'}`,
    );
  lines.push(`reservations      ${status.reservations.length} live`);
  for (const r of status.reservations)
    lines.push(
      `  ${r.action} ${unitText(r.unit_amount)} UNIT on ${r.outpoint ?? '(repay: none)'} until ${new Date(r.expires_at * 1000).toISOString()}`,
    );
  return lines;
}
