// The settlement at the term (docs/protocol.md, "Leaving without the guardians") runs on each block,
// wherever it was heard, in the one instance that leads it, so several instances on one database
// never sign or send a settlement twice (each vault is also taken under its lock). A round that is
// still running when a block arrives runs once more after it; a vault it leaves is tried on the next
// block. Each vault settled is announced to the browsers; its owner hears of it on Telegram from its
// history record (telegram-history.ts).
import type { Logger } from 'pino';
import type { SignedQuote } from '@unit/protocol';
import type { EventBus } from '../cluster';
import { announceVaultChange } from '../cluster/vault-changes';
import type { Guardian } from '../cosign';
import type { Oracle } from '../oracle/oracle';
import type { LeaderJob } from './leader-job';

/** The oracle's quote as the guardians check it: the signed price and, in network mode, its quorum. */
export async function settlementQuote(oracle: Pick<Oracle, 'quoteFresh'>): Promise<SignedQuote> {
  const q = await oracle.quoteFresh(0, Math.floor(Date.now() / 1000));
  const { price_cents, time, th, ts, signature } = q;
  return { price_cents, time, th, ts, signature, ...(q.quorum ? { quorum: q.quorum } : {}) };
}

export function termSettlementJob(deps: {
  bus: EventBus;
  guardian: Pick<Guardian, 'settleAtTerm'>;
  /** A fresh quote of the guardians' price quorum (the oracle's, at th 0: no vault's secret). */
  quote: () => Promise<SignedQuote>;
  log: Logger;
}): LeaderJob {
  const { bus, guardian, quote, log } = deps;
  let leading = false;
  let running: Promise<void> | null = null;
  let again = false;
  const round = (): void => {
    if (!leading) return;
    if (running) {
      again = true;
      return;
    }
    running = guardian
      .settleAtTerm(quote)
      .then(({ settled }) => {
        for (const { vault_id } of settled)
          announceVaultChange(bus, { vault_id, kind: 'action' }, log);
      })
      .catch((err: unknown) => log.error({ err }, 'settlement round failed'))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          round();
        }
      });
  };
  return {
    name: 'term-settlement',
    listen: () => [
      bus.subscribe((event) => {
        if (event.type === 'block') round();
      }),
    ],
    start: () => {
      leading = true;
      round();
    },
    stop: () => {
      leading = false;
    },
  };
}
