// The ledger digest (docs/protocol.md, "The ledger digest"): one hash over every vault's collateral,
// debt and status, so an open validator that rebuilt the vaults from the chain and the app that
// keeps them in its database can compare their whole ledgers in 32 bytes, and name the vaults
// that differ from the entries behind it.
import { hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';

/**
 * A vault's status as the chain shows it. The app's `liquidated` (its oracle revealed the secret,
 * no claimant yet) is not on the chain: it is `open` here until a repossession spends it.
 * `unrecorded`: a transaction spent the vault's output without a state record anyone can read.
 * `settled`: the guardians spent it through its settlement leaf at its term (no record: the chain's
 * witness names the leaf, the vault's last record its height); it holds nothing since.
 * `exited`: its owner spent it through the exit leaf after the exit height (no record either: the
 * witness shows the exit leaf, the vault's last record its height); it holds nothing since.
 */
export type LedgerStatus = 'open' | 'repossessed' | 'unrecorded' | 'settled' | 'exited';

/** Each status's byte in the digest; a new way out of a vault adds its own code at the end. */
export const LEDGER_STATUS_CODES: Record<LedgerStatus, number> = {
  open: 0,
  repossessed: 1,
  unrecorded: 2,
  settled: 3,
  exited: 4,
};

export interface LedgerVault {
  /** the opening's txid, lowercase hex as txids are written */
  vaultId: string;
  /** BTC in the vault, sats (0 once repossessed) */
  collateralSats: bigint;
  /** UNIT debt, hundredths (0 once repossessed) */
  debt: bigint;
  status: LedgerStatus;
}

export const LEDGER_DIGEST_TAG = 'unit/ledger';
/** One vault's bytes: 32 (vault id) + 8 (sats) + 8 (debt) + 1 (status). */
export const LEDGER_ENTRY_LENGTH = 49;
const TXID = /^[0-9a-f]{64}$/;
const U64_MAX = (1n << 64n) - 1n;

/** The vaults in the digest's order: vault id ascending (the hex string's order, the bytes' too). */
export const ledgerOrder = (vaults: Iterable<LedgerVault>): LedgerVault[] =>
  [...vaults].sort((a, b) => (a.vaultId < b.vaultId ? -1 : a.vaultId > b.vaultId ? 1 : 0));

/** One vault's 49 bytes: vault id, u64be sats, u64be debt, status byte. */
export function ledgerEntry(vault: LedgerVault): Uint8Array {
  if (!TXID.test(vault.vaultId)) throw new Error(`ledger: bad vault id ${vault.vaultId}`);
  for (const [field, value] of [
    ['collateral', vault.collateralSats],
    ['debt', vault.debt],
  ] as const)
    if (value < 0n || value > U64_MAX)
      throw new Error(`ledger: vault ${vault.vaultId} ${field} out of u64 range`);
  const out = new Uint8Array(LEDGER_ENTRY_LENGTH);
  const view = new DataView(out.buffer);
  out.set(hex.decode(vault.vaultId), 0);
  view.setBigUint64(32, vault.collateralSats);
  view.setBigUint64(40, vault.debt);
  out[48] = LEDGER_STATUS_CODES[vault.status];
  return out;
}

/**
 * `taggedHash("unit/ledger", u32be(count) || entry_1 || ... || entry_count)` in lowercase hex,
 * entries in vault id order; an empty ledger is the hash of four zero bytes.
 */
export function ledgerDigest(vaults: Iterable<LedgerVault>): string {
  const ordered = ledgerOrder(vaults);
  const tag = sha256(new TextEncoder().encode(LEDGER_DIGEST_TAG));
  const hash = sha256.create().update(tag).update(tag);
  const count = new Uint8Array(4);
  new DataView(count.buffer).setUint32(0, ordered.length);
  hash.update(count);
  for (const vault of ordered) hash.update(ledgerEntry(vault));
  return hex.encode(hash.digest());
}

export interface LedgerDifference {
  vaultId: string;
  /** what the first side holds (null: it has no such vault) */
  ours: LedgerVault | null;
  theirs: LedgerVault | null;
}

/** The vaults whose entries differ between two ledgers, in vault id order. */
export function ledgerDifferences(
  ours: Iterable<LedgerVault>,
  theirs: Iterable<LedgerVault>,
): LedgerDifference[] {
  const mine = new Map([...ours].map((v) => [v.vaultId, v]));
  const other = new Map([...theirs].map((v) => [v.vaultId, v]));
  const ids = [...new Set([...mine.keys(), ...other.keys()])].sort();
  const same = (a: LedgerVault, b: LedgerVault) =>
    a.collateralSats === b.collateralSats && a.debt === b.debt && a.status === b.status;
  return ids.flatMap((vaultId) => {
    const a = mine.get(vaultId) ?? null;
    const b = other.get(vaultId) ?? null;
    return a && b && same(a, b) ? [] : [{ vaultId, ours: a, theirs: b }];
  });
}

/** A ledger's JSON form (`GET /api/ledger/<height>`, the validator's `/ledger/<height>`). */
export interface LedgerJson {
  height: number;
  digest: string;
  vaults: { vault_id: string; collateral_sats: string; debt: string; status: LedgerStatus }[];
}

export function ledgerJson(height: number, vaults: Iterable<LedgerVault>): LedgerJson {
  const ordered = ledgerOrder(vaults);
  return {
    height,
    digest: ledgerDigest(ordered),
    vaults: ordered.map((v) => ({
      vault_id: v.vaultId,
      collateral_sats: v.collateralSats.toString(),
      debt: v.debt.toString(),
      status: v.status,
    })),
  };
}

const STATUSES = new Set(Object.keys(LEDGER_STATUS_CODES));

/** The vaults of a ledger's JSON form, or null when it is not one (hostile input: checked). */
export function ledgerFromJson(json: unknown): LedgerVault[] | null {
  if (typeof json !== 'object' || json === null) return null;
  const { vaults } = json as { vaults?: unknown };
  if (!Array.isArray(vaults)) return null;
  const out: LedgerVault[] = [];
  for (const v of vaults as Record<string, unknown>[]) {
    const { vault_id, collateral_sats, debt, status } = v ?? {};
    if (typeof vault_id !== 'string' || !TXID.test(vault_id)) return null;
    if (typeof collateral_sats !== 'string' || !/^\d{1,20}$/.test(collateral_sats)) return null;
    if (typeof debt !== 'string' || !/^\d{1,20}$/.test(debt)) return null;
    if (typeof status !== 'string' || !STATUSES.has(status)) return null;
    out.push({
      vaultId: vault_id,
      collateralSats: BigInt(collateral_sats),
      debt: BigInt(debt),
      status: status as LedgerStatus,
    });
  }
  return out;
}

/**
 * The same digest kept up to date as vaults change (a validator after each block): each vault's
 * entry is encoded once per change and the ids stay sorted, so a block costs one hash over the
 * entries, not a sort and an encoding of every vault.
 */
export class LedgerDigester {
  private readonly entries = new Map<string, Uint8Array>();
  private ids: string[] = [];
  private cached: string | null = null;

  /** `hash`: SHA-256; a native one (node:crypto) makes a large ledger's block several times cheaper. */
  constructor(private readonly hash: (bytes: Uint8Array) => Uint8Array = sha256) {}

  set(vault: LedgerVault): void {
    if (!this.entries.has(vault.vaultId)) {
      // Binary search for the id's place: the ids stay in the digest's order.
      let lo = 0;
      let hi = this.ids.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.ids[mid]! < vault.vaultId) lo = mid + 1;
        else hi = mid;
      }
      this.ids.splice(lo, 0, vault.vaultId);
    }
    this.entries.set(vault.vaultId, ledgerEntry(vault));
    this.cached = null;
  }

  digest(): string {
    if (this.cached !== null) return this.cached;
    const tag = sha256(new TextEncoder().encode(LEDGER_DIGEST_TAG));
    const body = new Uint8Array(64 + 4 + this.ids.length * LEDGER_ENTRY_LENGTH);
    body.set(tag, 0);
    body.set(tag, 32);
    new DataView(body.buffer).setUint32(64, this.ids.length);
    this.ids.forEach((id, i) => body.set(this.entries.get(id)!, 68 + i * LEDGER_ENTRY_LENGTH));
    this.cached = hex.encode(this.hash(body));
    return this.cached;
  }
}
