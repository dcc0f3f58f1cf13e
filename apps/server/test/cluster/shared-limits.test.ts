// Limits across instances on one PostgreSQL: two instances of the real app count a client's writes
// and an address's guardian calls together (http/shared-rate-limits.ts), so a balancer spreading
// requests over them does not multiply the limit. Runs when TEST_DATABASE_URL is set, like the other PostgreSQL suites.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodeOf, type ApiErrorDto } from '@unit/protocol';
import { postJson, type RunningApp } from '../support';
import { dropSchema, newSchema, pgUrl, rpc, startInstance } from './instances';

const LIMIT = 3;
const LIMITS = { writeLimitPerMinute: LIMIT, guardianLimits: { callsPerAddress: LIMIT } };

/** The error code of a guardian call, or 'ok'. */
async function callCode(unit: RunningApp): Promise<string> {
  try {
    // a valid call for a vault that does not exist: refused by the guardian, counted all the same
    await rpc(unit, 'unit.reserve', {
      unit_amount: 100,
      vault_action: 'repay',
      vault_pubkey: '11'.repeat(32),
    });
    return 'ok';
  } catch (error) {
    return errorCodeOf(error) ?? '?';
  }
}

/** Waits out the end of a minute, so the requests of a test fall in one fixed window. */
async function awayFromWindowEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

describe.runIf(pgUrl)('write limits shared by two instances', () => {
  const schema = newSchema('limits');
  let a: RunningApp;
  let b: RunningApp;

  beforeAll(async () => {
    [a, b] = await Promise.all([
      startInstance(schema, {}, LIMITS),
      startInstance(schema, {}, LIMITS),
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await dropSchema(schema);
  });

  it("refuses the client's fourth write of a minute on whichever instance it reaches", async () => {
    await awayFromWindowEnd();
    // Refused bodies count: the limit runs before the body is read.
    const statuses: number[] = [];
    for (const unit of [a, b, a]) {
      statuses.push((await postJson(`${unit.url}/api/client-errors`, {})).status);
    }
    expect(statuses).toEqual([400, 400, 400]);
    const refused = await postJson(`${b.url}/api/client-errors`, {});
    expect(refused.status).toBe(429);
    expect((refused.body as ApiErrorDto).code).toBe('rate_limited');
    expect((await postJson(`${a.url}/api/client-errors`, {})).status).toBe(429);

    // Each route keeps its own count, as in one instance.
    expect((await postJson(`${b.url}/api/auth/challenge`, {})).status).toBe(400);
  });

  it("refuses an address's fourth guardian call of a minute across the two instances", async () => {
    await awayFromWindowEnd();
    const codes: string[] = [];
    for (const unit of [a, b, a, b]) codes.push(await callCode(unit));
    expect(codes.slice(0, 3)).not.toContain('rate_limited');
    expect(codes[3]).toBe('rate_limited');
  });
});
