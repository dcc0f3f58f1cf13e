// An attacker with no key and no funds floods `unit.reserve` from many vault keys, sockets and
// loopback addresses, while a funded user (a devnet wallet funded through the devnet faucet) opens
// a vault over the same server, the way the web app does (guardian-client.ts): reserve, quote,
// build with @unit/bitcoin, sign, send. Used by `npm run probe` (scripts/probe.ts) and by
// test/guardian/flood.test.ts. Talks to the server over HTTP and WebSocket only, on loopback.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { base64, hex } from '@scure/base';
import { p2tr, p2wpkh, TEST_NETWORK } from '@scure/btc-signer';
import { pubECDSA, pubSchnorr } from '@scure/btc-signer/utils.js';
import {
  addressToScript,
  parseRuneId,
  prepareVaultRequest,
  signUserInputs,
  type VaultWallet,
} from '@unit/bitcoin';
import {
  DomainError,
  errorCodeOf,
  type ConfigDto,
  type OracleQuoteDto,
  type UtxoDto,
} from '@unit/protocol';
import {
  checkGuardianResult,
  connectGuardian,
  type GuardianClient,
  type WebSocketLike,
} from '@unit/protocol/wire';

export interface FloodOptions {
  /** http://127.0.0.1:port of the running server. */
  baseUrl: string;
  /** Loopback addresses the attacker connects from (127.0.0.x), each with `socketsPerAddress`. */
  attackerAddresses: number;
  socketsPerAddress: number;
  /** Most reserve calls the whole flood makes; it also stops once the user is done. */
  maxCalls: number;
  /** Most open attempts the user makes before giving up. */
  maxTries: number;
  /** Wall-clock bound of the whole run. */
  deadlineMs: number;
}

export interface FloodReport {
  /** Open attempts the user needed (maxTries + 1 when none succeeded). */
  tries: number;
  /** Refusal codes of the user's failed attempts, in order. */
  failures: string[];
  /** Reserve calls the attacker made, and how many were answered with a reservation. */
  attackerCalls: number;
  attackerReservations: number;
  vaultTxid: string | null;
  /** Bytes of the user's signed vault.open message (maxPayload is sized against it). */
  requestBytes: number;
}

interface Rpc extends GuardianClient {
  /** Resolves once the socket has closed. */
  closed: Promise<void>;
}

/** The protocol's one JSON-RPC client on a socket from `localAddress`. */
async function connect(wsUrl: string, localAddress?: string): Promise<Rpc> {
  const socket = new WebSocket(wsUrl, localAddress ? { localAddress } : {});
  const closed = new Promise<void>((done) => socket.once('close', () => done()));
  const client = await connectGuardian(() => socket as unknown as WebSocketLike, {
    checkResult: checkGuardianResult,
  });
  return { ...client, closed };
}

async function http<T>(baseUrl: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers:
      body === undefined
        ? {}
        : { 'content-type': 'application/json', origin: new URL(baseUrl).origin },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A devnet wallet: P2WPKH payments, a P2TR runes address and a vault key, all fresh. */
class DevnetUser {
  readonly paymentKey = randomBytes(32);
  readonly runesKey = randomBytes(32);
  readonly vaultKey = randomBytes(32);
  readonly vaultPubkey = hex.encode(pubSchnorr(this.vaultKey));
  readonly payment = p2wpkh(pubECDSA(this.paymentKey), TEST_NETWORK);
  readonly runes = p2tr(pubSchnorr(this.runesKey), undefined, TEST_NETWORK);
  readonly wallet: VaultWallet = {
    satsScript: this.payment.script,
    paymentPublicKey: pubECDSA(this.paymentKey),
    runesScript: this.runes.script,
    runesPublicKey: pubSchnorr(this.runesKey),
  };

  /** Size of the last signed request sent, as the /guardian socket receives it. */
  requestBytes = 0;

  constructor(private readonly baseUrl: string) {}

  async fund(satsAmount: number): Promise<void> {
    await http(this.baseUrl, '/api/devnet/faucet', {
      address: this.payment.address,
      sats: satsAmount,
    });
    await http(this.baseUrl, '/api/devnet/mine', { blocks: 1 });
  }

  /** One open, as the web app makes it (@unit/bitcoin's request runner); throws the refusal. */
  async open(config: ConfigDto, depositSats: bigint, borrowCents: bigint): Promise<string> {
    const rpc = await connect(`${this.baseUrl.replace('http', 'ws')}${config.guardianUrl}`);
    const treasuryScript = addressToScript(config.treasuryAddress, TEST_NETWORK);
    const ordinals = new URL(config.ordinalsUrl, this.baseUrl).pathname.replace(/\/$/, '');
    try {
      const { request } = await prepareVaultRequest(
        { action: 'open', btc: depositSats, unit: borrowCents, wallet: this.wallet, feeRate: 2 },
        {
          vaultPubkey: this.vaultPubkey,
          keys: { guardPubkey: hex.decode(config.guardPubkey), network: TEST_NETWORK },
          now: () => Math.floor(Date.now() / 1000),
          random: randomBytes,
          // The guardian network's treasury is `OP_1 <group key>`: no internal key to give.
          ...(hex.encode(treasuryScript) === `5120${config.treasuryPubkey}`
            ? {}
            : { treasuryInternalKey: hex.decode(config.treasuryPubkey) }),
          unitRuneId: parseRuneId(config.unitRuneId),
          label: 'Probe vault',
        },
        {
          reserve: (params) => rpc.call('unit.reserve', params),
          quote: (th, ts) =>
            http<OracleQuoteDto>(this.baseUrl, `/api/oracle/quote?th=${th}&ts=${ts}`),
          paymentUtxos: async () =>
            (
              await http<UtxoDto[]>(
                this.baseUrl,
                `${ordinals}/address/${this.payment.address}/utxos`,
              )
            ).map((u) => ({
              txid: u.txid,
              vout: u.vout,
              value: BigInt(u.value),
              script: this.payment.script,
            })),
          sign: (psbt, signers) =>
            base64.encode(
              signUserInputs(
                base64.decode(psbt),
                this.paymentKey,
                signers.map((s) => s.index),
              ),
            ),
        },
      );
      this.requestBytes = Buffer.byteLength(
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'vault.open', params: request }),
      );
      const result = await rpc.call('vault.open', request);
      return result.vault_txid;
    } finally {
      rpc.close();
    }
  }
}

