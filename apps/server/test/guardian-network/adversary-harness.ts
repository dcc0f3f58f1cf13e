// The adversary test's world: `guardian dkg`, the real app coordinating the set (GUARDIAN_NETWORK
// external) on its devnet, and each guardian as its own process: honest ones with `--policy vault`
// (their own chain view and price, read from the app's public routes), or the malicious/crashing
// fixture (packages/guardian-net/test/fixtures/evil-guardian.ts) holding the same guardian's real
// share. Each guardian is reached through a TCP relay at the URL the set lists (it listens on a
// port of its own behind it), so a test can hold its link back for a while as the guardian keeps
// running. Plus what the tests read back: each guardian's nonce rows, the chain's verdict on a
// transaction, and the flow harness's wallets.
import { expect } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hex } from '@scure/base';
import { progressNotificationSchema, type ProgressNotification } from '@unit/protocol/wire';
import type { GuardianSet } from '@unit/guardian-net';
import type { RpcContext } from '../../src/rpc/json-rpc';
import { startTestApp, type RunningApp } from '../support';
import { dropSchema, type Harness } from '../guardian/harness';
import { guardianNonceRows, type NonceRow } from './guardian-stores';
import {
  appHarness,
  quorumAt,
  startGuardianNetwork,
  type TestGuardianNetwork,
} from './signer-harness';
import { Relay } from '../../../../packages/guardian-net/test/relay';
import {
  CLI,
  EVIL,
  freePorts,
  kill9,
  readGuardian,
  run,
  waitHealthy,
  type Proc,
} from '../../../../packages/guardian-net/test/harness';

export type EvilMode =
  | 'bad-share'
  | 'replay-nonce'
  | 'crash-at-decision'
  | 'crash-after-commit'
  | 'crash-at-share'
  | 'equivocate';

export type { NonceRow } from './guardian-stores';

export interface World {
  app: RunningApp;
  network: TestGuardianNetwork;
  set: GuardianSet;
  groupKey: Uint8Array;
  h: Harness;
  gdir(id: number): string;
  url(id: number): string;
  /** An honest guardian `id` (`--policy vault`), once it has its own fresh price. */
  honest(id: number): Promise<void>;
  /**
   * The fixture in `mode` as guardian `id`, with that guardian's real share and its own price
   * feeds; with `needPrice` (a liquidation's decision needs it), once that price is fresh.
   */
  evil(id: number, mode: EvilMode, needPrice?: boolean): Promise<void>;
  /** kill -9 of guardian `id` (whichever process it is), waiting until it is gone. */
  kill(id: number): Promise<void>;
  /** Whether guardian `id`'s process has exited (a fixture that killed itself). */
  exited(id: number): boolean;
  /** Settles when guardian `id`'s present process exits. */
  gone(id: number): Promise<unknown>;
  pid(id: number): number;
  /**
   * Holds back every byte to and from guardian `id` (its relay), until `resume` delivers them:
   * it decides nothing meanwhile, while its own price reads go on, unlike a stopped process
   * whose reads time out the moment it runs again.
   */
  pause(id: number): void;
  resume(id: number): void;
  nonces(id: number): Promise<NonceRow[]>;
  close(): Promise<void>;
}

/** Every vault.progress notification of one request, checked against the wire's schema. */
export function progressRecorder(
  onProgress?: (p: ProgressNotification) => void,
): RpcContext & { progress: ProgressNotification[] } {
  const progress: ProgressNotification[] = [];
  return {
    progress,
    notify: (method, params) => {
      if (method !== 'vault.progress') return;
      const p = progressNotificationSchema.parse(params);
      progress.push(p);
      onProgress?.(p);
    },
  };
}

export const lastApprovals = (ctx: { progress: ProgressNotification[] }) =>
  ctx.progress.filter((p) => p.approvals).at(-1)?.approvals;

/** Until each of `ids` signs `cents` as its own latest price (read from the app every 500 ms). */
export async function guardiansSee(w: World, ids: number[], cents: number): Promise<void> {
  const priceOf = async (id: number) => {
    const res = await readGuardian(w.set.members[id - 1]!, '/v1/health', 2_000);
    // A restarted guardian shows its stored last price until it reads afresh: fresh ones only.
    const body = res.body as {
      lastPrice?: { priceCents: number } | null;
      priceFresh?: boolean;
    };
    return body.priceFresh ? body.lastPrice : null;
  };
  for (const id of ids)
    await expect.poll(async () => (await priceOf(id))?.priceCents, { timeout: 15_000 }).toBe(cents);
  // The app's quotes are the guardians' quorum: at their price from now on.
  await quorumAt(w.app, cents);
}

