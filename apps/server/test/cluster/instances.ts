// Several instances of the real app on one PostgreSQL schema, as a load balancer would run them,
// and what the tests of the cluster do to them: open a vault over one's /guardian WebSocket, read
// one's event stream.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { base64, hex } from '@scure/base';
import { p2tr, p2wpkh, TEST_NETWORK } from '@scure/btc-signer';
import { pubECDSA, pubSchnorr } from '@scure/btc-signer/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  borrow as borrowAction,
  open as openAction,
  parseRuneId,
  signUserInputs,
  quotedVault,
  vaultOutput,
  type VaultWallet,
} from '@unit/bitcoin';
import {
  liquidationThresholdCents,
  parseLiveEvent,
  sats,
  unitCents,
  type GuardianMethod,
  type GuardianParams,
  type GuardianResult,
  type LiveEvent,
  type ReserveResult,
} from '@unit/protocol';
import { draftEnvelope, signVaultRequest } from '@unit/protocol/wire';
import type { BuildAppOptions } from '../../src/app';
import { getVaultByPubkey, openStore } from '../../src/store';
import { startTestApp, type RunningApp } from '../support';
import { callOnce, openGuardian } from '../guardian-client';

/** A quote as GET /api/oracle/quote serves it (network mode: the quorum's, the guardians' hashes). */
const quoteOf = async (via: RunningApp, th: number, ts: number) =>
  via.oracle.withOracleHashes(await via.oracle.quoteFresh(th, ts));

export const pgUrl = process.env.TEST_DATABASE_URL;

/** A fresh schema per test file: advisory locks and channels are keyed by it. */
export const newSchema = (label: string) => `${label}_${randomBytes(5).toString('hex')}`;

export async function dropSchema(schema: string): Promise<void> {
  const admin = await openStore({ databaseUrl: pgUrl! });
  try {
    await admin.db.schema.dropSchema(schema).ifExists().cascade().execute();
  } finally {
    await admin.close();
    fs.rmSync(dataDirOf(schema), { recursive: true, force: true });
  }
}

/** One guardian key for every instance of a deployment (on the devnet each would make its own). */
const GUARDIAN_KEY = hex.encode(sha256(new TextEncoder().encode('cluster test guardian')));

/**
 * One data directory per deployment: its instances share the oracle's and the devnet faucet's key
 * files there, as they share GUARDIAN_KEY (no key is in the database they share).
 */
const dataDirOf = (schema: string) => path.join(os.tmpdir(), `unit-cluster-${schema}`);

export function startInstance(
  schema: string,
  env: Record<string, string> = {},
  options: BuildAppOptions = {},
) {
  return startTestApp(
    { DATABASE_URL: pgUrl!, GUARDIAN_KEY, DATA_DIR: dataDirOf(schema), ...env },
    { databaseSchema: schema, jobRetryMs: 200, ...options },
  );
}

/** One JSON-RPC call over a new /guardian WebSocket of this instance (the one client). */
export function rpc<M extends GuardianMethod>(
  unit: RunningApp,
  method: M,
  params: GuardianParams<M>,
): Promise<GuardianResult<M>> {
  return callOnce(unit.url, method, params);
}

const FEE_RATE = 2;

/** A /guardian WebSocket kept open across calls (a reservation lives as long as its socket). */
export function connect(unit: RunningApp) {
  return openGuardian(unit.url);
}

/**
 * Opens a vault as the web app does, every request to `via`: reserve, build and sign the opening,
 * vault.open. The faucet pays the wallet first (a block mined through `via` too).
 */
export async function openVault(via: RunningApp, deposit: bigint, borrow: bigint) {
  const open = await prepareOpen(via, deposit, borrow);
  try {
    return await open.submit();
  } finally {
    open.close();
  }
}

export type TreasuryUtxo = NonNullable<ReserveResult['treasury_utxo']>;

/**
 * Everything of an opening up to vault.open: the wallet funded, the UNIT reserved through `via`,
 * the transaction signed. `treasury` makes the reservation name that output instead (as when every
 * output is named by other live reservations: reservations hold nothing exclusively).
 */
