// The owner's exit, from the chain alone (docs/protocol.md, "Leaving without the guardians"): reads
// the vault from the esplora the owner names, shows its leaves and when its exit opens, and builds,
// signs and broadcasts the exit. Needs nothing of this app: no server, no database, no guardian.
import { readFileSync } from 'node:fs';
import { hex } from '@scure/base';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import {
  ExitError,
  describeVaultExit,
  feeRateAboveClaim,
  ExitEsplora,
  planExit,
  readVaultExit,
  signExit,
  type FetchLike,
} from '@unit/bitcoin';

export interface ExitOptions {
  chain: string;
  vault: string;
  /** A file holding the owner's 32-byte secret key in hex: signs the exit. */
  keyFile?: string;
  /** Without a key file: the owner's x-only key, for a PSBT another wallet signs. */
  pubkey?: string;
  to?: string;
  feeRate?: number;
  broadcast?: boolean;
  fetchImpl?: FetchLike;
}

export interface ExitResult {
  lines: string[];
  /** The signed exit's txid once broadcast. */
  txid?: string;
  /** The signed transaction (key file) or the unsigned PSBT, base64 (pubkey only). */
  txHex?: string;
  psbtBase64?: string;
}

function readSecretKey(file: string): Uint8Array {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ExitError(
      'not-a-vault',
      `The key file ${file} could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): check its path and that you may read it.`,
    );
  }
  if (!/^[0-9a-fA-F]{64}$/.test(text))
    throw new ExitError(
      'not-a-vault',
      `The key file ${file} must hold a 32-byte secret key in hex: check the file.`,
    );
  return hex.decode(text.toLowerCase());
}

/** Reads the vault, and with a key (or a public key) and a destination builds its exit. */
export async function runExit(options: ExitOptions): Promise<ExitResult> {
  const chain = new ExitEsplora(options.chain, options.fetchImpl);
  const facts = await readVaultExit(chain, options.vault);
  const lines = describeVaultExit(facts);
  const term = facts.record.term;
  if (!term || !options.to) return { lines };
  const secret = options.keyFile ? readSecretKey(options.keyFile) : undefined;
  const pubkeyHex = options.pubkey?.toLowerCase();
  if (!secret && !(pubkeyHex && /^[0-9a-f]{64}$/.test(pubkeyHex)))
    throw new ExitError(
      'not-a-vault',
      'Give --key-file with the vault key, or --pubkey with its 32-byte x-only public key, to build the exit.',
    );
  const vaultPubkey = secret ? pubSchnorr(secret) : hex.decode(pubkeyHex!);
  const plan = planExit({
    vaultPubkey,
    exitHeight: term.exitHeight,
    exitBranch: term.exitBranch,
    utxo: facts.utxo,
    toAddress: options.to,
    feeRate: options.feeRate ?? 2,
    tipHeight: facts.tipHeight,
    network: facts.network,
  });
  lines.push(
    `exit           ${plan.sendSats} sats to ${options.to}, fee ${plan.feeSats} sats (${plan.vsize} vB)`,
  );
  const least = facts.pendingClaim ? feeRateAboveClaim(facts.pendingClaim, plan.vsize) : null;
  if (least !== null && (options.feeRate ?? 2) < least)
    lines.push(
      `replaces       not the waiting claim at this fee rate: give --fee-rate ${least} or more, or the chain keeps the claim.`,
    );
  if (!secret) return { lines, psbtBase64: Buffer.from(plan.tx.toPSBT()).toString('base64') };
  const tx = signExit(plan, secret);
  if (!options.broadcast) return { lines, txHex: tx.hex };
  const txid = (await chain.broadcast(tx.hex)).trim();
  lines.push(`broadcast      ${txid}`);
  return { lines, txHex: tx.hex, txid };
}
