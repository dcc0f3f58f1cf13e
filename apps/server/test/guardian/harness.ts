// A real devnet, the real store and the real oracle on a temporary SQLite file, a guardian over
// them, and test wallets that build and sign vault PSBTs the way the web app does (@unit/bitcoin).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino, { type Logger } from 'pino';
import { base64, hex } from '@scure/base';
import { OutScript, p2tr, p2wpkh, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { pubECDSA, pubSchnorr } from '@scure/btc-signer/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import {
  declarationOf,
  parseRuneId,
  prepareVaultRequest,
  signUserInputs,
  vaultOutput,
  type BuiltVaultTx,
  type PayloadOf,
  type PaymentUtxo,
  type VaultRequestPsbt,
  type VaultUtxo,
  type VaultWallet,
} from '@unit/bitcoin';
import {
  DEVNET_TERM_CONFIG,
  vaultTermAt,
  type ReserveParams,
  type GuardianMethod,
  type OracleQuoteDto,
  type ReserveResult,
  type VaultAction,
  type SignedVaultRequest,
} from '@unit/protocol';
import { createDevnet, type Devnet } from '../../src/devnet/devnet';
import { devnetMigrations } from '../../src/devnet/migrations';
import { DevnetChain } from '../../src/devnet/devnet-chain';
import type { Chain } from '../../src/chain/port';
import { Oracle } from '../../src/oracle/oracle';
import { SimulatedPriceSource } from '../../src/oracle/price-source';
import { getVaultByPubkey, migrateToLatest, openStore, termOf, type Store } from '../../src/store';
import { createGuardian, guardianMigrations, type Guardian } from '../../src/cosign';
import type { GuardianSigner } from '../../src/cosign/signer';
import type { RpcContext } from '../../src/rpc/json-rpc';
import { codeOf, guardianClient, inProcess } from '../guardian-client';

export const START = 1_800_000_000;
export const START_PRICE_CENTS = 9_500_000;
export const FEE_RATE = 2;

const keyOf = (label: string) => sha256(new TextEncoder().encode(`guardian test key: ${label}`));
export const GUARDIAN_KEY = keyOf('guardian');
export const TREASURY_KEY = keyOf('treasury');
const silent = pino({ level: 'silent' });

export interface Harness {
  dir: string;
  store: Store;
  devnet: Devnet;
  chain: Chain;
  oracle: Oracle;
  guardian: Guardian;
  clock: { now: number };
  /** The keys the app serves when they are not the test keys (the real app, a guardian network). */
  keys?: {
    guardPubkey: Uint8Array;
    treasuryPubkey: Uint8Array;
    /** The treasury's output script when it is not p2tr(treasuryPubkey) (the group's `OP_1 <key>`). */
    treasuryScript?: Uint8Array;
  };
  /** Another guardian process over the same database, as after a restart. */
  restart(chain?: Chain): Guardian;
  wallet(label: string): Promise<TestWallet>;
  close(): Promise<void>;
}

/**
 * Who co-signs instead of the test's own guardian key: a guardian network's signer (the app's own
 * network signer, over real guardian processes) and its group key, which is the treasury's too.
 */
export interface HarnessSigning {
  signer: GuardianSigner;
  groupKey: Uint8Array;
}

/**
 * A wallet label asked for again in one harness (a retried test, whose first attempt's vault is
 * still on this devnet and in this store) gets keys of its own: one live vault per key.
 */
export function freshLabels(): (label: string) => string {
  const uses = new Map<string, number>();
  return (label) => {
    const n = (uses.get(label) ?? 0) + 1;
    uses.set(label, n);
    return n === 1 ? label : `${label} #${n}`;
  };
}

