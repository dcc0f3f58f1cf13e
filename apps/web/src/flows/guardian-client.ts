// The browser's half of the vault protocol (docs/protocol.md): read the vault and the wallet's
// outputs, get a signed oracle quote for the state after the action, reserve treasury UNIT where
// needed, build the PSBT with @unit/bitcoin, have the wallet sign its inputs, and hand the request to
// the guardian over JSON-RPC, following its progress. Loaded lazily: it carries the Bitcoin libraries
// The JSON-RPC client and the request envelope are the protocol's (@unit/protocol/wire/client, without
// the zod schemas: bundled here they would pull zod's core into the dashboard's first chunk); their
// errors are DomainErrors matched by code.
import { base64, hex } from '@scure/base';
import { NETWORK } from '@scure/btc-signer';
import {
  addressToScript,
  declarationOf,
  parseRuneId,
  quotedVault,
  repossess,
  withdrawFee,
  type ActionDeclaration,
  type VaultUtxo,
  type VaultWallet,
} from '@unit/bitcoin';
import {
  ERROR_MESSAGES,
  RESERVE_TIMEOUT_MS,
  accountPostageSats,
  actionAmountOf,
  applyAction,
  liquidationThresholdCents,
  repossessState,
  sats,
  unitCents,
  type ConfigDto,
  type LiquidatedVaultDto,
  type ReserveParams,
  type VaultAction,
} from '@unit/protocol';
import { draftEnvelope, signVaultRequest } from '@unit/protocol/wire/client';
import { callApi } from '../api/call';
import { getUser } from '../api/missions';
import { WalletError, type WalletAccount } from '../wallet';
import type { FlowAction } from './declarations';
import type { FlowResultIds } from './engine';
import type { ExecuteContext, ExecuteFlow, FlowInput, OnProgress } from './flow-types';
import { attachResend } from './resend';
import { vaultActionOf } from './vault-action';
import {
  bitcoinNetwork,
  connect,
  currentVault,
  paymentUtxos,
  quoteFor,
  reservedTreasury,
  unitUtxosOf,
  walletKeysOf,
  type RpcClient,
} from './client-reads';
import { sizingCommitment, sizingRecordTerm } from './max-deposit';
import { actionStepOf, callGuardian, createStepOf } from './guardian-call';
import { runSpeedUp } from './speed-up-client';

export { runSpeedUp } from './speed-up-client';

/** The flows that build a new vault transaction from the form's amounts. */
type AmountFlow = Exclude<FlowAction, 'repossess' | 'speedup'>;

/**
 * The state record's fields and the new vault output for the state after the action: its threshold
 * is what the oracle quotes for. A withdraw's fee comes out of the vault, so it is part of that state.
 */
async function quotedStateAfter(
  config: ConfigDto,
  { action, shape }: Pick<ActionDeclaration<Exclude<VaultAction, 'repossess'>>, 'action' | 'shape'>,
  parts: {
    account: WalletAccount;
    walletKeys: VaultWallet;
    vault: VaultUtxo | null;
    input: FlowInput;
    network: typeof NETWORK;
  },
  request: { now: number; nonce: Uint8Array; expiresAt: number },
) {
  const { account, walletKeys, vault, input, network } = parts;
  const withdrawFeeSats = shape.paysFromWallet
    ? 0n
    : withdrawFee({
        wallet: walletKeys,
        feeRate: input.feeRate,
        state: {
          quotePriceCents: 0n,
          thresholdCents: 0n,
          quoteStamp: request.now,
          nonce: request.nonce,
          expiry: request.expiresAt,
          // The fee comes out of the vault: its record's size is the mode's (+32 committed).
          ...sizingCommitment(config),
          ...sizingRecordTerm(config),
        },
        newVault: vault!.output,
        vault: vault!,
        withdrawAmount: input.sats,
      });
  const before = {
    btcSats: sats(vault?.value ?? 0n),
    unitCents: unitCents(vault?.unitDebt ?? 0n),
  };
  const after = applyAction(
    before,
    action,
    actionAmountOf(action, { btcSats: sats(input.sats), unitCents: unitCents(input.cents) }),
    { feeSats: sats(withdrawFeeSats) },
  );
  const th = liquidationThresholdCents(after.btcSats, after.unitCents);
  const quote = await quoteFor(th, request.now);
  return {
    quote,
    ...quotedVault(
      quote,
      th,
      { nonce: request.nonce, expiry: request.expiresAt },
      {
        vaultPubkey: hex.decode(account.vaultPubkey),
        guardPubkey: hex.decode(config.guardPubkey),
        network,
      },
    ),
  };
}

