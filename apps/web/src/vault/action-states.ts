import {
  DEFAULT_FEE_SPEED,
  buttonState,
  defaultPaymentInputs,
  hasPendingInProgress,
  operationCostSats,
  selectedFeeRate,
  type ButtonContext,
  type ButtonState,
  type DashboardAction,
  cappedFeeOptions,
  CONTENT,
  termSizing,
} from '@unit/protocol';
import { usePricePause } from '../api/bitcoin-price';
import { useConfig } from '../api/config';
import { useAccountPostage } from '../api/missions';
import { useIncomingSats } from '../api/incoming';
import { useWallet } from '../wallet';
import { formatAmount } from '../ui/format';
import type { Position } from '../api/position';
import { useVaultHistory } from '../api/vault-history';
import { FLOWS } from '../flows/declarations';
import { useFlows } from '../flows/FlowProvider';
import { useLiquidatedState } from './liquidated';

export interface ActionStates {
  liquidated: boolean;
  buttons: Record<DashboardAction, ButtonState>;
}

/**
 * SPEC §4 Button enablement for the four vault actions, each quoted at the default (Fast, SPEC §9)
 * fee rate; the dashboard's buttons and the `?action=` link both ask it.
 */
export function useActionStates(position: Position): ActionStates {
  const config = useConfig();
  const flows = useFlows();
  const vault = position.vault;
  const history = useVaultHistory(vault?.vault_id ?? null);
  const liquidated =
    useLiquidatedState(vault?.vault_id ?? null, position.ratio) || vault?.status === 'liquidated';
  const feeRate = selectedFeeRate(
    cappedFeeOptions(position.fees, position.priceUsd),
    DEFAULT_FEE_SPEED,
  );
  // A flow past its form (signing or submitting) is a pending transaction for every button; an open
  // drawer makes its action the active one, which disables the others.
  const flowRunning =
    flows.flow?.status === 'awaiting-signature' || flows.flow?.status === 'processing';
  // A repossess or speed-up drawer holds every vault action back, as the create drawer does.
  const open = flows.drawerOpen ? flows.flow?.action : undefined;
  const activeAction = open ? FLOWS[open].holdsButtons : null;
  const wallet = useWallet();
  const postageSats = useAccountPostage(config, wallet.account?.satsAddress ?? null).sats;
  const pause = usePricePause();
  const ctx = (action: DashboardAction): ButtonContext => ({
    hasPendingTransaction: flowRunning || hasPendingInProgress(flows.pending, history.data),
    isLiquidated: liquidated,
    isSettled: vault?.status === 'settled',
    isExited: vault?.status === 'exited',
    activeAction,
    walletSats: position.walletSats ?? 0,
    vaultSats: position.sats,
    debtCents: position.debtCents,
    priceUsd: position.priceUsd,
    pricePaused: pause?.buttonReason ?? null,
    operationCostSats: operationCostSats({
      action,
      paymentInputs: defaultPaymentInputs(action),
      feeRate,
      postageSats,
      treasuryPostageSats: config.constants.unitPostageSats,
      quorumCommitment: config.constants.priceQuorum === true,
      ...termSizing(config.constants),
    }),
  });
  // The wallet's sats decide deposit, borrow and repay: while they are unknown, or on their way in
  // a transaction not yet mined, a disabled button says so rather than 'no bitcoin'.
  const incoming = useIncomingSats(config, wallet.account?.satsAddress ?? null).data ?? 0n;
  const walletBound = (action: DashboardAction): ButtonState => {
    const state = buttonState(action, ctx(action));
    if (state.enabled) return state;
    const common = buttonState(action, { ...ctx(action), walletSats: Number.MAX_SAFE_INTEGER });
    // disabled for a reason of its own (pending, liquidated, no debt): that reason stands
    if (!common.enabled) return state;
    if (position.walletSats == null) return { enabled: false, reason: CONTENT.walletFunds.loading };
    if (incoming > 0n)
      return {
        enabled: false,
        reason: CONTENT.walletFunds.arrivingReason(formatAmount(incoming, 'BTC')),
      };
    return state;
  };
  return {
    liquidated,
    buttons: {
      deposit: walletBound('deposit'),
      withdraw: buttonState('withdraw', ctx('withdraw')),
      borrow: walletBound('borrow'),
      repay: walletBound('repay'),
    },
  };
}
