// What the public /health route shows of a guardian (the /network page reads it): its seat, state,
// sets, price and last signature, nothing secret.
import type { SigningRounds } from './signing-rounds';
import type { GuardianSet } from './guardian-set';

export interface HealthFacts {
  id: number;
  name: string | undefined;
  state: 'ready' | 'dkg' | 'reshare' | 'waiting';
  setVersion: number | null;
  current: GuardianSet | undefined;
  installed: Map<number, { signing: SigningRounds }>;
  rotatingTo: number | null;
  identityKey: string;
  version: string;
  startedAt: number;
  price: Record<string, unknown>;
  oracleStatementsSigned: number;
  publicRequestsLimited: number;
  signedBefore: number | null;
}

export function guardianHealth(f: HealthFacts): Record<string, unknown> {
  return {
    id: f.id || null,
    name: f.name,
    state: f.state,
    setVersion: f.setVersion,
    groupKey: f.current?.groupKey ?? null,
    /** every set version it signs for (old sets until they retire) */
    sets: [...f.installed.keys()].sort((a, b) => a - b),
    rotatingTo: f.rotatingTo,
    identityKey: f.identityKey,
    version: f.version,
    uptimeMs: Date.now() - f.startedAt,
    ...f.price,
    oracleStatementsSigned: f.oracleStatementsSigned,
    publicRequestsLimited: f.publicRequestsLimited,
    lastSignatureAt:
      Math.max(
        f.signedBefore ?? 0,
        ...[...f.installed.values()].map((i) => i.signing.lastShareAt ?? 0),
      ) || null,
  };
}
