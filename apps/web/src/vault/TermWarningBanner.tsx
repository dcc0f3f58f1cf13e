import { useQuery } from '@tanstack/react-query';
import { CalendarClock } from 'lucide-react';
import { termWarningDays, termWarningText, type VaultDto } from '@unit/protocol';
import { blockHeightQueryOptions } from '../api/block-height';
import { useConfig } from '../api/config';

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
    <div className="banner banner--warning" role="status" data-testid="term-warning">
      <span className="banner__mark" aria-hidden="true">
        <CalendarClock size={18} />
      </span>
      <div className="banner__body">
        <p className="banner__title">
          <strong>{text.title}</strong>
        </p>
        <p className="banner__text banner__text--strong">{text.body}</p>
        <p className="banner__text">{text.whatToDo}</p>
      </div>
    </div>
  );
}
