// Rebuilds vaults and their history from the chain's state records, so a server
// whose database is gone resumes with its vaults. Every opening and every borrow spends a treasury
// UNIT output, so the treasury address's transactions name every vault's opening (vault_id = its
// txid); from there each vault output's spender is the next vault transaction, whose state record
// says the vault after it. The vault's own key is in its opening's record (version 2,
// docs/protocol.md); an opening of version 1 lacks it, and there the first spend of a vault output
// by its update leaf reveals it (the leaf is `<vault_pubkey> OP_CHECKSIGVERIFY ...`). Either way the
// key is proven by rebuilding the vault's current output from it, the guardian key and the
// threshold hashes (vault-leaves.ts: with the network, the guardians' hashes under any set's key of
// the chain, found by asking them, and their settings row restored). A version 1 opening never
// spent since keeps its key off the chain, and a vault whose oracles do not answer its hashes keeps
// its leaves: both are reported, not guessed, and the next `npm run reindex` tries again.
import { hex } from '@scure/base';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  classifyTapLeaf,
  ownerPayoutScript,
  parseStateRecordScript,
  parseTimelockLeaf,
  spendsExitLeaf,
  spendsSettlementLeaf,
  type StateRecord,
} from '@unit/bitcoin';
import { REPOSSESSION_TAX_PERCENT, SATS_PER_BTC } from '@unit/protocol';
import type { EsploraOutspend, EsploraTx } from '../chain/esplora-types';
import { oracleHashesKey } from '../oracle/network-oracles';
import type { Database } from '../store/schema';
import { putSetting } from '../store/settings';
import { appendVaultHistory, insertVault } from '../store/vaults';
import { exitHistory } from '../store/exits';
import type { VaultLeaves } from './vault-leaves';
import { answeredWith, esploraService } from '../chain/service-failure';

export interface ReindexDeps {
  db: Kysely<Database>;
  esploraUrl: string;
  fetch: typeof fetch;
  /** Every address the treasury has had (with the network: each set's `OP_1 <group key>`, since
   * `operator treasury move` takes it to the newest set's), where each opening took its UNIT. */
  treasuryAddresses: readonly string[];
  /** The guardian key and threshold hashes of a vault's output, proven against it. */
  leaves: VaultLeaves;
  now: () => number;
  log: Pick<Logger, 'info' | 'warn'>;
}

export interface ReindexResult {
  restored: string[];
  /** Openings of version 1 whose vault key the chain does not show yet (never spent since). */
  keyUnknown: string[];
  /** Vaults whose output no key and hashes found rebuild (an oracle that did not answer), and why. */
  leavesUnknown: { vaultId: string; problem: string }[];
  /** Vaults already in the database, left as they are. */
  skipped: string[];
}

/** The longest chain of vault transactions followed for one vault. */
const MAX_VAULT_TXS = 10_000;
/** Pages of an address's confirmed history read (esplora pages of 25). */
const MAX_PAGES = 4_000;

interface Step {
  tx: EsploraTx;
  record: StateRecord;
}

class EsploraReads {
  private readonly base: string;
  constructor(private readonly deps: Pick<ReindexDeps, 'esploraUrl' | 'fetch'>) {
    this.base = deps.esploraUrl.replace(/\/+$/, '');
  }

  async json<T>(path: string): Promise<T | null> {
    const response = await this.deps.fetch(`${this.base}${path}`);
    if (response.status === 404) return null;
    if (!response.ok)
      throw new Error(answeredWith(esploraService(this.base), path, response.status));
    return (await response.json()) as T;
  }

  tx(txid: string): Promise<EsploraTx | null> {
    return this.json<EsploraTx>(`/tx/${txid}`);
  }

  outspend(txid: string, vout: number): Promise<EsploraOutspend | null> {
    return this.json<EsploraOutspend>(`/tx/${txid}/outspend/${vout}`);
  }

  /** Every transaction of the address: the mempool and first page, then the chain pages. */
  async addressTxs(address: string): Promise<EsploraTx[]> {
    const all: EsploraTx[] = [];
    let page = (await this.json<EsploraTx[]>(`/address/${address}/txs`)) ?? [];
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      all.push(...page);
      const confirmed = page.filter((tx) => tx.status.confirmed);
      if (confirmed.length < 25) break;
      const next = await this.json<EsploraTx[]>(
        `/address/${address}/txs/chain/${confirmed.at(-1)!.txid}`,
      );
      if (next === null) break; // a service without chain pages: what it showed is all there is
      page = next;
    }
    return all;
  }
}

