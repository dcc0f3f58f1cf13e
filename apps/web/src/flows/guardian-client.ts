// The browser's half of the vault protocol (docs/protocol.md): read the vault and the wallet's
// outputs, get a signed oracle quote for the state after the action, reserve treasury UNIT where
// needed, build the PSBT with @unit/bitcoin, have the wallet sign its inputs, and hand the request to
// the guardian over JSON-RPC, following its progress. Loaded lazily: it carries the Bitcoin libraries
// The JSON-RPC client and the request envelope are the protocol's (@unit/protocol/wire/client, without
// the zod schemas: bundled here they would pull zod's core into the dashboard's first chunk); their
// errors are DomainErrors matched by code.
import { hex } from '@scure/base';
import { addressToScript, declarationOf, parseRuneId, prepareVaultRequest } from '@unit/bitcoin';
import {
  ERROR_MESSAGES,
  RESERVE_TIMEOUT_MS,
  accountPostageSats,
  type ConfigDto,
  type LiquidatedVaultDto,
  type VaultAction,
} from '@unit/protocol';
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
  unitUtxosOf,
  walletKeysOf,
  type RpcClient,
} from './client-reads';
import { treasuryInternalKey } from './treasury-key';
import { actionStepOf, callGuardian, createStepOf } from './guardian-call';
import { runSpeedUp } from './speed-up-client';

export { runSpeedUp } from './speed-up-client';

/** The flows that build a new vault transaction from the form's amounts. */
type AmountFlow = Exclude<FlowAction, 'repossess' | 'speedup'>;

/** The request's keys and clock: the new vault output commits to the newest guardian set's key. */
function requestContext(config: ConfigDto, account: WalletAccount) {
  return {
    vaultPubkey: account.vaultPubkey,
    keys: { guardPubkey: hex.decode(config.guardPubkey), network: bitcoinNetwork(config) },
    now: () => Math.floor(Date.now() / 1000),
  };
}

/** What the wallet reads and signs for a request (@unit/bitcoin's runner asks only what it needs). */
function walletIo(
  config: ConfigDto,
  account: WalletAccount,
  wallet: ExecuteContext['wallet'],
  satsScript: Uint8Array,
) {
  return {
    quote: quoteFor,
    paymentUtxos: () => paymentUtxos(config, account, satsScript),
    // [1 signature collection]: the wallet signs only its own inputs.
    sign: (psbt: string, signers: readonly { index: number }[]) =>
      wallet.signPsbt(psbt, { signInputs: signers.map((signer) => signer.index) }),
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
  const action = vaultActionOf(flow) as Exclude<VaultAction, 'repossess'>;
  const { method, shape } = declarationOf(action);
  onProgress(1);
  const network = bitcoinNetwork(config);
  const walletKeys = walletKeysOf(account, network);
  const vaultDto =
    shape.vault === 'creates'
      ? null
      : await callApi('vaultByPubkey', { params: { pubkey: account.vaultPubkey } });
  const vault = vaultDto ? await currentVault(config, vaultDto) : null;
  const treasuryKey = treasuryInternalKey(config).internalKey;

  const rpc = await connect(config.guardianUrl);
  /** Kept open for a re-send (sendKeepingResend): the reservation lives with the socket. */
  let keep = false;
  try {
    // The planner: what to reserve, the state after (its threshold is what the oracle quotes for;
    // a withdraw's fee comes out of the vault, so it is part of that state), the PSBT to sign.
    const { request, draft } = await prepareVaultRequest(
      {
        action,
        btc: input.sats,
        unit: input.cents,
        ...(vault ? { vault } : {}),
        wallet: walletKeys,
        feeRate: input.feeRate,
        // The fee from the vault is sized for the record the mode writes (+32 committed, +40 term).
        record: {
          committed: Boolean(config.constants.priceQuorum),
          termed: Boolean(config.constants.vaultTerm),
        },
      },
      {
        ...requestContext(config, account),
        // The treasury's key-path internal key; none for the guardian network's `OP_1 <group key>`.
        ...(treasuryKey ? { treasuryInternalKey: treasuryKey } : {}),
        unitRuneId: parseRuneId(config.unitRuneId),
        label: input.name,
      },
      {
        ...walletIo(config, account, wallet, walletKeys.satsScript),
        // SPEC §7: the reserve call's time limit (the reservation itself lives for minutes).
        reserve: (params) =>
          rpc.call('unit.reserve', params, {
            timeoutMs: RESERVE_TIMEOUT_MS,
            timeoutMessage: ERROR_MESSAGES.userTimeout,
          }),
        unitUtxos: () => unitUtxosOf(config, account),
        // The UNIT outputs to the wallet carry its referral level's postage, read afresh: the
        // guardian holds them to the level the account has when it checks (accountPostageSats).
        postage: async () => ({
          postageSats: BigInt(
            accountPostageSats(
              (await getUser(account.satsAddress))?.level ?? null,
              config.constants.unitPostageSats,
            ),
          ),
          treasuryPostageSats: BigInt(config.constants.unitPostageSats),
        }),
      },
    );
    const stepOf = shape.vault === 'creates' ? createStepOf : actionStepOf;
    onSent?.();
    const send = async (client: RpcClient, report: OnProgress): Promise<FlowResultIds> => {
      const result = (await callGuardian(client, method, request, report, stepOf)) as {
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
        method,
        nonce: request.nonce,
        expiresAt: draft.expiresAt,
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
  // Each vault's own guardian key (an older set's until it moves: rotation): the caller's from
  // /api/vaults, the liquidated vault's on its /api/liquidations entry.
  const own = await callApi('vaultByPubkey', { params: { pubkey: account.vaultPubkey } });
  const [vault, liquidated] = await Promise.all([
    currentVault(config, own),
    currentVault(config, liquidatedVault),
  ]);

  const { request } = await prepareVaultRequest(
    { action: 'repossess', btc: 0n, unit: 0n, vault, liquidated, wallet: walletKeys, feeRate },
    {
      ...requestContext(config, account),
      // The treasury's address as the server serves it (its key's P2TR, or the group key's).
      treasuryScript: addressToScript(config.treasuryAddress, network),
      liquidatedVaultId: liquidatedVault.vault_id,
    },
    walletIo(config, account, wallet, walletKeys.satsScript),
  );
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
