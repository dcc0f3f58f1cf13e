// GET /api/network (issue 20, item 6): the guardian set this server coordinates and each guardian's
// health, for the /network page. The set is read from `guardian-set.json` in GUARDIAN_DIR and
// verified (every member's signature, the FROST commitments) on every read; each member's own
// `/v1/health` is asked in parallel with a short time-out and a size cap.
//
// The route is public, so an unauthenticated caller must not be able to make this server hammer
// the guardians: an answer is kept for `cacheMs`, and concurrent callers share one read in flight.
// A failed read (no set yet, a tampered set) is kept just as long.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { readCapped, verifySet, type GuardianSet, type Member } from '@unit/guardian-net';
import type { GuardianNetworkDto, NetworkGuardianDto } from '@unit/protocol/wire';
import type { GuardianNetworkConfig } from '../config';
import { DomainError } from '../errors';

export const NETWORK_SCHEME = 'FROST (RFC 9591, secp256k1, BIP-340)' as const;
/** How long one answer is served before the guardians are asked again. */
export const NETWORK_CACHE_MS = 5_000;
/** Each guardian's /v1/health must answer within this. */
export const HEALTH_TIMEOUT_MS = 2_000;
/** A health answer is a few hundred bytes; a larger body is not read past this. */
export const HEALTH_MAX_BYTES = 16 * 1024;
/** A published set of 15 members is about 10 KB; a file over this is refused unread. */
const SET_MAX_BYTES = 256 * 1024;

export interface NetworkRouteOptions {
  cacheMs?: number;
  healthTimeoutMs?: number;
}

/** The fields of a guardian's /v1/health this page shows (packages/guardian-net/src/node.ts). */
const healthSchema = z.object({
  id: z.number().int(),
  identityKey: z.string(),
  version: z.string().max(100).nullish(),
  uptimeMs: z.number().nonnegative().nullish(),
  lastPrice: z
    .object({ priceCents: z.number().int().nonnegative(), time: z.number().int().nonnegative() })
    .nullish(),
  /** milliseconds since the epoch (Date.now() when it last gave a share), or null */
  lastSignatureAt: z.number().nonnegative().nullish(),
});
type Health = z.infer<typeof healthSchema>;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The first 8 bytes of a guardian's identity key, hex. */
export const fingerprintOf = (identityKey: string) => identityKey.slice(0, 16).toLowerCase();

/** One member's health, or null when it did not answer in time, or not as itself. */
async function healthOf(member: Member, timeoutMs: number): Promise<Health | null> {
  try {
    const res = await fetch(new URL('/v1/health', member.url), {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    if (!res.ok) {
      await res.body?.cancel();
      return null;
    }
    const health = healthSchema.parse(JSON.parse(await readCapped(res, HEALTH_MAX_BYTES)));
    // Whatever listens at the URL must be that member: the set names its identity key.
    if (health.id !== member.id || health.identityKey.toLowerCase() !== member.identityKey)
      return null;
    return health;
  } catch {
    return null;
  }
}

function guardianDto(member: Member, health: Health | null): NetworkGuardianDto {
  return {
    id: member.id,
    name: member.name,
    fingerprint: fingerprintOf(member.identityKey),
    online: health !== null,
    last_price: health?.lastPrice
      ? { cents: health.lastPrice.priceCents, time: health.lastPrice.time }
      : null,
    last_signature_at:
      health?.lastSignatureAt != null ? Math.floor(health.lastSignatureAt / 1000) : null,
    version: health?.version ?? null,
    uptime_seconds: health?.uptimeMs != null ? Math.floor(health.uptimeMs / 1000) : null,
  };
}

async function readPublishedSet(dir: string): Promise<GuardianSet> {
  const file = path.join(dir, 'guardian-set.json');
  let text: string;
  try {
    if ((await stat(file)).size > SET_MAX_BYTES)
      throw new DomainError('not_configured', 'The published guardian set is too large to read');
    text = await readFile(file, 'utf8');
  } catch (e) {
    if (e instanceof DomainError) throw e;
    throw new DomainError('not_configured', 'The guardian network has not published its set yet');
  }
  try {
    return verifySet(JSON.parse(text));
  } catch (e) {
    // A set that fails its signatures is never shown as if it were the network's.
    throw new DomainError(
      'not_configured',
      `The published guardian set does not verify: ${(e as Error).message}`,
    );
  }
}

/** The set and every member's health, read now. */
export async function readNetwork(
  dir: string,
  healthTimeoutMs = HEALTH_TIMEOUT_MS,
): Promise<GuardianNetworkDto> {
  const set = await readPublishedSet(dir);
  const healths = await Promise.all(set.members.map((m) => healthOf(m, healthTimeoutMs)));
  return {
    enabled: true,
    scheme: NETWORK_SCHEME,
    threshold: set.t,
    size: set.n,
    set_version: set.version,
    group_key: set.groupKey ?? '',
    guardians: set.members.map((m, i) => guardianDto(m, healths[i] ?? null)),
    checked_at: nowSeconds(),
  };
}

/**
 * With the network off this server signs alone: one guardian key, 1 of 1, and no set (version 0).
 * No guardian is listed, since no separate guardian process exists to report on.
 */
export const soloNetwork = (guardPubkey: string): GuardianNetworkDto => ({
  enabled: false,
  scheme: NETWORK_SCHEME,
  threshold: 1,
  size: 1,
  set_version: 0,
  group_key: guardPubkey,
  guardians: [],
  checked_at: nowSeconds(),
});

type Outcome = { ok: true; value: GuardianNetworkDto } | { ok: false; error: unknown };

/** `read`, at most once per `cacheMs`, one read in flight shared by every caller. */
export function cachedReader(
  read: () => Promise<GuardianNetworkDto>,
  cacheMs: number,
): () => Promise<GuardianNetworkDto> {
  let kept: { at: number; outcome: Outcome } | null = null;
  let inFlight: Promise<Outcome> | null = null;
  const settle = (outcome: Outcome) => {
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  };
  return async () => {
    if (kept && Date.now() - kept.at < cacheMs) return settle(kept.outcome);
    inFlight ??= read()
      .then(
        (value): Outcome => ({ ok: true, value }),
        (error: unknown): Outcome => ({ ok: false, error }),
      )
      .then((outcome) => {
        kept = { at: Date.now(), outcome };
        inFlight = null;
        return outcome;
      });
    return settle(await inFlight);
  };
}

/** `guardPubkey`: the single guardian's x-only key, the group key shown when the network is off. */
export function registerNetworkRoutes(
  app: FastifyInstance,
  guardianNetwork: GuardianNetworkConfig,
  guardPubkey: string,
  options: NetworkRouteOptions = {},
): void {
  const timeoutMs = options.healthTimeoutMs ?? HEALTH_TIMEOUT_MS;
  const network =
    guardianNetwork.mode === 'off'
      ? async () => soloNetwork(guardPubkey)
      : cachedReader(
          () => readNetwork(guardianNetwork.dir, timeoutMs),
          options.cacheMs ?? NETWORK_CACHE_MS,
        );
  app.get('/api/network', async (): Promise<GuardianNetworkDto> => network());
}
