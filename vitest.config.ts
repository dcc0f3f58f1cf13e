import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that wait longest (real guardian processes, restarts, a server's own local network,
 * delayed links): minutes each, mostly spent waiting. Vitest's own order puts a run's files
 * project by project in alphabetical order and, on a clean clone with no timings kept, the larger
 * files first, so these small files started near the end of the run and drew it out while the other
 * worker had nothing left. They start first, and the short files fill the other worker around them.
 */
const LONGEST_FIRST: [project: string, file: string][] = [
  ['server-network', 'apps/server/test/guardian-network/kill-every-flow.test.ts'],
  ['server-network', 'apps/server/test/guardian-network/local-network.test.ts'],
  ['server-flows-postgres', 'apps/server/test/guardian-network/kill-every-flow.test.ts'],
  ['server-network', 'apps/server/test/guardian-network/distance.test.ts'],
  ['server-network', 'apps/server/test/guardian-network/link-capture.test.ts'],
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex(
        ([project, file]) => spec.project.name === project && spec.moduleId.endsWith(`/${file}`),
      );
      return at < 0 ? LONGEST_FIRST.length : at;
    };
    // Array.prototype.sort is stable: the rest keep Vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

// One Vitest run covers every workspace; each project keeps its own environment.
// The browser journeys in e2e/ run under Playwright, not here. With TEST_DATABASE_URL set
// (scripts/ensure-postgres.sh), the guardian flow suite runs a second time on PostgreSQL.
export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    projects: [
      'packages/protocol',
      'packages/bitcoin',
      'packages/guardian-net',
      'apps/server',
      'apps/server/vitest.network.config.ts',
      'apps/web',
      'apps/web/vitest.logic.config.ts',
      'apps/web/vitest.app.config.ts',
      ...(process.env.TEST_DATABASE_URL ? ['apps/server/vitest.flows-postgres.config.ts'] : []),
    ],
  },
});
