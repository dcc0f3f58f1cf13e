// The devnet mines its blocks in the leader (its chain lives in the shared database).
import type { Devnet } from '../devnet/devnet';
import type { LeaderJob } from './leader-job';

export function devnetMinerJob(devnet: Devnet): LeaderJob {
  return { name: 'devnet-miner', start: () => devnet.start(), stop: () => devnet.stop() };
}
