// An open validator's replay (docs/protocol.md, "The open validator"): every vault rebuilt from the
// state records and the transactions alone, one transaction at a time in chain order, with no
// database, key or request. Each vault transaction is read by its action's own declaration (the
// output coder the guardian parses with) and held to the rules that need no request
// (stateRulesRefusal, thresholdOfState); what the chain did is applied even when a rule broke, and
// the broken rule is reported with its vault and txid. A record that cannot be read is named and
// skipped. Pure and synchronous: the caller reads the chain and checks the price quorums.
import { hex } from '@scure/base';
import { equalBytes } from '@scure/btc-signer/utils.js';
import type { VaultAction } from '@unit/protocol';
import {
  DECLARATIONS,
  stateRulesRefusal,
  thresholdOfState,
  type KnownUtxo,
  type ParseContext,
} from '../actions';
import { BadTransaction } from '../actions/types';
import { parseStateRecordScript, STATE_RECORD_MAGIC, type RuneId, type StateRecord } from '../core';
import { spendsExitLeaf, spendsSettlementLeaf } from '../term-leaves';
import type { LedgerStatus, LedgerVault } from './digest';

export interface LedgerTxOutput {
  script: Uint8Array;
  value: bigint;
}

/**
 * A transaction as the replay reads it: each input's outpoint and, when known, its prevout and
 * witness (a settlement at the term is told by the leaf its witness reveals).
 */
export interface LedgerTx {
  txid: string;
  inputs: {
    txid: string;
    vout: number;
    prevout: LedgerTxOutput | null;
    witness?: readonly Uint8Array[];
  }[];
  outputs: LedgerTxOutput[];
}

export type FindingKind = 'broken-rule' | 'unparseable' | 'unverifiable';

export interface LedgerFinding {
  kind: FindingKind;
  txid: string;
  /** the vault the transaction acts on, when it names one */
  vaultId: string | null;
  message: string;
}

/** A record that commits to a price quorum: its signed prices must be found and checked. */
export interface QuorumToCheck {
  txid: string;
  vaultId: string;
  /** the record's 32 bytes, hex */
  commitment: string;
  record: StateRecord;
}

export interface ReplayOptions {
  /** Every treasury output script (`OP_1 <group key>` of each guardian set). */
  treasuryScripts: readonly Uint8Array[];
  unitRuneId: RuneId;
}

interface TrackedVault extends LedgerVault {
  /** `txid:vout` of its live output, null once spent for good */
  outpoint: string | null;
  script: Uint8Array;
  /** The settlement and exit heights its last record commits to (layout 2), else null. */
  settleHeight: number | null;
  exitHeight: number | null;
  /** Its key, when its opening's record carries it (the exit leaf names it). */
  vaultPubkey: Uint8Array | null;
}

const ACTION_OF_CODE = new Map<string, VaultAction>(
  Object.values(DECLARATIONS).map((d) => [d.shape.code, d.action as VaultAction]),
);
/** The runes protocol reads the treasury's UNIT; the replay reads BTC and records only. */
const UNKNOWN_UNIT = (1n << 64n) - 1n;
const OP_RETURN = 0x6a;

/** An OP_RETURN whose first push starts with the record's magic: meant as a record. */
function looksLikeRecord(script: Uint8Array): boolean {
  if (script[0] !== OP_RETURN) return false;
  const start = script[1] === 0x4c ? 3 : script[1] === 0x4d ? 4 : 2;
  const magic = script.subarray(start, start + STATE_RECORD_MAGIC.length);
  return equalBytes(magic, STATE_RECORD_MAGIC);
}

const outpointOf = (txid: string, vout: number) => `${txid}:${vout}`;

export class LedgerReplay {
  private readonly vaults = new Map<string, TrackedVault>();
  private readonly byOutpoint = new Map<string, string>();
  private changed = new Set<string>();

  constructor(private readonly o: ReplayOptions) {}

  /** Every vault opened so far, as the digest reads them. */
  ledger(): LedgerVault[] {
    return [...this.vaults.values()].map(({ vaultId, collateralSats, debt, status }) => ({
      ...{ vaultId, collateralSats, debt, status },
    }));
  }

  get size(): number {
    return this.vaults.size;
  }

  /** The vaults that changed since the last call, as they stand now. */
  takeChanged(): LedgerVault[] {
    const ids = this.changed;
    this.changed = new Set();
    return [...ids].map((id) => {
      const { vaultId, collateralSats, debt, status } = this.vaults.get(id)!;
      return { vaultId, collateralSats, debt, status };
    });
  }