export async function prepareOpen(
  via: RunningApp,
  deposit: bigint,
  borrow: bigint,
  treasuryOverride?: TreasuryUtxo,
) {
  const paymentKey = secp256k1.utils.randomSecretKey();
  const runesKey = secp256k1.utils.randomSecretKey();
  const vaultKey = secp256k1.utils.randomSecretKey();
  const vaultPubkey = hex.encode(pubSchnorr(vaultKey));
  const payment = p2wpkh(pubECDSA(paymentKey), TEST_NETWORK);
  const runes = p2tr(pubSchnorr(runesKey), undefined, TEST_NETWORK);
  const wallet: VaultWallet = {
    satsScript: payment.script,
    paymentPublicKey: pubECDSA(paymentKey),
    runesScript: runes.script,
    runesPublicKey: pubSchnorr(runesKey),
  };
  const devnet = via.devnet!;
  await devnet.fund(payment.address!, 20_000_000n);
  await devnet.mine(1);

  const socket = await connect(via);
  const reservation = await socket.call('unit.reserve', {
    unit_amount: Number(borrow),
    vault_action: openAction.action,
    vault_pubkey: vaultPubkey,
  });
  const treasury = treasuryOverride ?? reservation.treasury_utxo!;
  if (treasuryOverride)
    await via.store.db
      .updateTable('reservations')
      .set({ treasury_txid: treasury.txid, treasury_vout: treasury.vout })
      .where('reservation_id', '=', reservation.reservation_id)
      .execute();
  const th = liquidationThresholdCents(sats(deposit), unitCents(borrow));
  const now = Math.floor(Date.now() / 1000);
  const quote = await quoteOf(via, th, now);
  const draft = draftEnvelope(now, 120, randomBytes);
  const { nonce } = draft;
  const built = openAction.build({
    wallet,
    utxos: (await via.chain.paymentUtxos(payment.address!)).map((u) => ({
      txid: u.txid,
      vout: u.vout,
      value: BigInt(u.value),
      script: payment.script,
    })),
    feeRate: FEE_RATE,
    ...quotedVault(
      quote,
      th,
      { nonce, expiry: draft.expiresAt },
      {
        vaultPubkey: hex.decode(vaultPubkey),
        guardPubkey: hex.decode(via.keys.guardPubkey),
        network: TEST_NETWORK,
      },
    ),
    btc: deposit,
    unit: borrow,
    unitRuneId: parseRuneId(devnet.unitRuneId),
    treasury: {
      txid: treasury.txid,
      vout: treasury.vout,
      value: BigInt(treasury.value),
      script: hex.decode(treasury.script_hex),
      unitAmount: BigInt(treasury.unit_amount),
      // With the guardian network the treasury is `OP_1 <group key>`, no internal key to tweak.
      ...(via.keys.treasuryPubkey === via.keys.guardPubkey
        ? {}
        : { internalKey: hex.decode(via.keys.treasuryPubkey) }),
    },
  });
  const params = await signVaultRequest({
    draft,
    vaultPubkey,
    quote,
    reservationId: reservation.reservation_id,
    psbt: base64.encode(built.psbt),
    sign: (psbt) =>
      base64.encode(signUserInputs(base64.decode(psbt), paymentKey, built.signInputs.user)),
    payload: openAction.payload({
      btc: deposit,
      unit: borrow,
      feeRate: FEE_RATE,
      label: 'cluster vault',
    }),
  });
  return {
    vaultPubkey,
    owner: { paymentKey, vaultKey, vaultPubkey, wallet, paymentAddress: payment.address! },
    nonce: hex.encode(nonce),
    treasury,
    /** Sends vault.open to `to` (by default the instance that reserved), over the open socket. */
    submit: async (to: RunningApp = via) => {
      const target = to === via ? socket : await connect(to);
      try {
        const result = await target.call('vault.open', params);
        return { vaultId: result.vault_id, vaultPubkey };
      } finally {
        if (target !== socket) target.close();
      }
    },
    close: () => socket.close(),
  };
}

/** An open GET /api/events of one instance, collecting what it carries. */
export interface EventStream {
  status: number;
  events: LiveEvent[];
  /** Resolves with the first event (already received or to come) that matches. */
  next(match: (event: LiveEvent) => boolean, timeoutMs?: number): Promise<LiveEvent>;
  close(): void;
}

export async function openEvents(
  unit: RunningApp,
  headers: Record<string, string> = {},
): Promise<EventStream> {
  const abort = new AbortController();
  const res = await fetch(`${unit.url}/api/events`, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const events: LiveEvent[] = [];
  const waiters = new Set<() => void>();
  if (res.ok && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const type = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            const event = type && data ? parseLiveEvent(type, data) : null;
            if (event) events.push(event);
            for (const wake of waiters) wake();
          }
        }
      } catch {
        // aborted by close()
      }
    })();
  } else {
    await res.body?.cancel();
  }
  return {
    status: res.status,
    events,
    next: (match, timeoutMs = 5_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(match);
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching event within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => abort.abort(),
  };
}

