// GET /api/network: the guardian set this server coordinates and each guardian's
// health, for the /network page. The set is read from `guardian-set.json` in GUARDIAN_DIR, after a
// rotation with each older set still live (`guardian-set-v<N>.json`, set-chain.ts), and the chain
// verified (every member's signature, the FROST commitments, each handover) on every read; each
// member's own `/v1/health` is asked once, in parallel, with a short time-out and a size cap, and
// the answer waits for the first t plus a short grace, not for a frozen guardian.
//
// The route is public, so an unauthenticated caller must not be able to make this server hammer
// the guardians: an answer is kept for `cacheMs`, and concurrent callers share one read in flight.
// A failed read (no set yet, a tampered set) is kept just as long.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import {
  fanOut,
  readPublic,
  readStopped,
  verifySet,
  type GuardianSet,
  type Member,
} from '@unit/guardian-net';
import type {
  GuardianNetworkDto,
  NetworkExclusionDto,
  NetworkGuardianDto,
  NetworkValidatorDto,
} from '@unit/protocol/wire';
import type { GuardianNetworkConfig } from '../config';
import { DomainError } from '../errors';
import { signingSets } from '../network-client/set-chain';
import { setHistory } from './network-history';
import { tableRoute } from './table-route';

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
  /** the guardians last left out of a signing (network-client/exclusion-log.ts) */
  recentExclusions?: () => NetworkExclusionDto[];
  /** the configured open validators and whether each agrees (validator-agreement.ts) */
  validators?: () => Promise<NetworkValidatorDto[]>;
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

/** What GET /api/network says of a guardian the local network no longer restarts. */
export const STOPPED =
  "Stopped: its starts kept failing, so it is not restarted. The server's log says why; its operator restores its directory from backup and restarts the network.";

/** The first 8 bytes of a guardian's identity key, hex. */
export const fingerprintOf = (identityKey: string) => identityKey.slice(0, 16).toLowerCase();

/** One member's health; throws when it does not answer, or not as itself. */
async function healthOf(member: Member, signal: AbortSignal, timeoutMs: number): Promise<Health> {
  // Over https the guardian's certificate must be bound to the member's identity key (public-read).
  const res = await readPublic(member, '/v1/health', {
    timeoutMs,
    maxBytes: HEALTH_MAX_BYTES,
    signal,
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const health = healthSchema.parse(res.body);
  // Whatever listens at the URL must be that member: the set names its identity key.
  if (health.identityKey.toLowerCase() !== member.identityKey) throw new Error('another key');
  return health;
}

/**
 * Every member of every set asked once (a guardian in several sets by its URL and key), all at
 * once: the first t healthy answers plus a short grace (fan-out.ts), so a frozen guardian costs
 * the grace, and is listed as not answering.
 */
async function healthOfAll(
  sets: GuardianSet[],
  timeoutMs: number,
): Promise<(m: Member) => Health | null> {
  const keyOf = (m: Member) => `${m.url} ${m.identityKey}`;
  const unique = new Map(sets.flatMap((s) => s.members.map((m) => [keyOf(m), m] as const)));
  const members = [...unique.values()];
  const ask = (m: Member, signal: AbortSignal) => healthOf(m, signal, timeoutMs);
  const answers = await fanOut(members, ask, { need: sets[0]!.t, timeoutMs });
  const byKey = new Map(members.map((m, i) => [keyOf(m), answers[i]!] as const));
  return (m) => {
    const a = byKey.get(keyOf(m));
    return a?.ok ? a.value : null;
  };
}

function guardianDto(
  member: Member,
  health: Health | null,
  stopped: string | null,
): NetworkGuardianDto {
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
    stopped,
  };
}

/** An older set still live after a rotation: `guardian-set-v<N>.json` (set-chain.ts's layout). */
const OLDER_SET_FILE = /^guardian-set-v([1-9][0-9]{0,9})\.json$/;

/** A set file's text and when it was last written (unix seconds). */
async function readSetFile(file: string): Promise<{ text: string; at: number }> {
  try {
    const st = await stat(file);
    if (st.size > SET_MAX_BYTES)
      throw new DomainError('not_configured', 'The published guardian set is too large to read');
    return { text: await readFile(file, 'utf8'), at: Math.floor(st.mtimeMs / 1000) };
  } catch (e) {
    if (e instanceof DomainError) throw e;
    throw new DomainError('not_configured', 'The guardian network has not published its set yet');
  }
}

/**
 * Every published set, oldest first, checked link by link as the server loads them at start, with
 * when each file was written.
 */
async function readPublishedSets(dir: string): Promise<{ sets: GuardianSet[]; at: number[] }> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const older = names
    .map((name) => ({ name, m: OLDER_SET_FILE.exec(name) }))
    .filter((f) => f.m)
    .sort((a, b) => Number(a.m![1]) - Number(b.m![1]));
  const newest = await readSetFile(path.join(dir, 'guardian-set.json'));
  const olderRaws = await Promise.all(older.map((f) => readSetFile(path.join(dir, f.name))));
  const sets: GuardianSet[] = [];
  try {
    // From the second on, each names the one before it and carries its handover.
    for (const { text } of [...olderRaws, newest]) {
      const previous = sets.at(-1);
      sets.push(verifySet(JSON.parse(text), previous && { previous }));
    }
    return { sets, at: [...olderRaws, newest].map((f) => f.at) };
  } catch (e) {
    // A set that fails its signatures is never shown as if it were the network's.
    throw new DomainError(
      'not_configured',
      `The published guardian set does not verify: ${(e as Error).message}`,
    );
  }
}

