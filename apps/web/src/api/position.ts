import {
  collateralRatio,
  sats as toSats,
  unitCents as toUnitCents,
  type RecommendedFeesDto,
  type Sats,
  type UnitCents,
  type VaultDto,
} from '@unit/protocol';
import { useWallet } from '../wallet';
import { rememberedVaultKey } from '../wallet/vault-key-cookie';
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
  /** set when the vault could not be read; a failed background refetch keeps the last vault */
  vaultError: unknown;
  refetchVault(): void;
  /** USD per BTC as the price endpoint serves it; @unit/protocol turns it into cents for math */
  priceUsd: number | null;
  priceTime: number | null;
  walletSats: Sats | null;
  runeCents: UnitCents | null;
  fees: RecommendedFeesDto | undefined;
  sats: Sats;
  debtCents: UnitCents;
  /** SPEC §9 collateral ratio: Infinity with no debt, 160 while the price is unknown */
  ratio: number;
  /**
   * The vault is the one this browser's last wallet had, read while that wallet reconnects: its
   * figures show at once (the page carries them), its actions wait for the wallet.
   */
  provisional: boolean;
}

/** Whose vault: the connected wallet's, or while the last one reconnects, the one it had. */
function vaultKey(account: { vaultPubkey: string } | null, restoring: boolean): string | null {
  if (account) return account.vaultPubkey;
  return restoring ? rememberedVaultKey() : null;
}

export function usePosition(): Position {
  const config = useConfig();
  const { account, restoring } = useWallet();
  const pubkey = vaultKey(account, restoring);
  const vault = useVault(pubkey);
  const price = useBitcoinPrice();
  const balance = useSatsBalance(config, account?.satsAddress ?? null);
  const outputs = useUnitOutputs(config, account?.runesAddress ?? null);
  const fees = useRecommendedFees(config);
  const v = vault.data ?? null;
  const sats = toSats(v?.btc_locked ?? 0);
  const debtCents = toUnitCents(v?.unit_borrowed ?? 0);
  const priceUsd = price.data?.USD ?? null;
  return {
    vault: v,
    vaultLoading: pubkey != null && vault.isPending,
    vaultError: vault.error,
    refetchVault: () => void vault.refetch(),
    priceUsd,
    priceTime: price.data?.time ?? null,
    walletSats: balance.data != null ? toSats(balance.data) : null,
    runeCents: outputs.data ? toUnitCents(unitBalanceCents(outputs.data)) : null,
    fees: fees.data,
    sats,
    debtCents,
    ratio: collateralRatio(sats, debtCents, priceUsd),
    provisional: account == null && v != null,
  };
}
