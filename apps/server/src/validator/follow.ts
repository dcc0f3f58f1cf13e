// The open validator's follower: the chain read block by block from height 0 (any esplora), each
// block's transactions given in order to the pure replay of @unit/bitcoin, and after each block the
// digest of the whole ledger with what any record broke. It keeps each vault's versions by height,
// so it can answer the ledger at any height it has passed (`--serve`), and starts over when the
// chain it followed was replaced (a reorganisation).
import {
  LedgerDigester,
  LedgerReplay,
  type LedgerFinding,
  type LedgerVault,
  type ReplayOptions,
} from '@unit/bitcoin';
import { createHash } from 'node:crypto';
import type { BlockSource } from './esplora-source';

/** node's SHA-256: the same digest as @noble/hashes', native (a 10,000-vault ledger is 490 KB). */
const nativeSha256 = (bytes: Uint8Array): Uint8Array =>
  new Uint8Array(createHash('sha256').update(bytes).digest());

export interface BlockReport {
  height: number;
  hash: string;
  /** the ledger digest after every transaction of this block and the blocks before */
  digest: string;
  vaults: number;
  /** whether any vault changed in this block */
  changed: boolean;
  findings: LedgerFinding[];
}

const sameVault = (a: LedgerVault, b: LedgerVault) =>
  a.collateralSats === b.collateralSats && a.debt === b.debt && a.status === b.status;

export class Validator {
  private replay: LedgerReplay;
  /** each vault's entries, oldest first, with the height from which each holds */
  private versions = new Map<string, { height: number; vault: LedgerVault }[]>();
  private hashes: string[] = [];
  private digests: string[] = [];
  private digester = new LedgerDigester(nativeSha256);

  constructor(
    private readonly source: BlockSource,
    private readonly options: ReplayOptions,
  ) {
    this.replay = new LedgerReplay(options);
  }

  /** The next height to read. */
  get height(): number {
    return this.hashes.length;
  }

  /** Reads every block up to the tip, reporting each; answers how many it read. */
  async catchUp(onBlock: (report: BlockReport) => void, until = Infinity): Promise<number> {
    await this.checkReorg();
    const tip = Math.min(await this.source.tipHeight(), until);
    let read = 0;
    while (this.height <= tip) {
      const report = await this.step();
      if (!report) break;
      onBlock(report);
      read++;
    }
    return read;
  }

  /** The ledger's digest after `height`, or null when this validator has not read it. */
  digestAt(height: number): string | null {
    return this.digests[height] ?? null;
  }

  /** Every vault as it stood after block `height`, or null when not read yet. */
  ledgerAt(height: number): LedgerVault[] | null {
    if (!Number.isSafeInteger(height) || height < 0 || height >= this.height) return null;
    const out: LedgerVault[] = [];
    for (const list of this.versions.values()) {
      let found: LedgerVault | null = null;
      for (const v of list) {
        if (v.height > height) break;
        found = v.vault;
      }
      if (found) out.push(found);
    }
    return out;
  }

  private async step(): Promise<BlockReport | null> {
    const height = this.height;
    const hash = await this.source.blockHash(height);
    if (hash === null) return null;
    const findings: LedgerFinding[] = [];
    for (const tx of await this.source.blockTxs(hash)) {
      const applied = this.replay.apply(tx);
      findings.push(...applied.findings);
      // The quote's signed prices live with the guardians and the app, not on the chain.
      for (const q of applied.quorums)
        findings.push({
          kind: 'unverifiable',
          txid: q.txid,
          vaultId: q.vaultId,
          message: `its price quorum ${q.commitment} was not checked: this validator reads no signed prices`,
        });
    }
    const changed = this.record(height);
    const digest = this.digester.digest();
    this.hashes.push(hash);
    this.digests.push(digest);
    return { height, hash, digest, vaults: this.replay.size, changed, findings };
  }

  /** Keeps the vaults that changed at `height`; answers whether any did. */
  private record(height: number): boolean {
    let changed = false;
    for (const vault of this.replay.takeChanged()) {
      const list = this.versions.get(vault.vaultId) ?? [];
      const last = list.at(-1)?.vault;
      if (last && sameVault(last, vault)) continue;
      list.push({ height, vault });
      this.versions.set(vault.vaultId, list);
      this.digester.set(vault);
      changed = true;
    }
    return changed;
  }

  /** Starts over when the last block read is no longer on the chain. */
  private async checkReorg(): Promise<void> {
    const last = this.height - 1;
    if (last < 0 || (await this.source.blockHash(last)) === this.hashes[last]) return;
    this.replay = new LedgerReplay(this.options);
    this.versions = new Map();
    this.hashes = [];
    this.digests = [];
    this.digester = new LedgerDigester(nativeSha256);
  }
}