export async function runVaultAction(
  flow: AmountFlow,
  input: FlowInput,
  onProgress: OnProgress,
  { config, wallet, onSent }: ExecuteContext,
): Promise<FlowResultIds> {
  const account = wallet.account;
  // SPEC §4 and §8: the no-accounts case is the one that offers Try again.
  if (!account) throw new WalletError('no_accounts', 'No accounts');
  // The action's declaration (packages/bitcoin/src/actions) says what it reserves, spends, builds.
  const declaration = declarationOf(vaultActionOf(flow) as Exclude<VaultAction, 'repossess'>);
  const { action, shape } = declaration;
  onProgress(1);
  const network = bitcoinNetwork(config);
  const walletKeys = walletKeysOf(account, network);
  const { satsScript } = walletKeys;
  const vaultDto =
    shape.vault === 'creates'
      ? null
      : await callApi('vaultByPubkey', { params: { pubkey: account.vaultPubkey } });
  const vault = vaultDto ? await currentVault(config, vaultDto) : null;

  const rpc = await connect(config.guardianUrl);
  /** Kept open for a re-send (sendKeepingResend): the reservation lives with the socket. */
  let keep = false;
  try {
    // SPEC §7: the reserve call's time limit (the reservation itself lives for minutes).
    const reservation =
      shape.reserve === null
        ? null
        : await rpc.call(
            'unit.reserve',
            {
              unit_amount: Number(input.cents),
              vault_action: action as ReserveParams['vault_action'],
              vault_pubkey: account.vaultPubkey,
            },
            { timeoutMs: RESERVE_TIMEOUT_MS, timeoutMessage: ERROR_MESSAGES.userTimeout },
          );

    // The state after the action decides the threshold the new vault output commits to.
    const now = Math.floor(Date.now() / 1000);
    const draft = draftEnvelope(now);
    const { nonce, expiresAt } = draft;
    const { quote, state, newVault } = await quotedStateAfter(
      config,
      declaration,
      { account, walletKeys, vault, input, network },
      { now, nonce, expiresAt },
    );
    // The UNIT outputs to the wallet carry its referral level's postage, read afresh: the guardian
    // holds them to the level the account has when it checks (missions.ts accountPostageSats).
    const postage = shape.accountPostage
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
    const built = declaration.build({
      wallet: walletKeys,
      feeRate: input.feeRate,
      state,
      newVault,
      utxos: shape.paysFromWallet ? await paymentUtxos(config, account, satsScript) : [],
      btc: input.sats,
      unit: input.cents,
      ...(vault ? { vault } : {}),
      ...reservedTreasury(config, reservation),
      ...(shape.inputs.includes('unit')
        ? {
            unitUtxos: await unitUtxosOf(config, account),
            treasuryScript: addressToScript(reservation!.treasury_address, network),
          }
        : {}),
      ...(shape.reserve !== null ? { unitRuneId: parseRuneId(config.unitRuneId) } : {}),
      ...postage,
    });
    const payload = declaration.payload({
      btc: input.sats,
      unit: input.cents,
      feeRate: input.feeRate,
      label: input.name,
    });

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
    const stepOf = shape.vault === 'creates' ? createStepOf : actionStepOf;
    onSent?.();
    const send = async (client: RpcClient, report: OnProgress): Promise<FlowResultIds> => {
      const result = (await callGuardian(client, declaration.method, request, report, stepOf)) as {
        vault_txid: string;
        issue_txid?: string;
        repay_txid?: string;
        vault_id?: string;
      };
      return {
        txid: result.issue_txid ?? result.repay_txid ?? result.vault_txid,
        vaultTxid: result.vault_txid,
        ...(result.vault_id ? { vaultId: result.vault_id } : {}),
      };
    };
    return await sendKeepingResend(
      rpc,
      send,
      onProgress,
      () => {
        keep = true;
      },
      {
        method: declaration.method,
        nonce: request.nonce,
        expiresAt,
        guardianUrl: config.guardianUrl,
      },
    );
  } finally {
    if (!keep) rpc.close();
  }
}