const recordOf = (tx: EsploraTx): StateRecord | null => {
  for (const out of tx.vout) {
    const record = parseStateRecordScript(hex.decode(out.scriptpubkey));
    if (record) return record;
  }
  return null;
};

/** The vault key the input spending a vault output shows, when it spends by the update leaf. */
function revealedKey(tx: EsploraTx, txid: string): string | null {
  const input = tx.vin.find((vin) => vin.txid === txid && vin.vout === 0);
  if (!input || input.witness.length < 3) return null;
  const leaf = classifyTapLeaf(hex.decode(input.witness[input.witness.length - 2]!));
  return leaf?.kind === 'update' ? hex.encode(leaf.vaultPubkey) : null;
}

/**
 * The vault's transactions from its opening, each spending the last one's output 0: its records,
 * its key once shown, and how it ended (a repossession that took it, the guardians' settlement).
 */
async function followVault(reads: EsploraReads, opening: EsploraTx) {
  const openingRecord = recordOf(opening)!;
  const steps: Step[] = [{ tx: opening, record: openingRecord }];
  let vaultPubkey = openingRecord.vaultPubkey ? hex.encode(openingRecord.vaultPubkey) : null;
  /** The repossession that took this vault, when one did. */
  let repossessed: Step | null = null;
  /** The guardians' settlement at its term, when they settled it (no record: its witness). */
  let settled: EsploraTx | null = null;
  /** The owner's exit, when the owner left by it (no record either: its witness). */
  let exited: EsploraTx | null = null;
  for (let i = 0; i < MAX_VAULT_TXS; i++) {
    const last = steps.at(-1)!.tx;
    const spend = await reads.outspend(last.txid, 0);
    if (!spend?.spent || !spend.txid) break;
    const next = await reads.tx(spend.txid);
    const record = next && recordOf(next);
    if (next && !record && settledBy(next, last.txid, steps.at(-1)!.record)) settled = next;
    // Only a mined exit closes a vault, as the block watcher's check (exits.ts).
    if (
      next?.status.confirmed &&
      !record &&
      exitedBy(next, last.txid, steps.at(-1)!.record, vaultPubkey)
    ) {
      exited = next;
      vaultPubkey ??= exitKey(next, last.txid);
    }
    if (!next || !record) break;
    vaultPubkey ??= revealedKey(next, last.txid);
    // A repossession spends the liquidated vault first and the claimant's after it
    // (docs/protocol.md): the first ends here, the claimant's goes on in its output 0.
    const input = next.vin.findIndex((vin) => vin.txid === last.txid && vin.vout === 0);
    if (record.action === 'x' && input === 0) {
      repossessed = { tx: next, record };
      break;
    }
    steps.push({ tx: next, record });
  }
  return { steps, vaultPubkey, repossessed, settled, exited };
}

const witnessOf = (tx: EsploraTx, txid: string) =>
  tx.vin.find((vin) => vin.txid === txid && vin.vout === 0)?.witness.map((w) => hex.decode(w));

/**
 * Whether `tx` spends the vault output `txid:0` through its exit leaf (term-leaves.ts): the key is
 * the one the opening's record names when it names one, and the exit leaf shows it otherwise.
 */
function exitedBy(tx: EsploraTx, txid: string, last: StateRecord, key: string | null): boolean {
  return spendsExitLeaf(witnessOf(tx, txid), last.term?.exitHeight, key ? hex.decode(key) : null);
}

/** The vault key an exit's leaf names. */
function exitKey(tx: EsploraTx, txid: string): string | null {
  const leaf = witnessOf(tx, txid)?.[1];
  const parsed = leaf ? parseTimelockLeaf(leaf) : null;
  return parsed ? hex.encode(parsed.pubkey) : null;
}

/** Whether `tx` spends the vault output `txid:0` through its settlement leaf (term-leaves.ts). */
function settledBy(tx: EsploraTx, txid: string, last: StateRecord): boolean {
  const input = tx.vin.find((vin) => vin.txid === txid && vin.vout === 0);
  const witness = input?.witness.map((w) => hex.decode(w));
  return spendsSettlementLeaf(witness, last.term?.settleHeight);
}

