// The browser's half of the vault protocol (docs/protocol.md): read the vault and the wallet's
// outputs, get a signed oracle quote for the state after the action, reserve treasury UNIT where
// needed, build the PSBT with @unit/bitcoin, have the wallet sign its inputs, and hand the request to
// the guardian over JSON-RPC, following its progress. Loaded lazily: it carries the Bitcoin libraries
// The JSON-RPC client and the request envelope are the protocol's (@unit/protocol/wire/client, without
// the zod schemas: bundled here they would pull zod's core into the dashboard's first chunk); their
// errors are DomainErrors matched by code.
import { base64, hex } from '@scure/base';
import { TEST_NETWORK, NETWORK, p2tr } from '@scure/btc-signer';
import {
  addressToScript,
  buildBorrowPsbt,
  buildDepositPsbt,
  buildRepossessPsbt,
  buildSpeedUpPsbt,
  buildOpenPsbt,
  buildRepayPsbt,
  buildWithdrawPsbt,
  parseRuneId,
  quotedVault,
  vaultOutput,
  withdrawFee,
  type BuiltVaultTx,
  type PaymentUtxo,
  type VaultUtxo,
  type VaultWallet,
} from '@unit/bitcoin';
import {
  ERROR_MESSAGES,
  RESERVE_TIMEOUT_MS,
  accountPostageSats,
  applyAction,
  liquidationThresholdCents,
  repossessState,
  sats,
  unitCents,
  type ConfigDto,
  type GuardianMethod,
  type LiquidatedVaultDto,
  type OracleQuoteDto,
  type ReserveResult,
  type UnitOutputDto,
  type UtxoDto,
  type VaultDto,
} from '@unit/protocol';
import {
  REQUEST_LIFETIME_SECONDS,
  connectGuardian,
  draftEnvelope,
  signVaultRequest,
  type GuardianClient,
} from '@unit/protocol/wire/client';
import { getJson, joinUrl } from '../api/http';
import { getUser } from '../api/missions';
import { WalletError, type WalletAccount } from '../wallet';
import type { FlowAction, FlowTarget } from './declarations';
import type { FlowResultIds } from './engine';
import type { ExecuteContext, ExecuteFlow, FlowInput, OnProgress } from './flow-types';

/**
 * The guardian's answer to a signed request may take as long as the request lives: the flow's own
 * time-out (FlowProvider) stops the waiting sooner, and still records a late answer.
 */
const REQUEST_ANSWER_MS = REQUEST_LIFETIME_SECONDS * 1000;