export { chainVerdict } from './signer-harness';

/** Guardians 1..3 of a 2-of-3 set, honest unless `evil` names them with the fixture's mode. */
export async function startWorld(
  evil: Record<number, EvilMode> = {},
  appEnv: Record<string, string> = {},
): Promise<World> {
  // On PostgreSQL (FLOW_DATABASE_URL) each guardian's own store is there too, a database each.
  const flowPg = process.env.FLOW_DATABASE_URL;
  const network = await startGuardianNetwork({
    policy: 'vault',
    start: false,
    ...(flowPg ? { databaseUrl: flowPg } : {}),
  });
  const set = JSON.parse(
    readFileSync(join(network.dir, 'guardian-set.json'), 'utf8'),
  ) as GuardianSet;
  const groupKey = hex.decode(set.groupKey!);
  // On PostgreSQL when the test script sets FLOW_DATABASE_URL (as the guardian flow suite), in a
  // fresh schema: the races the network tests cover then truly interleave.
  const schema = `network_${randomBytes(6).toString('hex')}`;
  const app = await startTestApp(
    {
      GUARDIAN_NETWORK: 'external',
      GUARDIAN_DIR: network.dir,
      ...(flowPg ? { DATABASE_URL: flowPg } : {}),
      ...appEnv,
    },
    flowPg ? { databaseSchema: schema } : {},
  );
  const procs = new Map<number, Proc>();
  const gdir = (id: number) => join(network.dir, `guardian-${id}`);
  const url = (id: number) => set.members[id - 1]!.url;
  const listenBase = await freePorts(3);
  const port = (id: number) => String(listenBase + id - 1);
  const relays = new Map<number, Relay>();
  for (const m of set.members)
    relays.set(m.id, new Relay({ port: Number(new URL(m.url).port), target: listenBase + m.id - 1 })); // prettier-ignore
  const flags = ['--chain', `${app.url}/esplora`, '--app', app.url, '--network', 'devnet'];
  const feeds = ['--feeds', `devnet@${app.url}`, '--price-tick', '500'];
  const up = async (id: number, proc: Proc, needPrice = true) => {
    procs.set(id, proc);
    // Its relay listens while it runs: a caller of a stopped guardian is refused (ECONNREFUSED).
    const relay = relays.get(id)!;
    await relay.listen();
    void proc.exited.then(() => relay.close());
    const deadline = Date.now() + 45_000;
    while (!(await waitHealthy(set.members[id - 1]!, 45_000)).priceFresh && needPrice) {
      if (Date.now() > deadline) throw new Error(`guardian ${id}: no price\n${proc.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The app's quotes are the guardians' quorum: one that counts this guardian again, if honest.
    if (needPrice) await quorumAt(app);
  };
  const world: World = {
    app,
    network,
    set,
    groupKey,
    h: appHarness(app, groupKey),
    gdir,
    url,
    honest: (id) =>
      up(
        id,
        run(
          CLI,
          ['start', '--id', String(id), '--dir', gdir(id), '--port', port(id)].concat([
            '--policy',
            'vault',
            ...flags,
            ...feeds,
          ]),
        ),
      ),
    evil: (id, mode, needPrice = false) =>
      up(
        id,
        run(EVIL, [
          '--id',
          String(id),
          '--dir',
          gdir(id),
          '--port',
          port(id),
          '--mode',
          mode,
          ...feeds,
        ]),
        needPrice,
      ),
    kill: async (id) => {
      const proc = procs.get(id);
      procs.delete(id);
      if (proc && proc.child.exitCode === null && proc.child.signalCode === null) await kill9(proc);
      else if (proc) await proc.exited;
    },
    exited: (id) => {
      const proc = procs.get(id);
      return !proc || proc.child.exitCode !== null || proc.child.signalCode !== null;
    },
    gone: (id) => procs.get(id)!.exited,
    pid: (id) => procs.get(id)!.child.pid!,
    pause: (id) => relays.get(id)!.hold(),
    resume: (id) => relays.get(id)!.release(),
    nonces: (id) => guardianNonceRows(gdir(id), network.databaseUrls?.[id - 1]),
    close: async () => {
      await Promise.all([...procs.keys()].map((id) => world.kill(id)));
      await Promise.all([...relays.values()].map((r) => r.close()));
      await app.stop();
      if (flowPg) await dropSchema(flowPg, schema);
      await network.close();
    },
  };
  try {
    await Promise.all(
      [1, 2, 3].map((id) => (evil[id] ? world.evil(id, evil[id]) : world.honest(id))),
    );
  } catch (error) {
    await world.close();
    throw error;
  }
  return world;
}
