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
  parseRuneId,
  prepareVaultRequest,
  signUserInputs,
  vaultOutput,
  type RequestQuote,
  type VaultUtxo,
  type VaultWallet,
} from '@unit/bitcoin';
import {
  parseLiveEvent,
  type GuardianMethod,
  type GuardianParams,
  type GuardianResult,
  type LiveEvent,
  type ReserveResult,
  type VaultAction,
} from '@unit/protocol';
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

  const owner: VaultOwner = {
    paymentKey,
    runesKey,
    vaultKey,
    vaultPubkey,
    wallet,
    paymentAddress: payment.address!,
  };
  const socket = await connect(via);
  const {
    request: params,
    reservation,
    draft,
  } = await prepareRequest(
    via,
    socket,
    owner,
    { action: 'open', btc: deposit, unit: borrow },
    { treasuryOverride, label: 'cluster vault' },
  );
  const treasury = reservation!.treasury_utxo!;
  const nonce = draft.nonce;
  return {
    vaultPubkey,
    owner,
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

/** A wallet of the tests: its keys, its scripts and its payment address. */
export interface VaultOwner {
  paymentKey: Uint8Array;
  runesKey: Uint8Array;
  vaultKey: Uint8Array;
  vaultPubkey: string;
  wallet: VaultWallet;
  paymentAddress: string;
}

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
  const vault = await ownerVault(via, owner);
  const socket = await connect(via);
  const {
    request: params,
    reservation,
    draft,
  } = await prepareRequest(
    via,
    socket,
    owner,
    { action: 'borrow', btc: 0n, unit: amount, vault },
    { treasuryOverride },
  );
  const treasury = reservation!.treasury_utxo!;
  const nonce = draft.nonce;
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

/** The owner's vault as the app reads it: the database's row and its output on chain. */
export async function ownerVault(
  via: RunningApp,
  owner: VaultOwner,
  hashes: (th: number, stamp: number) => Promise<Uint8Array[]> | Uint8Array[] = (th, stamp) =>
    via.oracle.thresholdHashes(th, stamp),
): Promise<VaultUtxo> {
  const row = await getVaultByPubkey(via.store.db, owner.vaultPubkey);
  if (!row) throw new Error('no vault for this key in the database');
  const output = (await via.chain.output(row.vault_txid, row.vault_vout))!;
  return {
    txid: row.vault_txid,
    vout: row.vault_vout,
    value: BigInt(output.value),
    unitDebt: BigInt(row.unit_borrowed),
    output: vaultOutput({
      vaultPubkey: hex.decode(owner.vaultPubkey),
      guardPubkey: hex.decode(via.keys.guardPubkey),
      thresholdHash: await hashes(row.threshold_cents, Number(row.stamp)),
      network: TEST_NETWORK,
    }),
  };
}

/**
 * A request of the owner's, planned, reserved (through `socket`), quoted, built and signed as the web
 * app does it (@unit/bitcoin's request runner). `treasuryOverride` makes the reservation name that
 * treasury output instead (as when every output is named by other live reservations: reservations
 * hold nothing exclusively); `quote` answers the quote (by default as GET /api/oracle/quote does).
 */
export async function prepareRequest<A extends VaultAction>(
  via: RunningApp,
  socket: Awaited<ReturnType<typeof connect>>,
  owner: VaultOwner,
  input: { action: A; btc: bigint; unit: bigint; vault?: VaultUtxo },
  options: {
    treasuryOverride?: TreasuryUtxo | undefined;
    label?: string;
    quote?: (th: number, ts: number) => Promise<RequestQuote>;
  } = {},
) {
  const keys = { vault: owner.vaultKey, runes: owner.runesKey, payment: owner.paymentKey };
  const { treasuryOverride } = options;
  return prepareVaultRequest(
    { ...input, wallet: owner.wallet, feeRate: FEE_RATE },
    {
      vaultPubkey: owner.vaultPubkey,
      keys: { guardPubkey: hex.decode(via.keys.guardPubkey), network: TEST_NETWORK },
      now: () => Math.floor(Date.now() / 1000),
      lifetimeSeconds: 120,
      random: randomBytes,
      // With the guardian network the treasury is `OP_1 <group key>`, no internal key to tweak.
      ...(via.keys.treasuryPubkey === via.keys.guardPubkey
        ? {}
        : { treasuryInternalKey: hex.decode(via.keys.treasuryPubkey) }),
      unitRuneId: parseRuneId(via.devnet!.unitRuneId),
      ...(options.label ? { label: options.label } : {}),
    },
    {
      reserve: async (params) => {
        const reservation = await socket.call('unit.reserve', params);
        if (!treasuryOverride) return reservation;
        await via.store.db
          .updateTable('reservations')
          .set({ treasury_txid: treasuryOverride.txid, treasury_vout: treasuryOverride.vout })
          .where('reservation_id', '=', reservation.reservation_id)
          .execute();
        return { ...reservation, treasury_utxo: treasuryOverride };
      },
      quote: options.quote ?? ((th, ts) => quoteOf(via, th, ts)),
      paymentUtxos: async () =>
        (await via.chain.paymentUtxos(owner.paymentAddress)).map((u) => ({
          txid: u.txid,
          vout: u.vout,
          value: BigInt(u.value),
          script: owner.wallet.satsScript,
        })),
      sign: (psbt, signers) => {
        let signed = base64.decode(psbt);
        for (const { index, key } of signers) signed = signUserInputs(signed, keys[key], [index]);
        return base64.encode(signed);
      },
    },
  );
}
