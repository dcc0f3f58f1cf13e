// What the chain shows of a vault's exit, said to its owner (the exit command and the web's exit
// page): its output, its leaves, when the exit opens, and a claim of it waiting in the mempool.
import { hex } from '@scure/base';
import { termStage } from '@unit/protocol';
import type { PendingClaim, VaultExitFacts } from './exit-chain';

/** Bitcoin's target time between blocks: the date a height is reached is an estimate from it. */
export const BLOCK_TARGET_MS = 10 * 60_000;

/** When the chain should reach a height `blocks` above its tip, at 10 minutes a block. */
export function estimatedDateOf(blocks: number, now = Date.now()): Date {
  return new Date(now + Math.max(0, blocks) * BLOCK_TARGET_MS);
}

/** A date as the owner reads it in any locale: `2026-11-29 12:30 UTC`. */
export const utcMinute = (date: Date): string =>
  `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** What the chain shows of the vault, in lines for the owner. */
export function describeVaultExit(facts: VaultExitFacts, now = Date.now()): string[] {
  const { record, utxo, tipHeight } = facts;
  const lines = [
    `vault output   ${utxo.txid}:${utxo.vout} (${facts.address}, ${facts.networkName})`,
    `holds          ${utxo.amount} sats; debt ${record.unitDebt} UNIT hundredths`,
    `chain height   ${tipHeight}`,
  ];
  const term = record.term;
  if (!term) {
    lines.push(
      'leaves         update and liquidation only (layout 1): this vault has no exit of its own yet; it gets one on its next action.',
    );
    return lines;
  }
  const stage = termStage(tipHeight, term);
  if (facts.pendingClaim) lines.push(`claim          ${pendingClaimSentence(facts.pendingClaim)}`);
  lines.push(
    `leaves         exit: <${term.exitHeight}> OP_CHECKLOCKTIMEVERIFY OP_DROP <owner key> OP_CHECKSIG; beside it ${hex.encode(term.exitBranch)} (update, liquidation and settlement leaves)`,
    `settlement     the guardians may settle from block ${term.settleHeight}`,
    stage === 'exit'
      ? `exit           open since block ${term.exitHeight}`
      : `exit           opens at block ${term.exitHeight}, in ${term.exitHeight - tipHeight} blocks (around ${utcMinute(estimatedDateOf(term.exitHeight - tipHeight, now))} at 10 minutes a block)`,
  );
  return lines;
}

/**
 * A repossession of the vault waits in the mempool: the owner may still leave by the exit, which
 * spends the same output and replaces the claim only if it pays a higher fee rate and more in fees.
 */
export function pendingClaimSentence(claim: PendingClaim): string {
  const known =
    claim.feeRate === null || claim.feeSats === null
      ? ''
      : ` (${claim.feeRate} sat/vB, ${claim.feeSats} sats)`;
  return `A claim of this vault, transaction ${claim.txid}, is waiting for a block: your exit replaces it only if it pays a higher fee rate and a higher fee than the claim's${known}, so choose a fee rate above it.`;
}

/**
 * The least whole fee rate at which an exit of `exitVsize` vB replaces a waiting claim (BIP-125: a
 * higher rate, and a fee above the claim's by at least 1 sat/vB of the exit's own size); null when
 * the claim's fee is not known.
 */
export function feeRateAboveClaim(claim: PendingClaim, exitVsize: number): number | null {
  if (claim.feeRate === null || claim.feeSats === null) return null;
  const byRate = Math.floor(claim.feeRate) + 1;
  const byFee = Math.ceil((claim.feeSats + exitVsize) / exitVsize);
  return Math.max(byRate, byFee);
}
