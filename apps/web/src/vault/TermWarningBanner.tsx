import { useQuery } from '@tanstack/react-query';
import { CalendarCheck, CalendarClock } from 'lucide-react';
import { termSettledText, termWarningDays, termWarningText, type VaultDto } from '@unit/protocol';
import { useVaultHistory } from '../api/vault-history';
import { blockHeightQueryOptions } from '../api/block-height';
import { useConfig } from '../api/config';
import { NoticeBanner } from '../ui/NoticeBanner';

/**
 * Said 30, 7 and 1 days before the vault's term (termWarningBlocks of the configured term): what
 * the guardians do at the term if the owner does nothing, and that any action renews it.
 */
export function TermWarningBanner({
  vault,
}: {
  vault: Pick<VaultDto, 'settle_height' | 'status'>;
}) {
  const config = useConfig();
  const { data: height } = useQuery(blockHeightQueryOptions(config));
  const termConfig = config.constants.vaultTerm;
  const settleHeight = vault.settle_height;
  if (vault.status !== 'active' || settleHeight == null || height == null || !termConfig)
    return null;
  const days = termWarningDays(height, settleHeight, termConfig);
  if (days === null) return null;
  const text = termWarningText({ days, blocksLeft: settleHeight - height, settleHeight });
  return (
    <NoticeBanner
      tone="warning"
      testId="term-warning"
      mark={<CalendarClock size={18} />}
      title={text.title}
      cause={text.body}
      whatToDo={text.whatToDo}
    />
  );
}

/**
 * Said once the guardians settled the vault at its term: what it held, what was repaid at which
 * price, where the rest went, and what to do (its history record `s` gives the figures).
 */
export function TermSettledBanner({ vault }: { vault: Pick<VaultDto, 'vault_id' | 'status'> }) {
  const history = useVaultHistory(vault.status === 'settled' ? vault.vault_id : null);
  if (vault.status !== 'settled') return null;
  const record = history.data?.find((r) => r.action === 's');
  const text = termSettledText({
    debtCents: BigInt(record?.unit_amt ?? 0),
    collateralSats: BigInt(record?.btc_amt ?? 0),
    priceUsd: record?.oracle_price ?? null,
  });
  return (
    <NoticeBanner
      tone="info"
      testId="term-settled"
      mark={<CalendarCheck size={18} />}
      title={text.title}
      cause={record ? text.body : null}
      whatToDo={text.whatToDo}
    />
  );
}
