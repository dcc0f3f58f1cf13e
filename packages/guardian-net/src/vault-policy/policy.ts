// `--policy vault`: a guardian's own decision on one fixed input of a vault request (item
// 3: "Each one validates it on its own, with the same protocol rules as today, against its own chain
// view and its own price"). Cheapest checks first: the context's shape, the input's role, the PSBT,
// the sighash it computes itself against the session's message, the vault key's signature, the
// quote; then its own price; then its own chain view, and the action's declaration
// (parseVaultTransaction, guardianCheck) exactly as the app's single guardian runs them.
//
// What it does not check, and why that cannot move a user's funds:
// - the app's reservation of treasury UNIT (a database row): the transaction must still issue exactly
//   the payload's amount from the treasury UTXO it spends, so a missing reservation only lets two
//   requests race for one treasury UTXO, and the chain lets one win;
// - the requester's referral postage (a database count): the postage of the requester's own UNIT
//   output is taken from the PSBT; it only decides how many of the requester's sats go with its UNIT;
// - a second vault for one key, and foreign vaults among the wallet's inputs: the group signs only
//   the fixed inputs it is asked for, each session tied to its index by the sighash, so no other
//   vault's input ever gets a group signature from a session of this request;
// - (the new vault's threshold hashes are checked: oracle-hashes.ts, the set's oracles' signed list;)
// - two requests spending the same vault output within their validity may both be approved: each is
//   a valid transaction of the vault's owner, and the chain settles which one wins.
// A speed-up (action 'speedup') shares the first checks (role, PSBT, sighash, the vault key's
// signature), then speed-up.ts checks it against the original in this guardian's mempool.
import { base64, hex } from '@scure/base';
import { NETWORK, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { equalBytes, hash160 } from '@scure/btc-signer/utils.js';
import {
  declarationOf,
  guardianCheck,
  liquidationLeafScript,
  parseRuneId,
  parseVaultTransaction,
  taprootSighash,
  updateLeafScript,
  vaultOutput,
  type ActionDeclaration,
  type ParseContext,
  type VaultFields,
} from '@unit/bitcoin';
import {
  defaultTermConfig,
  ORACLE_QUOTE_MAX_AGE_SECONDS,
  termProblem,
  type TermConfig,
  type VaultTerm,
} from '@unit/protocol';
import type { SignedQuote, VaultAction } from '@unit/protocol/wire';
import type { GuardianSet } from '../guardian-set';
import type { OracleEnv } from '../oracle/threshold-oracle';
import type { OwnPrice } from '../price/own-price';
import type { Decision, SignRequest } from '../signing-rounds';
import type { AppFacts, ChainView } from './chain-view';
import {
  parseVaultInputContext,
  quoteSignedBy,
  type SpeedUpContext,
  type VaultInputContext,
} from './context';
import {
  checkPrevouts,
  Refused,
  treasuryOnChain,
  vaultOnChain,
  type ChainTxs,
  type ClaimedInput,
} from './reads';
import { setKeysOf, treasuryScriptOf, vaultGuardKey, type SetKeys } from './set-keys';
import { checkOwnPrice, checkQuoteQuorum, usd, type QuorumSet } from './quote-quorum';
import { checkSpeedUp } from './speed-up';
import { checkTreasurySplit, isTreasurySplit, MAX_TREASURY_FEE_RATE } from './treasury-split';
import { checkTreasuryMove, isTreasuryMove } from './treasury-move';
import { checkSettle, isSettle } from './settle';
import { newVaultHashes } from './oracle-hashes';
import { RequestCache, requestDigest } from './request-cache';

/** The app's limit on a request's lifetime (apps/server/src/cosign/pipeline.ts). */
export const MAX_REQUEST_LIFETIME_SECONDS = 600;

/** What the node gives its policy on each decision: the set's group key and its own price. */
export interface PolicyEnv {
  /** x-only hex */
  groupKey: string;
  ownPrice: OwnPrice | null;
  /** every set this guardian holds (set-keys.ts); absent: the session's set alone */
  sets?: readonly GuardianSet[];
  /** the published set: a quote's guardian prices are checked against it (quote-quorum.ts) */
  set?: QuorumSet;
  /** its own oracle and the set (oracle-hashes.ts); absent only in unit tests */
  oracle?: OracleEnv;
}

export interface VaultPolicyOptions {
  chain: ChainView;
  facts: AppFacts;
  /** unix seconds; injectable for tests */
  clock?: () => number;
  /** The ceiling on an operator's treasury split's fee rate, sat/vB (treasury-split.ts). */
  maxTreasuryFeeRate?: number;
  /** The term a new vault's must be (vault-term.ts); default: the network's (defaultTermConfig). */
  term?: TermConfig;
}

type Declaration = ActionDeclaration<VaultAction, never, VaultFields>;

/** A vault request as one session read it: what the request's own check (once) needs. */
interface RequestParts {
  c: VaultInputContext;
  declaration: Declaration;
  tx: Transaction;
  inputs: ClaimedInput[];
  bytes: Uint8Array;
  keys: SetKeys & { vault: Uint8Array };
  treasuryScript: Uint8Array;
}
/** The contract's role names against the declaration's (`liquidated` is `liquidation` there). */
const ROLE_OF = { vault: 'vault', treasury: 'treasury', liquidated: 'liquidation' } as const;
const PSBT_OPTS = { allowUnknownOutputs: true } as const;

function readPsbt(psbt: string): { bytes: Uint8Array; tx: Transaction; inputs: ClaimedInput[] } {
  let bytes: Uint8Array;
  let tx: Transaction;
  try {
    bytes = base64.decode(psbt);
    tx = Transaction.fromPSBT(bytes, PSBT_OPTS);
  } catch {
    throw new Refused('the request is not a readable PSBT');
  }
  const inputs: ClaimedInput[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    if (!input.txid || input.index === undefined || !input.witnessUtxo)
      throw new Refused(`input ${i} has no witnessUtxo`);
    const { script, amount } = input.witnessUtxo;
    inputs.push({ txid: hex.encode(input.txid), vout: input.index, script, amount });
  }
  return { bytes, tx, inputs };
}

/** The leaf this session's input is spent through: null for the treasury's key path. */
function leafOf(c: VaultInputContext | SpeedUpContext, group: Uint8Array): Uint8Array | null {
  if (c.role === 'treasury') return null;
  if (c.role === 'vault') return updateLeafScript(hex.decode(c.request.vault_pubkey), group);
  if (!c.secret) throw new Refused('a liquidation input needs the revealed threshold secret');
  return liquidationLeafScript(hash160(hex.decode(c.secret)), group);
}

/** The request's envelope as the app checks it: expiry, the oracle's signature, the quote's age. */
function checkEnvelope(c: VaultInputContext, oraclePubkey: string, now: number): void {
  const { request } = c;
  if (request.expires_at <= now) throw new Refused('this request has expired');
  if (request.expires_at > now + MAX_REQUEST_LIFETIME_SECONDS)
    throw new Refused('the request expiry is too far in the future');
  if (!quoteSignedBy(oraclePubkey, request.quote))
    throw new Refused('the price quote is not signed by the oracle');
  const age = Math.max(now - request.quote.time, now - request.quote.ts);
  if (age > ORACLE_QUOTE_MAX_AGE_SECONDS) throw new Refused('the price quote has expired');
}

/** The newest set this guardian holds, whose prices a quote carries; else the published one. */
function priceSetOf(env: PolicyEnv): QuorumSet | undefined {
  return env.sets?.length ? env.sets.reduce((a, b) => (b.version > a.version ? b : a)) : env.set;
}

/** The postage the wallet gave its own UNIT output (the slot after the vault), if the action has one. */
function walletPostage(declaration: Declaration, tx: Transaction): bigint | undefined {
  const slot = declaration.outputs.slots.findIndex((s) => s === 'postage' || s === 'unit change');
  if (slot < 0 || slot >= tx.outputsLength) return undefined;
  return tx.getOutput(slot).amount;
}

export class VaultPolicy {
  private readonly clock: () => number;
  private readonly runeId;
  private readonly network;
  /** each request checked once for all of its sessions (request-cache.ts) */
  readonly requests: RequestCache;

  constructor(private readonly o: VaultPolicyOptions) {
    this.clock = o.clock ?? (() => Math.floor(Date.now() / 1000));
    this.requests = new RequestCache(this.clock);
    this.runeId = parseRuneId(o.facts.unitRuneId);
    // Only addresses depend on it; the scripts checked here are the same on every network.
    this.network = o.facts.network === 'mainnet' ? NETWORK : TEST_NETWORK;
  }

  /** The node's validator: a refusal's reason is the user's to read. */
  async decide(req: SignRequest, env: PolicyEnv): Promise<Decision> {
    try {
      await this.check(req, env);
      return { approve: true };
    } catch (e) {
      if (e instanceof Refused) return { approve: false, reason: e.message };
      throw e;
    }
  }

  private async check(req: SignRequest, env: PolicyEnv): Promise<void> {
    // The operator's treasury split has its own context and checks (treasury-split.ts).
    if (isTreasurySplit(req.context))
      return checkTreasurySplit(req, {
        chain: this.o.chain,
        runeId: this.runeId,
        groupKey: env.groupKey,
        maxFeeRate: this.o.maxTreasuryFeeRate ?? MAX_TREASURY_FEE_RATE,
      });
    // After a rotation the operator moves the treasury to the newest set (treasury-move.ts).
    if (isTreasuryMove(req.context))
      return checkTreasuryMove(req, {
        ...{ chain: this.o.chain, runeId: this.runeId, groupKey: env.groupKey, sets: env.sets },
        maxFeeRate: this.o.maxTreasuryFeeRate ?? MAX_TREASURY_FEE_RATE,
      });
    // A vault left to its term is settled through its settlement leaf (settle.ts).
    if (isSettle(req.context))
      return checkSettle(req, {
        ...{ chain: this.o.chain, oraclePubkey: this.o.facts.oraclePubkey, network: this.network },
        ...{ groupKey: env.groupKey, sets: env.sets, priceSet: priceSetOf(env) },
        ...{ ownPrice: env.ownPrice, now: this.clock() },
        maxFeeRate: this.o.maxTreasuryFeeRate ?? MAX_TREASURY_FEE_RATE,
      });
    const parsed = parseVaultInputContext(req.context);
    if (!parsed.ok) throw new Refused(parsed.reason);
    const c = parsed.value;
    // A speed-up signs the fixed inputs of the action it replaces, in the same places.
    const action = c.action === 'speedup' ? c.request.action : c.action;
    const declaration = declarationOf(action) as Declaration;
    const spend = declaration.spends[c.input];
    if (!spend) throw new Refused(`input ${c.input} is not a fixed input of ${action}`);
    if (ROLE_OF[spend.role] !== c.role)
      throw new Refused(
        `input ${c.input} of ${action} is the ${ROLE_OF[spend.role]} input, not ${c.role}`,
      );
    const setKeys = setKeysOf(env.groupKey, env.sets);
    const group = setKeys.signing;
    const { bytes, tx, inputs } = readPsbt(c.request.psbt);
    if (c.input >= inputs.length) throw new Refused(`the PSBT has no input ${c.input}`);
    const sighash = taprootSighash(tx, inputs, c.input, leafOf(c, group));
    if (!equalBytes(sighash, req.message))
      throw new Refused(`the message is not this request's input ${c.input}`);
    const vaultKey = hex.decode(c.request.vault_pubkey);
    const vaultIndex = declaration.spends.findIndex((s) => s.role === 'vault');
    // The vault input's own set key (an old vault moves on this action): set-keys.ts.
    const vaultGuard =
      vaultIndex >= 0
        ? vaultGuardKey(setKeys, c.role === 'vault', tx, inputs, vaultIndex, vaultKey)
        : group;
    if (c.action === 'speedup') {
      const keys = { vaultPubkey: vaultKey, guardPubkey: vaultGuard, network: this.network };
      return checkSpeedUp({ chain: this.o.chain, c, declaration, bytes, tx, inputs, keys });
    }
    // Which key each of the request's set inputs is under, as this session's role sees it; then
    // the request's own check, once for all of its sessions (request-cache.ts).
    const keys = { ...setKeys, vault: vaultGuard };
    const treasuryScript = treasuryScriptOf(setKeys, declaration, inputs, c.role === 'treasury');
    const key = requestDigest({
      action: c.action,
      request: c.request,
      // A liquidation input's role needs the secret (leafOf): with the secret, both roles check it.
      secret: c.secret ?? null,
      keys: [group, setKeys.newest, vaultGuard, treasuryScript, ...setKeys.known].map(hex.encode),
      // Its own price as it checks it: a price that moved between sessions is checked again.
      own: env.ownPrice?.fresh ? env.ownPrice.price.priceCents : null,
    });
    const { quote } = c.request;
    const until = Math.min(
      c.request.expires_at,
      Math.min(quote.time, quote.ts) + ORACLE_QUOTE_MAX_AGE_SECONDS,
    );
    const request = { c, declaration, tx, inputs, bytes, keys, treasuryScript };
    return this.requests.run(key, until, () => this.checkRequest(request, env));
  }

  /** The checks of the request as a whole: the same for each of its sessions. */
  private async checkRequest(r: RequestParts, env: PolicyEnv): Promise<void> {
    const { c, declaration, inputs, bytes, keys } = r;
    const now = this.clock();
    checkEnvelope(c, this.o.facts.oraclePubkey, now);
    // Prices are signed under the newest set this guardian holds, whichever set signs this input
    // (a vault still under an older set moves on this action: set-keys.ts).
    checkQuoteQuorum(c.request.quote, priceSetOf(env), now);
    const ownCents = checkOwnPrice(env.ownPrice, c.request.quote.price_cents);

    // Two rounds of reads, each in parallel, so the decision stays well within its 4 s: the
    // prevouts (and the oracle's threshold hash of the new vault), then the known UTXOs' details.
    const { quote } = c.request;
    const [txs, newVaultHash, term] = await Promise.all([
      checkPrevouts(this.o.chain, inputs),
      newVaultHashes(this.o.chain, env.oracle, quote.th, quote.ts),
      this.checkedTerm(quote),
    ]);
    const context = await this.parseContext(r, txs, ownCents);
    // The new vault commits to the requester's key, the newest set's group key (the move, for a
    // vault under an older set) and the set's oracles' threshold hashes (oracle-hashes.ts).
    // With a term (layout 2) it also commits to the heights this guardian checked against its tip.
    const newVault = vaultOutput({
      vaultPubkey: hex.decode(c.request.vault_pubkey),
      guardPubkey: keys.newest,
      thresholdHash: newVaultHash,
      network: this.network,
      ...(term ? { term } : {}),
    });
    context.newVaultScript = newVault.script;
    const result = parseVaultTransaction(c.action, bytes, context);
    if (!result.ok) throw new Refused(`Invalid transaction: ${result.reason}`);
    const refusal = guardianCheck(declaration, {
      parsed: result.value,
      payload: c.request.payload as never,
      quote: c.request.quote,
      nonce: c.request.nonce,
      expiresAt: c.request.expires_at,
      vaultPubkey: c.request.vault_pubkey,
      // The payload's own amounts: guardianCheck holds the transaction to them exactly.
      reservedUnit: null,
      term: term && newVault.exitBranch ? { ...term, exitBranch: newVault.exitBranch } : undefined,
    });
    if (refusal) throw new Refused(refusal.message);
  }

  /**
   * The quote's term, when it has one (layout 2): the one the protocol gives at this guardian's own
   * chain tip, within TERM_TIP_TOLERANCE_BLOCKS (vault-term.ts). None: a layout 1 output.
   */
  private async checkedTerm(quote: SignedQuote): Promise<VaultTerm | undefined> {
    if (!quote.term) return undefined;
    const term = { settleHeight: quote.term.settle_height, exitHeight: quote.term.exit_height };
    const { chain, facts } = this.o;
    if (!chain.tipHeight) throw new Refused('this guardian cannot read the chain tip for the term');
    const problem = termProblem(
      term,
      await chain.tipHeight(),
      this.o.term ?? defaultTermConfig(facts.network),
    );
    if (problem) throw new Refused(problem);
    return term;
  }

  /** The ParseContext the app builds (readKnown), from this guardian's own chain view. */
  private async parseContext(
    r: RequestParts,
    txs: ChainTxs,
    ownCents: number,
  ): Promise<ParseContext> {
    const { c, declaration, tx, inputs, keys: setKeys, treasuryScript } = r;
    const { chain } = this.o;
    const vaultPubkey = hex.decode(c.request.vault_pubkey);
    const keys = { vaultPubkey, guardPubkey: setKeys.vault, network: this.network };
    const postage = walletPostage(declaration, tx);
    // The treasury is a group key's own output, `OP_1 <group key>` (no further tweak: the DKG key
    // already is a BIP-341 output key) of a set this guardian knows, whatever the app says: the
    // caller found it (treasuryScriptOf).
    const context: ParseContext = {
      treasuryScript,
      newVaultScript: new Uint8Array(), // set by the caller
      unitRuneId: this.runeId,
      ...(postage === undefined ? {} : { postageSats: postage }),
    };
    await Promise.all(
      declaration.spends.map(async (spend, index) => {
        const input = inputs[index];
        if (!input) throw new Refused(`the PSBT has no input ${index} (${spend.name})`);
        if (spend.role === 'vault')
          context.vault = (await vaultOnChain(chain, txs, input, 'the vault input', keys)).utxo;
        else if (spend.role === 'treasury')
          context.treasury = await treasuryOnChain(chain, txs, input, treasuryScript);
        else context.liquidated = await this.claimed(c, txs, input, ownCents);
      }),
    );
    return context;
  }

  /**
   * The liquidated vault a repossess claims: its threshold from its own state record, at or over
   * this guardian's own price, and the secret the one its liquidation leaf commits to.
   */
  private async claimed(
    c: VaultInputContext,
    txs: ChainTxs,
    input: ClaimedInput,
    ownCents: number,
  ) {
    const { utxo, record } = await vaultOnChain(
      this.o.chain,
      txs,
      input,
      'the claimed vault',
      null,
    );
    if (BigInt(ownCents) > record.thresholdCents)
      throw new Refused(
        `this guardian's price ${usd(ownCents)} is above the claimed vault's threshold ${usd(record.thresholdCents)}`,
      );
    if (c.role === 'liquidation' || c.secret) {
      const { hashes } = await this.o.chain.thresholdHashes(
        Number(record.thresholdCents),
        record.quoteStamp,
      );
      const opened = c.secret ? hash160(hex.decode(c.secret)) : null;
      if (!opened || !hashes.some((h) => equalBytes(h, opened)))
        throw new Refused("the secret does not open the claimed vault's liquidation leaf");
    }
    return utxo;
  }
}