/**
 * One attacker socket: reserves for random keys until its connection is capped, then reconnects
 * (which frees what it held, so it keeps a fresh share). Stops when `stop()` says so.
 */
async function attackerSocket(
  wsUrl: string,
  localAddress: string,
  budget: { calls: number; reservations: number; max: number },
  stop: () => boolean,
): Promise<void> {
  while (!stop() && budget.calls < budget.max) {
    let rpc: Rpc;
    try {
      rpc = await connect(wsUrl, localAddress);
    } catch {
      // Refused (too many sockets from this address): try again shortly.
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    try {
      while (!stop() && budget.calls < budget.max) {
        budget.calls += 1;
        try {
          await rpc.call('unit.reserve', {
            unit_amount: 1_000,
            vault_action: 'open',
            vault_pubkey: randomBytes(32).toString('hex'),
          });
          budget.reservations += 1;
        } catch (error) {
          // Capped or closed: a new socket gets a new share.
          if (error instanceof DomainError) break;
          throw error;
        }
      }
    } finally {
      rpc.close();
      await rpc.closed;
    }
    // Rate limited: pausing briefly keeps the flood at the server's limits, not a busy loop.
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Floods while the funded user opens; resolves to what happened. */
export async function floodWhileOpening(options: FloodOptions): Promise<FloodReport> {
  const deadline = Date.now() + options.deadlineMs;
  const config = await http<ConfigDto>(options.baseUrl, '/api/config');
  const wsUrl = `${options.baseUrl.replace('http', 'ws')}${config.guardianUrl}`;
  const user = new DevnetUser(options.baseUrl);
  await user.fund(20_000_000);

  let userDone = false;
  const stop = () => userDone || Date.now() > deadline;
  const budget = { calls: 0, reservations: 0, max: options.maxCalls };
  const attackers: Promise<void>[] = [];
  for (let a = 0; a < options.attackerAddresses; a++)
    for (let s = 0; s < options.socketsPerAddress; s++)
      attackers.push(attackerSocket(wsUrl, `127.0.0.${10 + a}`, budget, stop));
  // The flood is under way (every output named many times over) before the user starts.
  while (budget.calls < Math.min(128, options.maxCalls / 2) && !stop())
    await new Promise((r) => setTimeout(r, 20));

  const failures: string[] = [];
  let vaultTxid: string | null = null;
  let tries = 0;
  while (tries < options.maxTries && vaultTxid === null && Date.now() < deadline) {
    tries += 1;
    try {
      vaultTxid = await user.open(config, 1_000_000n, 50_000n);
    } catch (error) {
      failures.push(errorCodeOf(error) ?? String(error));
    }
  }
  userDone = true;
  await Promise.all(attackers);
  return {
    tries: vaultTxid === null ? options.maxTries + 1 : tries,
    failures,
    attackerCalls: budget.calls,
    attackerReservations: budget.reservations,
    vaultTxid,
    requestBytes: user.requestBytes,
  };
}