/**
 * The history `s` of a settlement rebuilt from the chain: what the vault held, and the price the
 * treasury's part implies (debt and tax, REPOSSESSION_TAX_PERCENT, at the quorum's price, which is
 * not on the chain), in whole dollars; 0 when there was no debt to tell it.
 */
function settlementHistory(
  vaultId: string,
  vaultPubkey: string,
  current: Step,
  tx: EsploraTx,
  time: (tx: EsploraTx) => number,
) {
  const { vaultSats, unitDebt } = current.record;
  // The owner's rest goes to `OP_1 <vault_pubkey>`; the treasury's part is the other output.
  const ownerScript = hex.encode(ownerPayoutScript(hex.decode(vaultPubkey)));
  const found = tx.vout.findIndex((o) => o.scriptpubkey === ownerScript);
  const owner = found < 0 ? null : found;
  const treasuryOut = tx.vout.find((_, i) => i !== owner);
  const treasurySats = BigInt(unitDebt === 0n ? 0 : (treasuryOut?.value ?? 0));
  const taxed = BigInt(100 + REPOSSESSION_TAX_PERCENT);
  const price =
    treasurySats > 0n ? (unitDebt * SATS_PER_BTC * taxed) / (treasurySats * 100n) / 100n : 0n;
  return {
    vault_id: vaultId,
    timestamp: time(tx),
    action: 's' as const,
    btc_amt: Number(vaultSats),
    unit_amt: Number(unitDebt),
    vault_amount: 0,
    amount_borrowed: 0,
    oracle_price: Number(price),
    transaction_id: tx.txid,
    utxo: `${tx.txid}:${owner ?? 0}`,
    utxo_script: owner === null ? '' : tx.vout[owner]!.scriptpubkey,
    liquidation_hash: null,
    liquidation_threshold: null,
    confirmed: tx.status.confirmed ? 1 : 0,
  };
}

/** Layout 2: the term a vault's last record carries (versions 5 to 8), for `vaultOutput`. */
const recordedTerm = ({ term }: StateRecord) =>
  term ? { term: { settleHeight: term.settleHeight, exitHeight: term.exitHeight } } : {};

