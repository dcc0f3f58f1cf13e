// The two figures for the root bench, on one guardian network (three real processes from a
// real DKG, approving every request): co-signing latency (cosign.ts) and vault opens per minute
// (opens.ts), each against the single guardian key in the same run. BENCH_COSIGN_ROUNDS and
// BENCH_OPEN_SECONDS trade time for noise (the defaults add about 45 s on the shared 2 cores).
import { startGuardianNetwork } from '../test/guardian-network/signer-harness';
import { measureCosign } from './cosign';
import type { Figure } from './measure';
import { guardiansReading, measureOpens } from './opens';

export async function guardianNetworkFigures(): Promise<{ figures: Figure[]; lines: string[] }> {
  const network = await startGuardianNetwork({ policy: 'approve-all' });
  try {
    const cosign = await measureCosign(network.dir, Number(process.env.BENCH_COSIGN_ROUNDS ?? 60));
    const seconds = Number(process.env.BENCH_OPEN_SECONDS ?? 15);
    const opens = await measureOpens(network.dir, seconds, (app) => guardiansReading(network, app));
    return { figures: [cosign.figure, opens.figure], lines: [...cosign.lines, ...opens.lines] };
  } finally {
    await network.close();
  }
}
