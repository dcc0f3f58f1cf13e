// A devnet that plays a network on its own (`npm run devnet -- serve`, one process: its esplora,
// faucet and mine controls, no app server, no guardian), and a vault of layout 2 opened on it the
// way the exit command's test opens one: a faucet payment spent into the vault output and its
// state record (version 5 to 8, carrying the term), signed here with a key of the test's own; and
// that vault's exit signed around the page's check, for the chain's own refusal before its height.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { p2wpkh, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import {
  planExit,
  signExit,
  stateRecordScript,
  thresholdHash,
  vaultOutput,
} from '../../../packages/bitcoin/src/index';

const repoRoot = resolve(import.meta.dirname, '../../..');

export interface NetworkProcess {
  /** the network's base URL; its esplora is `${url}/esplora` */
  url: string;
  mine(blocks?: number): Promise<void>;
  /** Posts a raw transaction to the esplora; the answer as it comes. */
  broadcast(rawHex: string): Promise<{ ok: boolean; text: string }>;
  tipHeight(): Promise<number>;
  esplora<T>(path: string): Promise<T>;
  stop(): Promise<void>;
}

async function call<T>(url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Starts `npm run devnet -- serve` on a free port with a fresh chain; resolves once it listens. */
export async function startNetwork(): Promise<NetworkProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'unit-exit-network-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'apps/server/src/devnet/cli.ts', 'serve'],
    {
      cwd: repoRoot,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, BLOCK_INTERVAL: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  const deadline = Date.now() + 60_000;
  let line: string | undefined;
  while (!(line = output.split('\n').find((l) => l.startsWith('{"network"')))) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the devnet network did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = (JSON.parse(line) as { network: string }).network;
  const esplora = <T>(path: string) => call<T>(`${url}/esplora${path}`);
  return {
    url,
    esplora,
    mine: async (blocks = 1) => void (await call(`${url}/api/devnet/mine`, { blocks })),
    tipHeight: () => esplora<number>('/blocks/tip/height'),
    async broadcast(rawHex) {
      const res = await fetch(`${url}/esplora/tx`, { method: 'POST', body: rawHex });
      return { ok: res.ok, text: await res.text() };
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface OpenedVault {
  txid: string;
  address: string;
  sats: bigint;
  exitHeight: number;
  exitBranch: Uint8Array;
  script: Uint8Array;
}

interface EsploraTx {
  vout: { scriptpubkey_address?: string; value: number }[];
}

/**
 * Opens a vault of layout 2 for `ownerPubkey` (x-only) holding `sats`, its exit `blocksToExit`
 * blocks above the tip; the opening is mined.
 */
export async function openLayout2Vault(
  network: NetworkProcess,
  ownerPubkey: Uint8Array,
  sats: bigint,
  blocksToExit: number,
): Promise<OpenedVault> {
  const payer = sha256(new TextEncoder().encode(`exit journey payer ${network.url}`));
  const payerOut = p2wpkh(secp256k1.getPublicKey(payer, true), TEST_NETWORK);
  const funded = 2n * sats;
  const { txid: fundTxid } = await call<{ txid: string }>(`${network.url}/api/devnet/faucet`, {
    address: payerOut.address,
    sats: Number(funded),
  });
  await network.mine(1);
  const fundTx = await network.esplora<EsploraTx>(`/tx/${fundTxid}`);
  const fundVout = fundTx.vout.findIndex((o) => o.scriptpubkey_address === payerOut.address);
  const tip = await network.tipHeight();
  const term = { settleHeight: tip + blocksToExit - 2, exitHeight: tip + blocksToExit };
  const vault = vaultOutput({
    vaultPubkey: ownerPubkey,
    guardPubkey: schnorr.getPublicKey(sha256(Uint8Array.of(7))),
    thresholdHash: thresholdHash(new Uint8Array(32).fill(3)),
    network: TEST_NETWORK,
    term,
  });
  const record = stateRecordScript({
    action: 'o',
    unitDebt: 0n,
    vaultSats: sats,
    quotePriceCents: 95_000_00n,
    thresholdCents: 0n,
    quoteStamp: Math.floor(Date.now() / 1000),
    nonce: new Uint8Array(16).fill(5),
    expiry: Math.floor(Date.now() / 1000) + 60,
    vaultPubkey: ownerPubkey,
    term: { ...term, exitBranch: vault.exitBranch! },
  });
  const opening = new Transaction({ allowUnknownOutputs: true });
  opening.addInput({
    txid: fundTxid,
    index: fundVout,
    witnessUtxo: { script: payerOut.script, amount: funded },
  });
  opening.addOutput({ script: vault.script, amount: sats });
  opening.addOutput({ script: record, amount: 0n });
  opening.addOutput({ script: payerOut.script, amount: funded - sats - 1_000n });
  opening.signIdx(payer, 0);
  opening.finalize();
  const sent = await network.broadcast(opening.hex);
  if (!sent.ok) throw new Error(`the opening was refused: ${sent.text}`);
  await network.mine(1);
  return {
    txid: sent.text.trim(),
    address: vault.address,
    sats,
    exitHeight: term.exitHeight,
    exitBranch: vault.exitBranch!,
    script: vault.script,
  };
}

/** The vault's exit, signed with the owner's key as if its height were reached: the raw hex. */
export async function prematureExit(
  network: NetworkProcess,
  vault: OpenedVault,
  ownerKey: Uint8Array,
  to: string,
): Promise<string> {
  const plan = planExit({
    vaultPubkey: pubSchnorr(ownerKey),
    exitHeight: vault.exitHeight,
    exitBranch: vault.exitBranch,
    utxo: { txid: vault.txid, vout: 0, script: vault.script, amount: vault.sats },
    toAddress: to,
    feeRate: 2,
    // The page reads the real height and refuses; this stands past it to reach the chain.
    tipHeight: Math.max(vault.exitHeight, await network.tipHeight()),
    network: TEST_NETWORK,
  });
  return signExit(plan, ownerKey).hex;
}