/** Rebuilds every vault the chain shows that the database lacks. */
export async function reindexFromChain(deps: ReindexDeps): Promise<ReindexResult> {
  const reads = new EsploraReads(deps);
  const result: ReindexResult = { restored: [], keyUnknown: [], leavesUnknown: [], skipped: [] };
  const seen = new Set<string>();
  const openings: EsploraTx[] = [];
  for (const address of new Set(deps.treasuryAddresses))
    for (const tx of await reads.addressTxs(address))
      if (!seen.has(tx.txid) && recordOf(tx)?.action === 'o') {
        seen.add(tx.txid);
        openings.push(tx);
      }
  for (const opening of openings) {
    const vaultId = opening.txid;
    const known = await deps.db
      .selectFrom('vaults')
      .select('vault_id')
      .where('vault_id', '=', vaultId)
      .executeTakeFirst();
    if (known) {
      result.skipped.push(vaultId);
      continue;
    }
    const { steps, repossessed, settled, exited, ...walked } = await followVault(reads, opening);
    const vaultPubkey = walked.vaultPubkey;
    if (vaultPubkey === null) {
      result.keyUnknown.push(vaultId);
      deps.log.warn({ vault_id: vaultId }, "reindex: the chain does not show this vault's key yet");
      continue;
    }
    const current = steps.at(-1)!;
    // The key must rebuild the vault's current output: then the oracles' secrets open it too.
    const onChain = {
      vaultPubkey: hex.decode(vaultPubkey),
      thCents: current.record.thresholdCents,
      stamp: current.record.quoteStamp,
      script: current.tx.vout[0]!.scriptpubkey,
      ...recordedTerm(current.record),
    };
    const leaves = await deps.leaves.prove(onChain);
    if ('problem' in leaves) {
      result.leavesUnknown.push({ vaultId, problem: leaves.problem });
      deps.log.warn({ vault_id: vaultId, problem: leaves.problem }, 'reindex: vault not rebuilt');
      continue;
    }
    await deps.db.transaction().execute(async (trx) => {
      // What network-oracles.ts reads for the vault's next action, its quote and its guard key.
      if (leaves.commitment)
        await putSetting(
          trx,
          oracleHashesKey(onChain.thCents, onChain.stamp),
          JSON.stringify(leaves.commitment),
        );
      const time = (tx: EsploraTx) => tx.status.block_time ?? deps.now();
      const created = time(opening);
      await insertVault(trx, {
        vault_id: vaultId,
        vault_tag: vaultId.slice(0, 8),
        vault_pubkey: vaultPubkey,
        // The label the owner typed was never on the chain.
        name: `Vault ${vaultId.slice(0, 8)}`,
        creation_account: opening.vin[1]?.prevout?.scriptpubkey_address ?? '',
        runes_account: opening.vout[1]?.scriptpubkey_address ?? '',
        // A repossessed vault's collateral and debt went to its claimant, a settled one's to the
        // treasury and its owner (effects.ts), an exited one's collateral to its owner (exits.ts).
        btc_locked: repossessed || settled || exited ? 0 : Number(current.record.vaultSats),
        unit_borrowed: repossessed || settled || exited ? 0 : Number(current.record.unitDebt),
        vault_txid: current.tx.txid,
        vault_vout: 0,
        threshold_cents: Number(current.record.thresholdCents),
        stamp: current.record.quoteStamp,
        settle_height: current.record.term?.settleHeight ?? null,
        exit_height: current.record.term?.exitHeight ?? null,
        status: repossessed ? 'repossessed' : settled ? 'settled' : exited ? 'exited' : 'active',
        created_at: created,
      });
      let before = { sats: 0n, debt: 0n };
      for (const { tx, record } of steps) {
        const abs = (n: bigint) => (n < 0n ? -n : n);
        await appendVaultHistory(trx, {
          vault_id: vaultId,
          timestamp: time(tx),
          action: record.action,
          btc_amt: Number(abs(record.vaultSats - before.sats)),
          unit_amt: Number(abs(record.unitDebt - before.debt)),
          vault_amount: Number(record.vaultSats),
          amount_borrowed: Number(record.unitDebt),
          // Whole dollars, as the guardian records it (actions.ts).
          oracle_price: Number(record.quotePriceCents / 100n),
          transaction_id: tx.txid,
          utxo: `${tx.txid}:0`,
          utxo_script: tx.vout[0]!.scriptpubkey,
          liquidation_hash: null,
          liquidation_threshold: null,
          confirmed: tx.status.confirmed ? 1 : 0,
        });
        before = { sats: record.vaultSats, debt: record.unitDebt };
      }
      if (repossessed)
        await appendVaultHistory(trx, {
          vault_id: vaultId,
          timestamp: time(repossessed.tx),
          action: 'x',
          btc_amt: Number(current.record.vaultSats),
          unit_amt: Number(current.record.unitDebt),
          vault_amount: 0,
          amount_borrowed: 0,
          oracle_price: Number(repossessed.record.quotePriceCents / 100n),
          transaction_id: repossessed.tx.txid,
          utxo: `${repossessed.tx.txid}:0`,
          utxo_script: current.tx.vout[0]!.scriptpubkey,
          liquidation_hash: null,
          liquidation_threshold: null,
          confirmed: repossessed.tx.status.confirmed ? 1 : 0,
        });
      if (settled)
        await appendVaultHistory(
          trx,
          settlementHistory(vaultId, vaultPubkey, current, settled, time),
        );
      if (exited)
        await appendVaultHistory(
          trx,
          exitHistory(
            vaultId,
            { btc_locked: current.record.vaultSats, unit_borrowed: current.record.unitDebt },
            exited.txid,
            exited.vout[0]?.scriptpubkey ?? '',
            time(exited),
          ),
        );
    });
    result.restored.push(vaultId);
  }
  deps.log.info(
    {
      restored: result.restored.length,
      key_unknown: result.keyUnknown.length,
      leaves_unknown: result.leavesUnknown.length,
      skipped: result.skipped.length,
    },
    'reindex from the chain done',
  );
  return result;
}

/** The start on an empty database off the devnet: rebuild first, then take requests. */
export async function reindexIfEmpty(deps: ReindexDeps): Promise<ReindexResult | null> {
  const any = await deps.db.selectFrom('vaults').select('vault_id').limit(1).executeTakeFirst();
  if (any) return null;
  return reindexFromChain(deps);
}

/** Every reindex read gives up after this long: a frozen service must not hold the start. */
export const REINDEX_TIMEOUT_MS = 20_000;
export const timedFetch: typeof fetch = (input, init) =>
  fetch(input, { ...init, signal: AbortSignal.timeout(REINDEX_TIMEOUT_MS) });
