import type { RecommendedFeesDto, VaultDto } from '@unit/protocol';
import { useWallet } from '../wallet';
import { collateralRatio, priceToCents } from '../protocol-gaps';
import { useSatsBalance } from './balance';
import { useBitcoinPrice } from './bitcoin-price';
import { useConfig } from './config';
import { useRecommendedFees } from './fees';
import { unitBalanceCents, useUnitOutputs } from './unit-outputs';
import { useVault } from './vault';

/** Everything the dashboard and the drawers read about the connected wallet's vault, in integers. */
export interface Position {
  vault: VaultDto | null;
  vaultLoading: boolean;
  vaultError: unknown;
  priceUsd: number | null;
  priceCents: bigint | null;
  priceTime: number | null;
  walletSats: bigint | null;
  runeCents: bigint | null;
  fees: RecommendedFeesDto | undefined;
  sats: bigint;
  debtCents: bigint;
  ratio: number;
}

export function usePosition(): Position {
  const config = useConfig();
  const { account } = useWallet();
  const vault = useVault(account?.vaultPubkey ?? null);
  const price = useBitcoinPrice();
  const balance = useSatsBalance(config, account?.satsAddress ?? null);
  const outputs = useUnitOutputs(config, account?.runesAddress ?? null);
  const fees = useRecommendedFees(config);
  const v = vault.data ?? null;
  const sats = BigInt(v?.btc_locked ?? 0);
  const debtCents = BigInt(v?.unit_borrowed ?? 0);
  const priceCents = price.data ? priceToCents(price.data.USD) : null;
  return {
    vault: v,
    vaultLoading: account != null && vault.isPending,
    vaultError: vault.error,
    priceUsd: price.data?.USD ?? null,
    priceCents,
    priceTime: price.data?.time ?? null,
    walletSats: balance.data ?? null,
    runeCents: outputs.data ? unitBalanceCents(outputs.data) : null,
    fees: fees.data,
    sats,
    debtCents,
    ratio: collateralRatio(sats, debtCents, priceCents),
  };
}
