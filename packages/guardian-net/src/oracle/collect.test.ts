import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdentity } from '../identity';
import type { GuardianSetBody } from '../guardian-set';
import { collectOracleHashes, OracleUnavailableError } from './collect';
import { ThresholdOracle, type OracleHashStatement } from './threshold-oracle';

/** Stand-in guardians: each answers /v1/oracle/hash as `behave` says. */
type Behaviour = 'honest' | 'hang' | 'another' | 'garbage';
const dir = mkdtempSync(join(tmpdir(), 'oracle-collect-'));
const ids = [1, 2, 3].map(() => newIdentity());
const oracles = ids.map(
  (id, i) =>
    new ThresholdOracle({
      dir: mkdtempSync(join(dir, 'g')),
      guardian: i + 1,
      identitySecret: () => id.secretKey,
    }),
);
const behave: Behaviour[] = ['honest', 'honest', 'honest'];
const servers: Server[] = [];
let set: Pick<GuardianSetBody, 'members' | 'version' | 't'>;

beforeAll(async () => {
  const urls: string[] = [];
  for (let i = 0; i < 3; i++) {
    const server = createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      const th = Number(url.searchParams.get('th'));
      const ts = Number(url.searchParams.get('ts'));
      const b = behave[i]!;
      if (b === 'hang') return;
      let body: OracleHashStatement | string = oracles[i]!.statement(1, th, ts);
      if (b === 'another') body = oracles[(i + 1) % 3]!.statement(1, th, ts);
      if (b === 'garbage') body = 'x'.repeat(10_000);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    servers.push(server);
    const addr = server.address() as { port: number };
    urls.push(`http://127.0.0.1:${addr.port}`);
  }
  set = {
    version: 1,
    t: 2,
    members: ids.map((id, i) => ({
      id: i + 1,
      name: `guardian-${i + 1}`,
      identityKey: id.publicKey,
      url: urls[i]!,
    })),
  };
});
afterAll(() => {
  servers.forEach((s) => s.closeAllConnections());
  servers.forEach((s) => s.close());
  rmSync(dir, { recursive: true, force: true });
});

describe("the coordinator's collection of the oracles' hashes", () => {
  it('takes all three in id order when all answer', async () => {
    behave.splice(0, 3, 'honest', 'honest', 'honest');
    const c = await collectOracleHashes(set, 8_000_000, 1_700_000_000);
    expect(c.statements.map((s) => s.guardian)).toEqual([1, 2, 3]);
    expect(c.hashes[1]).toBe(oracles[1]!.statement(1, 8_000_000, 1_700_000_000).hash);
  });

  it('leaves out a guardian that holds its connection, after a short grace, not the time-out', async () => {
    behave.splice(0, 3, 'honest', 'hang', 'honest');
    const started = Date.now();
    const c = await collectOracleHashes(set, 8_000_000, 1_700_000_001, 3_000, 300);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(c.statements.map((s) => s.guardian)).toEqual([1, 3]);
  });

  it("leaves out another guardian's statement and garbage; fewer than t is an error naming each", async () => {
    behave.splice(0, 3, 'another', 'honest', 'garbage');
    const error = await collectOracleHashes(set, 8_000_000, 1_700_000_002).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OracleUnavailableError);
    expect((error as Error).message).toMatch(
      /at least 2 guardians, 1 gave one: guardian-1: answered as guardian 2; guardian-3: answer too large/,
    );
  });
});