  /** Applies one transaction; answers what it broke and the quorums it commits to. */
  apply(tx: LedgerTx): { findings: LedgerFinding[]; quorums: QuorumToCheck[] } {
    const findings: LedgerFinding[] = [];
    const quorums: QuorumToCheck[] = [];
    const spent = tx.inputs.flatMap((input, index) => {
      const id = this.byOutpoint.get(outpointOf(input.txid, input.vout));
      return id === undefined ? [] : [{ index, vault: this.vaults.get(id)! }];
    });
    const recordAt = tx.outputs.findIndex((o) => parseStateRecordScript(o.script) !== null);
    const find = (kind: FindingKind, vaultId: string | null, message: string) =>
      findings.push({ kind, txid: tx.txid, vaultId, message });
    if (recordAt < 0) {
      const meant = tx.outputs.some((o) => looksLikeRecord(o.script));
      if (meant) find('unparseable', spent[0]?.vault.vaultId ?? null, 'unreadable state record');
      for (const { vault, index } of spent) {
        // The guardians' settlement at the term and the owner's exit carry no record: the leaf
        // each spends is in the witness.
        const leaf = meant ? null : this.timelockedSpend(tx, index, vault);
        if (leaf) {
          this.close(vault, leaf, 0n, 0n);
          continue;
        }
        if (!meant)
          find('broken-rule', vault.vaultId, 'the vault was spent without a state record');
        this.close(vault, 'unrecorded', vault.collateralSats, vault.debt);
      }
      return { findings, quorums };
    }
    const record = parseStateRecordScript(tx.outputs[recordAt]!.script)!;
    const action = ACTION_OF_CODE.get(record.action)!;
    const declaration = DECLARATIONS[action];
    const roles = this.fixedInputs(tx, declaration.spends, spent);
    if ('skip' in roles) {
      find('unparseable', spent[0]?.vault.vaultId ?? null, roles.skip);
      return { findings, quorums };
    }
    const vaultId = action === 'open' ? tx.txid : roles.vault!.vaultId;
    for (const extra of spent.filter((s) => !roles.fixed.has(s.index)))
      find('broken-rule', extra.vault.vaultId, `input ${extra.index} spends another vault`);
    for (const problem of this.rules(tx, action, record, roles))
      find('broken-rule', vaultId, problem);
    if (record.quorumCommitment)
      quorums.push({
        txid: tx.txid,
        vaultId,
        commitment: hex.encode(record.quorumCommitment),
        record,
      });
    // What the chain did is the ledger, whatever rule it broke.
    if (roles.liquidated) this.close(roles.liquidated, 'repossessed', 0n, 0n);
    const next = {
      collateralSats: record.vaultSats,
      debt: record.unitDebt,
      script: tx.outputs[0]?.script ?? new Uint8Array(),
      settleHeight: record.term?.settleHeight ?? null,
      exitHeight: record.term?.exitHeight ?? null,
    };
    if (roles.vault) this.byOutpoint.delete(roles.vault.outpoint!);
    const vault: TrackedVault = roles.vault ?? {
      ...{ vaultId, status: 'open', outpoint: null },
      vaultPubkey: record.vaultPubkey ?? null,
      ...next,
    };
    Object.assign(vault, next, { outpoint: outpointOf(tx.txid, 0) });
    this.vaults.set(vaultId, vault);
    this.byOutpoint.set(vault.outpoint!, vaultId);
    this.changed.add(vaultId);
    return { findings, quorums };
  }

  /**
   * How input `index` spends `vault` when it spends a timelocked leaf: `settled` when the witness
   * reveals the leaf at the settlement height the vault's last record gives, `exited` at its exit
   * height (the owner's key; the one the opening's record names, when it names one); null for any
   * other spend. The chain already checked the leaf is the output's, its lock and its signature.
   */
  private timelockedSpend(
    tx: LedgerTx,
    index: number,
    vault: TrackedVault,
  ): 'settled' | 'exited' | null {
    const witness = tx.inputs[index]?.witness;
    if (spendsSettlementLeaf(witness, vault.settleHeight)) return 'settled';
    if (spendsExitLeaf(witness, vault.exitHeight, vault.vaultPubkey)) return 'exited';
    return null;
  }

  private close(vault: TrackedVault, status: LedgerStatus, sats: bigint, debt: bigint): void {
    if (vault.outpoint) this.byOutpoint.delete(vault.outpoint);
    Object.assign(vault, { status, outpoint: null, collateralSats: sats, debt });
    this.changed.add(vault.vaultId);
  }