/**
 * Sends a signed request; when the network never took it (resend.ts), the failure keeps it for
 * sending again as it is, over this socket while it is open (it holds the request's reservation),
 * else over a new one.
 */
async function sendKeepingResend(
  rpc: RpcClient,
  send: (client: RpcClient, report: OnProgress) => Promise<FlowResultIds>,
  onProgress: OnProgress,
  onKept: () => void,
  request: { method: string; nonce: string; expiresAt: number; guardianUrl: string },
): Promise<FlowResultIds> {
  try {
    return await send(rpc, onProgress);
  } catch (error) {
    const again = async (report: OnProgress): Promise<FlowResultIds> => {
      const client = rpc.open() ? rpc : await connect(request.guardianUrl);
      let kept = false;
      try {
        return await sendKeepingResend(client, send, report, () => (kept = true), request);
      } finally {
        if (!kept) client.close();
        if (client !== rpc) rpc.close();
      }
    };
    const resend = { ...request, send: again, close: () => rpc.close() };
    if (attachResend(error, resend)) onKept();
    throw error;
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
  // Each vault's own guardian key (an older set's until it moves: rotation): the caller's from
  // /api/vaults, the liquidated vault's on its /api/liquidations entry.
  const own = await callApi('vaultByPubkey', { params: { pubkey: account.vaultPubkey } });
  const [vault, liquidated] = await Promise.all([
    currentVault(config, own),
    currentVault(config, liquidatedVault),
  ]);

  const after = repossessState(
    { btcSats: sats(vault.value), unitCents: unitCents(vault.unitDebt) },
    { btcSats: sats(liquidated.value), unitCents: unitCents(liquidated.unitDebt) },
  );
  const now = Math.floor(Date.now() / 1000);
  const draft = draftEnvelope(now);
  const { nonce, expiresAt } = draft;
  const th = liquidationThresholdCents(after.btcSats, after.unitCents);
  const quote = await quoteFor(th, now);
  const built = repossess.build({
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
    btc: 0n,
    unit: 0n,
    vault,
    liquidated,
    // The treasury's address as the server serves it (its key's P2TR, or the group key's).
    treasuryScript: addressToScript(config.treasuryAddress, network),
  });
  const request = await signVaultRequest({
    draft,
    payload: repossess.payload({
      btc: 0n,
      unit: 0n,
      feeRate,
      liquidatedVaultId: liquidatedVault.vault_id,
    }),
    vaultPubkey: account.vaultPubkey,
    quote,
    psbt: base64.encode(built.psbt),
    sign: (psbt) => wallet.signPsbt(psbt, { signInputs: built.signInputs.user }),
  });
  const rpc = await connect(config.guardianUrl);
  try {
    const result = await callGuardian(rpc, 'vault.repossess', request, onProgress, actionStepOf);
    return { txid: result.vault_txid, vaultTxid: result.vault_txid };
  } finally {
    rpc.close();
  }
}

/**
 * The step that talks to the wallet and the guardian, by the flow's action. FlowProvider loads this
 * module lazily, so @scure/* and zod stay out of the dashboard's initial chunk.
 */
export const executeFlow: ExecuteFlow = async (action, input, onProgress, context) => {
  if (input.resend) {
    // The same signed request again: no new quote, no new signature.
    context.onSent?.();
    return input.resend.send(onProgress);
  }
  const { target } = input;
  if (action === 'repossess' && target?.kind === 'repossess')
    return runRepossess(target.vault, input.feeRate, onProgress, context);
  if (action === 'speedup' && target?.kind === 'speedup')
    return runSpeedUp(target, input.feeRate, onProgress, context);
  if (action === 'repossess' || action === 'speedup') throw new Error('Nothing to act on');
  return runVaultAction(action, input, onProgress, context);
};
