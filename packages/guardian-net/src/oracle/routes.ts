// A guardian's oracle routes, public (like /v1/price): what they serve is either public already or
// revealed on purpose.
// - GET /v1/oracle/hash?th=&ts=: its hash160 of the threshold secret of (th, ts), as a statement
//   signed by its identity key (threshold-oracle.ts): what a vault's liquidation leaf commits to.
// - GET /v1/oracle/secret?th=&ts=: the secret itself, only while this guardian's own fresh price is
//   at or under th (th 0, a vault without debt: never); otherwise 403 `not-revealed` with why. The
//   secret opens one liquidation leaf, which still needs the group's signature: t guardians, each
//   on its own price.
import type { IncomingMessage } from 'node:http';
import { bytesToHex } from '../canonical';
import type { GuardianSet } from '../guardian-set';
import type { ValidatorEnv } from '../signing-rounds';
import type { OwnPrice } from '../price/own-price';
import { ThresholdOracle } from './threshold-oracle';

export const ORACLE_HASH_PATH = '/v1/oracle/hash';
export const ORACLE_SECRET_PATH = '/v1/oracle/secret';

export interface OracleRouteDeps {
  guardian: number;
  oracle: ThresholdOracle;
  setVersion: () => number;
  ownPrice: () => OwnPrice | null;
}

type Send = (status: number, json: unknown) => void;

const usd = (cents: number) =>
  `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** (th, ts) from the query: non-negative integers, th a u64 within safe range, ts a u32. */
function thresholdOf(url: URL): { th: number; ts: number } | null {
  const th = Number(url.searchParams.get('th') ?? '');
  const ts = Number(url.searchParams.get('ts') ?? '');
  if (!/^\d{1,16}$/.test(url.searchParams.get('th') ?? '')) return null;
  if (!/^\d{1,10}$/.test(url.searchParams.get('ts') ?? '')) return null;
  if (!Number.isSafeInteger(th) || ts > 0xffff_ffff) return null;
  return { th, ts };
}

/** Why this guardian does not reveal the secret of threshold th now, or null when it does. */
export function revealRefusal(th: number, own: OwnPrice | null): string | null {
  if (th <= 0) return 'a vault without debt (threshold 0) has no liquidation: never revealed';
  if (!own) return 'this guardian has no price feeds';
  if (!own.fresh) return `this guardian has no fresh price (${own.reason})`;
  if (own.price.priceCents > th)
    return `this guardian's price ${usd(own.price.priceCents)} is above the threshold ${usd(th)}`;
  return null;
}

/** Answers the request when it is one of the oracle routes; false otherwise. */
export function oracleRoute(deps: OracleRouteDeps, req: IncomingMessage, send: Send): boolean {
  if (req.method !== 'GET' || !req.url) return false;
  const url = new URL(req.url, 'http://guardian');
  if (url.pathname !== ORACLE_HASH_PATH && url.pathname !== ORACLE_SECRET_PATH) return false;
  const q = thresholdOf(url);
  if (!q) {
    send(400, { error: { code: 'malformed', message: 'th and ts must be non-negative integers' } });
    return true;
  }
  if (url.pathname === ORACLE_HASH_PATH) {
    send(200, deps.oracle.statement(deps.setVersion(), q.th, q.ts));
    return true;
  }
  const refusal = revealRefusal(q.th, deps.ownPrice());
  if (refusal) send(403, { error: { code: 'not-revealed', message: refusal } });
  else
    send(200, {
      guardian: deps.guardian,
      th: q.th,
      ts: q.ts,
      secret: bytesToHex(deps.oracle.thresholdSecret(q.th, q.ts)),
    });
  return true;
}

/** What a node tells its oracle, read at each use (the set version and price move). */
export interface NodeFacts {
  id: number;
  dir: string;
  identitySecret: Uint8Array;
  setVersion: number;
  ownPrice: OwnPrice | null;
}

/**
 * A node's oracle: its secret file (made at its first use, and by `guardian start` before the node
 * listens), its routes, and what its policy sees of it.
 */
export class NodeOracle {
  private made?: ThresholdOracle;

  constructor(private readonly facts: () => NodeFacts) {}

  private get oracle(): ThresholdOracle {
    if (!this.made) {
      const { id, dir } = this.facts();
      const identitySecret = () => this.facts().identitySecret;
      this.made = new ThresholdOracle({ dir, guardian: id, identitySecret });
    }
    return this.made;
  }

  /** Statements signed since start: a repeated (set, th, ts) is answered from the cache. */
  get signed(): number {
    return this.made?.signed ?? 0;
  }

  route(req: IncomingMessage, send: Send): boolean {
    const deps: OracleRouteDeps = {
      guardian: this.facts().id,
      oracle: this.oracle,
      setVersion: () => this.facts().setVersion,
      ownPrice: () => this.facts().ownPrice,
    };
    return oracleRoute(deps, req, send);
  }

  /** The policy's environment for a session of `set`: its group key, own price and oracle. */
  env(set: GuardianSet, ownPrice: OwnPrice | null): ValidatorEnv {
    return { groupKey: set.groupKey ?? '', ownPrice, oracle: { set, oracle: this.oracle } };
  }
}