/** Polls until the condition holds, or fails after the timeout. */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export type VaultOwner = Awaited<ReturnType<typeof prepareOpen>>['owner'];

/**
 * A borrow from an opened vault, as the web app builds it, up to vault.borrow: reserve through
 * `via`, build, sign. `treasuryOverride` as for prepareOpen.
 */
export async function prepareBorrow(
  via: RunningApp,
  owner: VaultOwner,
  amount: bigint,
  treasuryOverride?: TreasuryUtxo,
) {
  const row = (await getVaultByPubkey(via.store.db, owner.vaultPubkey))!;
  const output = (await via.chain.output(row.vault_txid, row.vault_vout))!;
  const guardPubkey = hex.decode(via.keys.guardPubkey);
  const vault = {
    txid: row.vault_txid,
    vout: row.vault_vout,
    value: BigInt(output.value),
    unitDebt: BigInt(row.unit_borrowed),
    output: vaultOutput({
      vaultPubkey: hex.decode(owner.vaultPubkey),
      guardPubkey,
      thresholdHash: await via.oracle.thresholdHashes(row.threshold_cents, Number(row.stamp)),
      network: TEST_NETWORK,
    }),
  };
  const socket = await connect(via);
  const reservation = await socket.call('unit.reserve', {
    unit_amount: Number(amount),
    vault_action: borrowAction.action,
    vault_pubkey: owner.vaultPubkey,
  });
  const treasury = treasuryOverride ?? reservation.treasury_utxo!;
  if (treasuryOverride)
    await via.store.db
      .updateTable('reservations')
      .set({ treasury_txid: treasury.txid, treasury_vout: treasury.vout })
      .where('reservation_id', '=', reservation.reservation_id)
      .execute();
  const th = liquidationThresholdCents(sats(vault.value), unitCents(vault.unitDebt + amount));
  const now = Math.floor(Date.now() / 1000);
  const quote = await quoteOf(via, th, now);
  const draft = draftEnvelope(now, 120, randomBytes);
  const { nonce } = draft;
  const built = borrowAction.build({
    wallet: owner.wallet,
    utxos: (await via.chain.paymentUtxos(owner.paymentAddress)).map((u) => ({
      txid: u.txid,
      vout: u.vout,
      value: BigInt(u.value),
      script: owner.wallet.satsScript,
    })),
    feeRate: FEE_RATE,
    ...quotedVault(
      quote,
      th,
      { nonce, expiry: draft.expiresAt },
      { vaultPubkey: hex.decode(owner.vaultPubkey), guardPubkey, network: TEST_NETWORK },
    ),
    vault,
    btc: 0n,
    unit: amount,
    unitRuneId: parseRuneId(via.devnet!.unitRuneId),
    treasury: {
      txid: treasury.txid,
      vout: treasury.vout,
      value: BigInt(treasury.value),
      script: hex.decode(treasury.script_hex),
      unitAmount: BigInt(treasury.unit_amount),
      // With the guardian network the treasury is `OP_1 <group key>`, no internal key to tweak.
      ...(via.keys.treasuryPubkey === via.keys.guardPubkey
        ? {}
        : { internalKey: hex.decode(via.keys.treasuryPubkey) }),
    },
  });
  // The vault input is signed with the vault key, the others pay the fee.
  const vaultIndex = borrowAction.spends.findIndex((input) => input.role === 'vault');
  const sign = (unsigned: string) => {
    let psbt = base64.decode(unsigned);
    for (const index of built.signInputs.user)
      psbt = signUserInputs(psbt, index === vaultIndex ? owner.vaultKey : owner.paymentKey, [
        index,
      ]);
    return base64.encode(psbt);
  };
  const params = await signVaultRequest({
    draft,
    vaultPubkey: owner.vaultPubkey,
    quote,
    reservationId: reservation.reservation_id,
    psbt: base64.encode(built.psbt),
    sign,
    payload: borrowAction.payload({ btc: 0n, unit: amount, feeRate: FEE_RATE }),
  });
  return {
    nonce: hex.encode(nonce),
    treasury,
    submit: async (to: RunningApp = via) => {
      const target = to === via ? socket : await connect(to);
      try {
        return await target.call('vault.borrow', params);
      } finally {
        if (target !== socket) target.close();
      }
    },
    close: () => socket.close(),
  };
}