function wsUrl(guardianUrl: string): string {
  const url = new URL(guardianUrl, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/** The protocol's JSON-RPC client on one WebSocket; `vault.progress` notifications go to the caller. */
function connect(guardianUrl: string): Promise<GuardianClient> {
  return connectGuardian(() => new WebSocket(wsUrl(guardianUrl)), {
    timeoutMs: REQUEST_ANSWER_MS,
  });
}

/**
 * The wallet's two accounts as the builders see them. UNIT inputs (repay) are spent with the runes
 * address's own key: Xverse's and Leather's ordinals key, the payment key for Unisat and devnet.
 */
function walletKeysOf(account: WalletAccount, network: typeof NETWORK): VaultWallet {
  return {
    satsScript: addressToScript(account.satsAddress, network),
    paymentPublicKey: hex.decode(account.satsPublicKey),
    runesScript: addressToScript(account.runesAddress, network),
    runesPublicKey: hex.decode(account.runesPublicKey),
  };
}

const bitcoinNetwork = (config: ConfigDto) =>
  config.network === 'mainnet' ? NETWORK : TEST_NETWORK;

async function paymentUtxos(
  config: ConfigDto,
  account: WalletAccount,
  script: Uint8Array,
): Promise<PaymentUtxo[]> {
  // Outputs carrying no runes: spending a UNIT output for fees would burn it (SPEC §7).
  const utxos = await getJson<UtxoDto[]>(
    joinUrl(config.ordinalsUrl, `address/${account.satsAddress}/utxos`),
  );
  return utxos.map((u) => ({ txid: u.txid, vout: u.vout, value: BigInt(u.value), script }));
}

async function quoteFor(th: number, ts: number): Promise<OracleQuoteDto> {
  return getJson<OracleQuoteDto>(`/api/oracle/quote?th=${th}&ts=${ts}`);
}

/** What locates a vault output and the threshold its leaves commit to. */
type VaultOutputDto = Pick<
  VaultDto,
  | 'vault_txid'
  | 'vault_vout'
  | 'btc_locked'
  | 'unit_borrowed'
  | 'vault_pubkey'
  | 'threshold_cents'
  | 'stamp'
>;

/** The vault's current output: its leaves commit to the threshold of its last state. */
async function currentVault(config: ConfigDto, vault: VaultOutputDto): Promise<VaultUtxo> {
  const quote = await quoteFor(vault.threshold_cents, vault.stamp);
  return {
    txid: vault.vault_txid,
    vout: vault.vault_vout,
    value: BigInt(vault.btc_locked),
    unitDebt: BigInt(vault.unit_borrowed),
    output: vaultOutput({
      vaultPubkey: hex.decode(vault.vault_pubkey),
      guardPubkey: hex.decode(config.guardPubkey),
      thresholdHash: hex.decode(quote.threshold_hash),
      network: bitcoinNetwork(config),
    }),
  };
}

/** The flows that build a new vault transaction from the form's amounts. */
type AmountFlow = Exclude<FlowAction, 'repossess' | 'speedup'>;

const METHOD: Record<AmountFlow, GuardianMethod> = {
  create: 'vault.open',
  deposit: 'vault.deposit',
  withdraw: 'vault.withdraw',
  borrow: 'vault.borrow',
  repay: 'vault.repay',
};

export async function runVaultAction(
  action: AmountFlow,
  input: FlowInput,
  onProgress: OnProgress,
  { config, wallet, onSent }: ExecuteContext,
): Promise<FlowResultIds> {
  const account = wallet.account;
  // SPEC §4 and §8: the no-accounts case is the one that offers Try again.
  if (!account) throw new WalletError('no_accounts', 'No accounts');
  onProgress(1);
  const network = bitcoinNetwork(config);
  const walletKeys = walletKeysOf(account, network);
  const { satsScript } = walletKeys;
  const vaultDto =
    action === 'create'
      ? null
      : await getJson<VaultDto>(`/api/vaults/by-pubkey/${account.vaultPubkey}`);
  const vault = vaultDto ? await currentVault(config, vaultDto) : null;

  const rpc = await connect(config.guardianUrl);
  try {
    let reservation: ReserveResult | null = null;
    if (action === 'create' || action === 'borrow' || action === 'repay') {
      // SPEC §7: the reserve call's time limit (the reservation itself lives for minutes).
      reservation = await rpc.call(
        'unit.reserve',
        {
          unit_amount: Number(input.cents),
          vault_action: action === 'create' ? 'open' : action,
          vault_pubkey: account.vaultPubkey,
        },
        { timeoutMs: RESERVE_TIMEOUT_MS, timeoutMessage: ERROR_MESSAGES.userTimeout },
      );
    }

    // The state after the action decides the threshold the new vault output commits to.
    const now = Math.floor(Date.now() / 1000);
    const draft = draftEnvelope(now);
    const { nonce, expiresAt } = draft;
    // A withdraw's fee comes out of the vault, so it is part of the state after it.
    const withdrawFeeSats =
      action === 'withdraw'
        ? withdrawFee({
            wallet: walletKeys,
            feeRate: input.feeRate,
            state: {
              quotePriceCents: 0n,
              thresholdCents: 0n,
              quoteStamp: now,
              nonce,
              expiry: expiresAt,
            },
            newVault: vault!.output,
            vault: vault!,
            withdrawAmount: input.sats,
          })
        : 0n;
    const before = {
      btcSats: sats(vault?.value ?? 0n),
      unitCents: unitCents(vault?.unitDebt ?? 0n),
    };
    const after =
      action === 'create'
        ? applyAction(before, 'open', {
            btcSats: sats(input.sats),
            unitCents: unitCents(input.cents),
          })
        : applyAction(
            before,
            action,
            action === 'borrow' || action === 'repay' ? unitCents(input.cents) : sats(input.sats),
            {
              feeSats: sats(withdrawFeeSats),
            },
          );
    const th = liquidationThresholdCents(after.btcSats, after.unitCents);
    const quote = await quoteFor(th, now);
    const { state, newVault } = quotedVault(
      quote,
      th,
      { nonce, expiry: expiresAt },
      {
        vaultPubkey: hex.decode(account.vaultPubkey),
        guardPubkey: hex.decode(config.guardPubkey),
        network,
      },
    );
    const unitRuneId = parseRuneId(config.unitRuneId);
    // The UNIT outputs to the wallet carry its referral level's postage, read afresh: the guardian
    // holds them to the level the account has when it checks (missions.ts accountPostageSats).
    const postage =
      action === 'create' || action === 'borrow' || action === 'repay'
        ? {
            postageSats: BigInt(
              accountPostageSats(
                (await getUser(account.satsAddress))?.level ?? null,
                config.constants.unitPostageSats,
              ),
            ),
            treasuryPostageSats: BigInt(config.constants.unitPostageSats),
          }
        : {};
    const treasury = reservation?.treasury_utxo
      ? {
          txid: reservation.treasury_utxo.txid,
          vout: reservation.treasury_utxo.vout,
          value: BigInt(reservation.treasury_utxo.value),
          script: hex.decode(reservation.treasury_utxo.script_hex),
          unitAmount: BigInt(reservation.treasury_utxo.unit_amount),
          internalKey: hex.decode(config.treasuryPubkey),
        }
      : null;
    const base = {
      wallet: walletKeys,
      feeRate: input.feeRate,
      state,
      newVault,
      utxos: action === 'withdraw' ? [] : await paymentUtxos(config, account, satsScript),
    };
    let built: BuiltVaultTx;
    let payload: Record<string, unknown>;
    switch (action) {
      case 'create':
        built = buildOpenPsbt({
          ...base,
          depositAmount: input.sats,
          borrowAmount: input.cents,
          treasury: treasury!,
          unitRuneId,
          ...postage,
        });
        payload = {
          borrow_amount: Number(input.cents),
          deposit_amount: Number(input.sats),
          vault_label: input.name,
          tx_feerate: input.feeRate,
        };
        break;
      case 'deposit':
        built = buildDepositPsbt({ ...base, vault: vault!, depositAmount: input.sats });
        payload = { deposit_amount: Number(input.sats), tx_feerate: input.feeRate };
        break;
      case 'borrow':
        built = buildBorrowPsbt({
          ...base,
          vault: vault!,
          borrowAmount: input.cents,
          treasury: treasury!,
          unitRuneId,
          ...postage,
        });
        payload = {
          borrow_amount: Number(input.cents),
          deposit_amount: 0,
          tx_feerate: input.feeRate,
        };
        break;
      case 'repay': {
        const outputs = await getJson<UnitOutputDto[]>(
          joinUrl(config.runesUrl, `address/${account.runesAddress}/outputs`),
        );
        const unitUtxos = outputs
          .filter((o) => !o.spent && o.unit_amount > 0)
          .map((o) => ({
            txid: o.txid,
            vout: o.vout,
            value: BigInt(o.btc_amount),
            script: hex.decode(o.script_hex),
            unitAmount: BigInt(o.unit_amount),
          }));
        built = buildRepayPsbt({
          ...base,
          vault: vault!,
          repayAmount: input.cents,
          unitUtxos,
          treasuryScript: addressToScript(reservation!.treasury_address, network),
          unitRuneId,
          ...postage,
        });
        payload = {
          repay_amount: Number(input.cents),
          deposit_amount: 0,
          tx_feerate: input.feeRate,
        };
        break;
      }
      case 'withdraw':
        built = buildWithdrawPsbt({
          wallet: walletKeys,
          feeRate: input.feeRate,
          state,
          newVault,
          vault: vault!,
          withdrawAmount: input.sats,
        });
        payload = { change_amount: Number(input.sats), tx_feerate: input.feeRate };
        break;
    }

    // [1 signature collection]: the wallet signs only its own inputs.
    const request = await signVaultRequest({
      draft,
      payload,
      vaultPubkey: account.vaultPubkey,
      quote,
      reservationId: reservation?.reservation_id ?? null,
      psbt: base64.encode(built.psbt),
      sign: (psbt) => wallet.signPsbt(psbt, { signInputs: built.signInputs.user }),
    });
    const progressOf = (step: number) =>
      // The create tracker has five steps; the action drawers four (no separate network approvals).
      action === 'create'
        ? step
        : (({ 2: 2, 3: 3, 4: 3, 5: 4 } as Record<number, number>)[step] ?? step);
    onSent?.();
    const result = (await rpc.call(METHOD[action], request as never, {
      onProgress: (step) => onProgress(progressOf(step)),
    })) as { vault_txid: string; issue_txid?: string; repay_txid?: string; vault_id?: string };
    return {
      txid: result.issue_txid ?? result.repay_txid ?? result.vault_txid,
      vaultTxid: result.vault_txid,
      ...(result.vault_id ? { vaultId: result.vault_id } : {}),
    };
  } finally {
    rpc.close();
  }
}

/**
 * Repossess (ARCHITECTURE: Liquidation): the caller's vault absorbs a liquidated vault's collateral
 * and debt, paying the repossession tax to the treasury. The guardian spends the liquidated vault's
 * liquidation leaf with the threshold secret the oracle revealed; the wallet signs its own vault.
 */
export async function runRepossess(
  liquidatedVault: LiquidatedVaultDto,
  feeRate: number,
  onProgress: OnProgress,
  { config, wallet }: ExecuteContext,
): Promise<FlowResultIds> {
  const account = wallet.account;
  if (!account) throw new WalletError('no_accounts', 'No accounts');
  onProgress(1);
  const network = bitcoinNetwork(config);
  const walletKeys = walletKeysOf(account, network);
  const { satsScript } = walletKeys;
  const own = await getJson<VaultDto>(`/api/vaults/by-pubkey/${account.vaultPubkey}`);
  const vault = await currentVault(config, own);
  const liquidated = await currentVault(config, liquidatedVault);

  const after = repossessState(
    { btcSats: sats(vault.value), unitCents: unitCents(vault.unitDebt) },
    { btcSats: sats(liquidated.value), unitCents: unitCents(liquidated.unitDebt) },
  );
  const now = Math.floor(Date.now() / 1000);
  const draft = draftEnvelope(now);
  const { nonce, expiresAt } = draft;
  const th = liquidationThresholdCents(after.btcSats, after.unitCents);
  const quote = await quoteFor(th, now);
  const built = buildRepossessPsbt({
    wallet: walletKeys,
    feeRate,
    ...quotedVault(
      quote,
      th,
      { nonce, expiry: expiresAt },
      {
        vaultPubkey: hex.decode(account.vaultPubkey),
        guardPubkey: hex.decode(config.guardPubkey),
        network,
      },
    ),
    utxos: await paymentUtxos(config, account, satsScript),
    vault,
    liquidated,
    // The treasury is the key-path P2TR output of its key (docs/protocol.md, Keys).
    treasuryScript: p2tr(hex.decode(config.treasuryPubkey), undefined, network).script,
  });
  const request = await signVaultRequest({
    draft,
    payload: { liquidated_vault_id: liquidatedVault.vault_id, tx_feerate: feeRate },
    vaultPubkey: account.vaultPubkey,
    quote,
    psbt: base64.encode(built.psbt),
    sign: (psbt) => wallet.signPsbt(psbt, { signInputs: built.signInputs.user }),
  });
  const rpc = await connect(config.guardianUrl);
  try {
    const result = await rpc.call('vault.repossess', request, {
      onProgress: (step) =>
        onProgress(({ 2: 2, 3: 3, 4: 3, 5: 4 } as Record<number, number>)[step] ?? step),
    });
    return { txid: result.vault_txid, vaultTxid: result.vault_txid };
  } finally {
    rpc.close();
  }
}

/** Esplora's plain-text answers (a raw transaction's hex). */
async function getText(url: string): Promise<string> {
  const res = await fetch(new URL(url, window.location.href));
  if (!res.ok)
    throw new Error(
      res.status === 404 ? 'Transaction not found' : `Request failed (${res.status})`,
    );
  return (await res.text()).trim();
}

/** The signed transaction and its inputs' prevouts, as esplora serves them. */
interface EsploraTxDto {
  vin: { prevout: { scriptpubkey: string; value: number } | null }[];
  status: { confirmed: boolean };
}

/**
 * Speed-up (BIP-125): the wallet signs a replacement of its pending vault transaction that pays
 * `feeRate`, built from the original as the chain has it (its inputs, its fixed outputs, the leaf
 * its witness spent); the guardian co-signs it only if nothing but the fee changed.
 */
export async function runSpeedUp(
  target: Extract<FlowTarget, { kind: 'speedup' }>,
  feeRate: number,
  onProgress: OnProgress,
  { config, wallet }: ExecuteContext,
): Promise<FlowResultIds> {
  const account = wallet.account;
  if (!account) throw new WalletError('no_accounts', 'No accounts');
  onProgress(1);
  const network = bitcoinNetwork(config);
  const walletKeys = walletKeysOf(account, network);
  const [tx, rawHex] = await Promise.all([
    getJson<EsploraTxDto>(joinUrl(config.esploraUrl, `tx/${target.txid}`)),
    getText(joinUrl(config.esploraUrl, `tx/${target.txid}/hex`)),
  ]);
  if (tx.status.confirmed) throw new Error('This transaction is already confirmed');
  const prevouts = tx.vin.map((input) => {
    if (!input.prevout) throw new Error('The transaction spends an unknown output');
    return { script: hex.decode(input.prevout.scriptpubkey), amount: BigInt(input.prevout.value) };
  });
  const built = buildSpeedUpPsbt({
    action: target.action,
    original: { hex: rawHex, prevouts },
    wallet: walletKeys,
    treasury: {
      // The treasury is the key-path P2TR output of its key (docs/protocol.md, Keys).
      script: p2tr(hex.decode(config.treasuryPubkey), undefined, network).script,
      internalKey: hex.decode(config.treasuryPubkey),
    },
    utxos: await paymentUtxos(config, account, walletKeys.satsScript),
    feeRate,
  });
  const signed = await wallet.signPsbt(base64.encode(built.psbt), {
    signInputs: built.signInputs.user,
  });
  onProgress(2);
  const rpc = await connect(config.guardianUrl);
  try {
    onProgress(3);
    const result = await rpc.call('vault.speedup', {
      original_txid: target.txid,
      vault_pubkey: account.vaultPubkey,
      psbt: signed,
    });
    onProgress(4);
    return { txid: result.vault_txid, vaultTxid: result.vault_txid, replacedTxid: target.txid };
  } finally {
    rpc.close();
  }
}

/**
 * The step that talks to the wallet and the guardian, by the flow's action. FlowProvider loads this
 * module lazily, so @scure/* and zod stay out of the dashboard's initial chunk.
 */
export const executeFlow: ExecuteFlow = async (action, input, onProgress, context) => {
  const { target } = input;
  if (action === 'repossess' && target?.kind === 'repossess')
    return runRepossess(target.vault, input.feeRate, onProgress, context);
  if (action === 'speedup' && target?.kind === 'speedup')
    return runSpeedUp(target, input.feeRate, onProgress, context);
  if (action === 'repossess' || action === 'speedup') throw new Error('Nothing to act on');
  return runVaultAction(action, input, onProgress, context);
};