  /**
   * The declaration's fixed inputs: vaults must be open vaults this replay tracks, the treasury
   * input an output of a treasury script. A record whose fixed inputs are not there is no vault
   * transaction anyone signed (anyone can write an OP_RETURN): skipped, with why.
   */
  private fixedInputs(
    tx: LedgerTx,
    spends: (typeof DECLARATIONS)[VaultAction]['spends'],
    spent: { index: number; vault: TrackedVault }[],
  ):
    | { skip: string }
    | {
        vault?: TrackedVault;
        liquidated?: TrackedVault;
        treasury?: KnownUtxo;
        fixed: Set<number>;
      } {
    const out: { vault?: TrackedVault; liquidated?: TrackedVault; treasury?: KnownUtxo } = {};
    for (const [index, spend] of spends.entries()) {
      const input = tx.inputs[index];
      if (!input) return { skip: `a record without its ${spend.name} input` };
      if (spend.role === 'treasury') {
        const prevout = input.prevout;
        if (!prevout || !this.o.treasuryScripts.some((s) => equalBytes(s, prevout.script)))
          return { skip: `input ${index} is not a treasury output` };
        out.treasury = { txid: input.txid, vout: input.vout, ...prevout };
        continue;
      }
      const vault = spent.find((s) => s.index === index)?.vault;
      if (!vault || vault.status !== 'open') return { skip: `input ${index} is not an open vault` };
      out[spend.role] = vault;
    }
    return { ...out, fixed: new Set(spends.map((_, i) => i)) };
  }

  /** The guardian's output parse and the rules on the new state, from the chain alone. */
  private rules(
    tx: LedgerTx,
    action: VaultAction,
    record: StateRecord,
    roles: { vault?: TrackedVault; liquidated?: TrackedVault; treasury?: KnownUtxo },
  ): string[] {
    const declaration = DECLARATIONS[action];
    const slots = declaration.outputs.slots.length;
    const problems: string[] = [];
    if (tx.outputs.length !== slots && tx.outputs.length !== slots + 1)
      return [`expected ${slots} outputs (+ change), got ${tx.outputs.length}`];
    const known = (v: TrackedVault) => ({
      ...{ txid: v.outpoint!.split(':')[0]!, vout: 0, value: v.collateralSats },
      ...{ script: v.script, unitDebt: v.debt },
    });
    const treasuryScript = this.treasuryScriptOf(tx, roles.treasury);
    const postage = action === 'repay' ? tx.outputs[2] : tx.outputs[1];
    const ctx: ParseContext = {
      treasuryScript,
      // The new vault's leaves are not on the chain until its next spend reveals one.
      newVaultScript: tx.outputs[0]!.script,
      unitRuneId: this.o.unitRuneId,
      ...(postage ? { postageSats: postage.value } : {}),
      ...(roles.vault ? { vault: known(roles.vault) } : {}),
      ...(roles.liquidated ? { liquidated: known(roles.liquidated) } : {}),
      ...(roles.treasury ? { treasury: { ...roles.treasury, unitAmount: UNKNOWN_UNIT } } : {}),
    };
    try {
      const decoded = declaration.outputs.decode(
        tx.outputs.slice(0, slots).map((o) => ({ script: o.script, amount: o.value })),
        ctx,
      );
      const refusal = stateRulesRefusal(
        declaration.shape,
        { btcAmount: decoded.btcAmount, vaultSats: decoded.fields.vaultSats, state: record },
        Number(record.quotePriceCents),
      );
      if (refusal) problems.push(refusal.message);
    } catch (error) {
      if (!(error instanceof BadTransaction)) throw error;
      problems.push(`Invalid transaction: ${error.message}`);
    }
    let threshold: number | null = null;
    try {
      threshold = thresholdOfState(record);
    } catch {
      problems.push('the record has debt and no collateral');
    }
    if (threshold !== null && BigInt(threshold) !== record.thresholdCents)
      problems.push(
        `the recorded threshold ${record.thresholdCents} is not the new state's liquidation price ${threshold}`,
      );
    return problems;
  }

  /** The treasury script this transaction pays or spends: a known one, or the first (refused). */
  private treasuryScriptOf(tx: LedgerTx, treasury: KnownUtxo | undefined): Uint8Array {
    if (treasury) return treasury.script;
    const paid = tx.outputs.find((o) =>
      this.o.treasuryScripts.some((s) => equalBytes(s, o.script)),
    );
    return paid?.script ?? this.o.treasuryScripts[0] ?? new Uint8Array();
  }
}