export async function startHarness(
  chainWrapper?: (chain: Chain) => Chain,
  signing?: HarnessSigning,
  /** The guardian's log (silent unless a test reads it). */
  guardianLog: Logger = silent,
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'guardian-test-'));
  // The flow suite runs on SQLite, and again on PostgreSQL when the test script sets
  // FLOW_DATABASE_URL (each harness in a fresh schema).
  const flowPg = process.env.FLOW_DATABASE_URL;
  const schema = `flow_${randomBytes(6).toString('hex')}`;
  const store = flowPg
    ? await openStore({ databaseUrl: flowPg, schema })
    : await openStore({ file: join(dir, 'unit.db') });
  await migrateToLatest(store.db, { ...devnetMigrations, ...guardianMigrations });
  const clock = { now: START };
  // With a network the treasury is `OP_1 <group key>`, untweaked (cosign/treasury-output.ts).
  const keys = signing && {
    guardPubkey: signing.groupKey,
    treasuryPubkey: signing.groupKey,
    treasuryScript: OutScript.encode({ type: 'tr', pubkey: signing.groupKey }),
  };
  const devnet = await createDevnet({
    db: store.db,
    treasuryScript: keys?.treasuryScript ?? p2tr(pubSchnorr(TREASURY_KEY)).script,
    guardianScript: p2tr(pubSchnorr(GUARDIAN_KEY)).script,
    blockIntervalMs: 0,
    now: () => clock.now * 1000,
    faucetSecret: keyOf('faucet'),
  });
  const chain = new DevnetChain(devnet);
  const oracle = new Oracle({
    db: store.db,
    source: new SimulatedPriceSource(3),
    keys: {
      secretKey: keyOf('oracle'),
      pubkey: bytesToHex(pubSchnorr(keyOf('oracle'))),
      oracleSecret: keyOf('oracle secret'),
    },
    startPriceCents: START_PRICE_CENTS,
    tickMs: 0,
    log: silent,
    clock: () => clock.now,
  });
  await oracle.start();
  const makeGuardian = (c: Chain) =>
    createGuardian({
      db: store.db,
      chain: c,
      oracle,
      ...(signing ? { signer: signing.signer } : { guardianKey: GUARDIAN_KEY }),
      treasuryKey: TREASURY_KEY,
      network: TEST_NETWORK,
      unitRuneId: devnet.unitRuneId,
      log: guardianLog,
      now: () => clock.now,
      vaultTerm: DEVNET_TERM_CONFIG,
    });
  const guardian = makeGuardian(chainWrapper ? chainWrapper(chain) : chain);
  const fresh = freshLabels();
  const harness: Harness = {
    dir,
    store,
    devnet,
    chain,
    oracle,
    guardian,
    clock,
    ...(keys ? { keys } : {}),
    restart: (c = chain) => makeGuardian(c),
    wallet: async (label) => {
      const wallet = new TestWallet(fresh(label), harness);
      await devnet.fund(wallet.paymentAddress, 20_000_000n);
      await devnet.mine(1);
      return wallet;
    },
    close: async () => {
      oracle.stop();
      await store.close();
      // A schema left behind would hold migration tables that Kysely's migrator, looking in every
      // schema, mistakes for another test's own.
      if (flowPg) await dropSchema(flowPg, schema);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** Drops a PostgreSQL schema a test made (its name is checked by openStore). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

/** Collects the progress notifications a request sends. */
export function recorder(): RpcContext & { steps: number[] } {
  const steps: number[] = [];
  return {
    steps,
    notify: (method, params) => {
      if (method === 'vault.progress') steps.push((params as { step: number }).step);
    },
  };
}

/**
 * Calls an RPC method as serveJsonRpc would (params through its zod schema, then the handler),
 * through the one client of the wire contract: its result is checked against the contract too.
 */
export async function call<R>(
  guardian: Guardian,
  method: string,
  params: unknown,
  ctx: RpcContext = recorder(),
): Promise<R> {
  const client = guardianClient(inProcess(guardian, ctx));
  return (await client.call(method as GuardianMethod, params as never)) as R;
}

export { codeOf };

export interface Draft<P> {
  request: SignedVaultRequest<P>;
  built: BuiltVaultTx;
}

interface DraftOptions {
  /** Quote stamp and time offset from now (negative = older). */
  quoteAge?: number;
  expiresIn?: number;
  /** false: leave the vault input unsigned. */
  signVault?: boolean;
  /** Flip a bit of the wallet's vault signature after signing. */
  forgeVaultSignature?: boolean;
  /** Postage of the wallet's own UNIT outputs (its referral level's); default the builders'. */
  postageSats?: bigint;
  /** The key an opening's state record carries; null: none (a version 1 record). */
  recordedKey?: Uint8Array | null;
  /** The quote's price quorum as the request carries it and its record commits to (a forgery). */
  quorum?: (signed: OracleQuoteDto['quorum'] & object) => OracleQuoteDto['quorum'];
  /** The layout the new vault output is written in: 2 (with a term, as the app) by default. */
  layout?: 1 | 2;
  /** Blocks added to the tip the term is computed from (a term the guardian must refuse). */
  termTipOffset?: number;
}

/** The same PSBT with one bit of the input's leaf signature flipped: a signature that fails. */
function forgeLeafSignature(unsigned: Uint8Array, signed: Uint8Array, index: number): Uint8Array {
  const opts = { allowUnknownOutputs: true } as const;
  const [entry] = Transaction.fromPSBT(signed, opts).getInput(index).tapScriptSig ?? [];
  if (!entry) throw new Error('no leaf signature to forge');
  const forged = entry[1].slice();
  forged[10]! ^= 1;
  const tx = Transaction.fromPSBT(unsigned, opts);
  tx.updateInput(index, { tapScriptSig: [[entry[0], forged]] }, true);
  return tx.toPSBT(0);
}

/** A wallet: P2WPKH payments, a P2TR runes address, a vault key. */
export class TestWallet {
  readonly paymentKey: Uint8Array;
  readonly runesKey: Uint8Array;
  readonly vaultKey: Uint8Array;
  readonly vaultPubkey: string;
  readonly paymentAddress: string;
  readonly runesAddress: string;
  readonly vaultWallet: VaultWallet;

  constructor(
    readonly label: string,
    private readonly h: Harness,
  ) {
    this.paymentKey = keyOf(`${label} payment`);
    this.runesKey = keyOf(`${label} runes`);
    this.vaultKey = keyOf(`${label} vault`);
    this.vaultPubkey = hex.encode(pubSchnorr(this.vaultKey));
    const payment = p2wpkh(pubECDSA(this.paymentKey), TEST_NETWORK);
    const runes = p2tr(pubSchnorr(this.runesKey), undefined, TEST_NETWORK);
    this.paymentAddress = payment.address!;
    this.runesAddress = runes.address!;
    this.vaultWallet = {
      satsScript: payment.script,
      paymentPublicKey: pubECDSA(this.paymentKey),
      runesScript: runes.script,
      runesPublicKey: pubSchnorr(this.runesKey),
    };
  }

  private get guardPub() {
    return this.h.keys?.guardPubkey ?? pubSchnorr(GUARDIAN_KEY);
  }

  private get treasuryPub() {
    return this.h.keys?.treasuryPubkey ?? pubSchnorr(TREASURY_KEY);
  }

  async paymentUtxos(): Promise<PaymentUtxo[]> {
    const utxos = await this.h.chain.paymentUtxos(this.paymentAddress);
    return utxos.map((u) => ({
      txid: u.txid,
      vout: u.vout,
      value: BigInt(u.value),
      script: this.vaultWallet.satsScript,
    }));
  }

  /** The vault as the app reads it: the store's row and its output on chain. */
  async vault(pubkey = this.vaultPubkey): Promise<VaultUtxo> {
    const row = await getVaultByPubkey(this.h.store.db, pubkey);
    if (!row) throw new Error('no vault');
    const output = await this.h.chain.output(row.vault_txid, row.vault_vout);
    return {
      txid: row.vault_txid,
      vout: row.vault_vout,
      value: BigInt(output!.value),
      unitDebt: BigInt(row.unit_borrowed),
      output: vaultOutput({
        vaultPubkey: hex.decode(pubkey),
        guardPubkey: this.guardPub,
        // One liquidation leaf per oracle: the guardians' hashes with the network.
        thresholdHash: await this.h.oracle.thresholdHashes(row.threshold_cents, row.stamp),
        network: TEST_NETWORK,
        ...termOf(row),
      }),
    };
  }

  reserve(action: ReserveParams['vault_action'], unitAmount: number): Promise<ReserveResult> {
    return call(this.h.guardian, 'unit.reserve', {
      unit_amount: unitAmount,
      vault_action: action,
      vault_pubkey: this.vaultPubkey,
    });
  }

  /** The quote of a state after, as the app's quote route answers it (with a test's changes). */
  private async quote(th: number, now: number, options: DraftOptions) {
    const quoted = await this.h.oracle.withOracleHashes(
      this.h.oracle.quote(th, now + (options.quoteAge ?? 0)),
    );
    const { quorum } = options;
    const withQuorum =
      quorum && quoted.quorum ? { ...quoted, quorum: quorum(quoted.quorum) } : quoted;
    // As the app's quote route: the term of a vault written at the chain's tip (layout 2).
    const tip = (await this.h.chain.tip()).height + (options.termTipOffset ?? 0);
    const term = vaultTermAt(tip, DEVNET_TERM_CONFIG);
    return options.layout === 1
      ? withQuorum
      : { ...withQuorum, term: { settle_height: term.settleHeight, exit_height: term.exitHeight } };
  }

  /** The wallet's signatures, each input with the key the planner names, and a test's changes. */
  private sign(psbt64: string, signers: VaultRequestPsbt['signers'], options: DraftOptions) {
    const keys = { vault: this.vaultKey, runes: this.runesKey, payment: this.paymentKey };
    let psbt = base64.decode(psbt64);
    for (const { index, key } of signers) {
      if (key === 'vault' && options.signVault === false) continue;
      const signed = signUserInputs(psbt, keys[key], [index]);
      psbt =
        key === 'vault' && options.forgeVaultSignature
          ? forgeLeafSignature(psbt, signed, index)
          : signed;
    }
    return base64.encode(psbt);
  }

  /** The wallet's UNIT outputs as the runes index has them. */
  private async unitUtxos() {
    return (await this.h.chain.unitOutputs(this.runesAddress))
      .filter((o) => !o.spent)
      .map((o) => ({
        txid: o.txid,
        vout: o.vout,
        value: BigInt(o.btc_amount),
        script: hex.decode(o.script_hex),
        unitAmount: BigInt(o.unit_amount),
      }));
  }

  /**
   * A signed request of `action`, built the way the web app builds it: through the planner
   * (what it reserves, spends and pays, its payload), at the state after it.
   */
  private async draft<A extends VaultAction>(
    action: A,
    moved: { btc: bigint; unit: bigint; liquidatedPubkey?: string; liquidatedVaultId?: string },
    options: DraftOptions,
  ): Promise<Draft<PayloadOf<A>>> {
    const creates = declarationOf(action).shape.vault === 'creates';
    const vault = creates ? undefined : await this.vault();
    const liquidated = moved.liquidatedPubkey
      ? await this.vault(moved.liquidatedPubkey)
      : undefined;
    const { recordedKey } = options;
    const prepared = await prepareVaultRequest(
      {
        action,
        btc: moved.btc,
        unit: moved.unit,
        ...(vault ? { vault } : {}),
        ...(liquidated ? { liquidated } : {}),
        wallet: this.vaultWallet,
        feeRate: FEE_RATE,
        // Network mode: the record commits to the price quorum; layout 2: it carries the term.
        record: { committed: this.h.oracle.quotesQuorum, termed: options.layout !== 1 },
      },
      {
        vaultPubkey: this.vaultPubkey,
        keys: { guardPubkey: this.guardPub, network: TEST_NETWORK },
        now: () => this.h.clock.now,
        lifetimeSeconds: options.expiresIn ?? 120,
        random: randomBytes,
        treasuryScript:
          this.h.keys?.treasuryScript ?? p2tr(this.treasuryPub, undefined, TEST_NETWORK).script,
        // The group's `OP_1 <key>` has no internal key to give (params.ts TreasuryUtxo).
        ...(this.h.keys?.treasuryScript ? {} : { treasuryInternalKey: this.treasuryPub }),
        unitRuneId: parseRuneId(this.h.devnet.unitRuneId),
        label: `${this.label} vault`,
        ...(moved.liquidatedVaultId ? { liquidatedVaultId: moved.liquidatedVaultId } : {}),
        ...(recordedKey === undefined
          ? {}
          : {
              recordState: ({ vaultPubkey: _key, ...state }) =>
                recordedKey === null ? state : { ...state, vaultPubkey: recordedKey },
            }),
      },
      {
        reserve: (params) => call(this.h.guardian, 'unit.reserve', params),
        quote: (th, now) => this.quote(th, now, options),
        paymentUtxos: () => this.paymentUtxos(),
        unitUtxos: () => this.unitUtxos(),
        postage: async () =>
          options.postageSats === undefined ? {} : { postageSats: options.postageSats },
        sign: (psbt, signers) => this.sign(psbt, signers, options),
      },
    );
    return { built: prepared.psbt.built, request: prepared.request };
  }

  /** A draft of an action that reserves: its request names the reservation. */
  private async reserved<P>(draft: Promise<Draft<P>>) {
    const { built, request } = await draft;
    const reservationId = request.reservation_id;
    if (!reservationId) throw new Error('the request holds no reservation');
    return { built, request: { ...request, reservation_id: reservationId } };
  }

  open(deposit: bigint, borrow: bigint, options: DraftOptions = {}) {
    return this.reserved(this.draft('open', { btc: deposit, unit: borrow }, options));
  }

  deposit(amount: bigint, options: DraftOptions = {}) {
    return this.draft('deposit', { btc: amount, unit: 0n }, options);
  }

  borrow(amount: bigint, options: DraftOptions = {}) {
    return this.reserved(this.draft('borrow', { btc: 0n, unit: amount }, options));
  }

  repay(amount: bigint, options: DraftOptions = {}) {
    return this.reserved(this.draft('repay', { btc: 0n, unit: amount }, options));
  }

  withdraw(amount: bigint, options: DraftOptions = {}) {
    return this.draft('withdraw', { btc: amount, unit: 0n }, options);
  }

  /** Claims `liquidatedPubkey`'s liquidated vault into this wallet's vault. */
  repossess(liquidatedPubkey: string, liquidatedVaultId: string, options: DraftOptions = {}) {
    return this.draft(
      'repossess',
      { btc: 0n, unit: 0n, liquidatedPubkey, liquidatedVaultId },
      options,
    );
  }
}