/**
 * One set's members with their health. `stopped`: the guardians the local network no longer
 * restarts (by id in the newest set), with why.
 */
function setMembers(
  set: GuardianSet,
  isCurrent: boolean,
  healthOf: (m: Member) => Health | null,
  stopped: ReadonlyMap<number, string>,
): NetworkGuardianDto[] {
  return set.members.map((m) => {
    const health = healthOf(m);
    // A guardian answers with its id in the newest set it holds; in an older one its key names it.
    const own = health && (!isCurrent || health.id === m.id) ? health : null;
    return guardianDto(m, own, (isCurrent && !own && stopped.get(m.id)) || null);
  });
}

/** The sets and every member's health, read now: the newest set on top, older ones in `older_sets`. */
export async function readNetwork(
  dir: string,
  healthTimeoutMs = HEALTH_TIMEOUT_MS,
): Promise<GuardianNetworkDto> {
  // A set a resharing replaced (same key) signs nothing any more: it is not shown as live.
  const chain = await readPublishedSets(dir);
  const sets = signingSets(chain.sets).reverse();
  const live = new Set(sets.map((s) => s.version));
  const at = new Map(chain.sets.map((s, i) => [s.version, chain.at[i] ?? null]));
  const history = setHistory(
    chain.sets,
    (v) => at.get(v) ?? null,
    (v) => live.has(v),
  );
  const health = await healthOfAll(sets, healthTimeoutMs);
  // `guardian local` records the guardians it gave up restarting (guardian-net local-stopped.ts);
  // the route is public, so it says that much, and the server's log says why (paths, errors).
  const stopped = new Map(readStopped(dir).map((e) => [e.guardian, STOPPED]));
  const [set, ...older] = sets.map((s, i) => ({
    s,
    members: setMembers(s, i === 0, health, stopped),
  }));
  return {
    enabled: true,
    scheme: NETWORK_SCHEME,
    threshold: set!.s.t,
    size: set!.s.n,
    set_version: set!.s.version,
    group_key: set!.s.groupKey ?? '',
    guardians: set!.members,
    older_sets: older.map(({ s, members }) => ({
      set_version: s.version,
      threshold: s.t,
      size: s.n,
      group_key: s.groupKey ?? '',
      guardians: members,
    })),
    recent_exclusions: [],
    history,
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
  older_sets: [],
  recent_exclusions: [],
  history: [],
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
  // The exclusions are this process's own, read on every answer (the health read is cached).
  const exclusions = options.recentExclusions ?? (() => []);
  const validators = options.validators;
  tableRoute(app, 'network', async (): Promise<GuardianNetworkDto> => {
    const [read, agreement] = await Promise.all([network(), validators?.()]);
    return {
      ...read,
      recent_exclusions: exclusions(),
      ...(agreement?.length ? { validators: agreement } : {}),
    };
  });
}
