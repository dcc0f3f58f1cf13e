// Instances that stop while others run leave requests behind: the leader settles them
// (cosign/recover.ts) every interval.
import type { Logger } from 'pino';
import type { Guardian } from '../cosign';
import type { LeaderJob } from './leader-job';

/** A vault an instance left mid-request stays busy at most about this long once it is gone. */
export const RECOVERY_INTERVAL_MS = 10_000;

export function guardianRecoveryJob(deps: {
  guardian: Guardian;
  log: Logger;
  intervalMs?: number;
}): LeaderJob {
  const { guardian, log } = deps;
  let recovering: NodeJS.Timeout | null = null;
  return {
    name: 'guardian-recovery',
    start: () => {
      let round: Promise<unknown> | null = null;
      recovering = setInterval(() => {
        // Rounds never overlap: a slow chain must not have two rounds settle the same request.
        round ??= guardian
          .recover()
          .catch((err: unknown) => log.error({ err }, 'recovery failed'))
          .finally(() => (round = null));
      }, deps.intervalMs ?? RECOVERY_INTERVAL_MS);
      recovering.unref();
    },
    stop: () => {
      if (recovering) clearInterval(recovering);
      recovering = null;
    },
  };
}
