// A guardian's public routes (every one but the signed messages): its health, its set, its last
// signed price and its oracle's routes. Each costs its caller a token of a per-address bucket
// (bounded.ts): past it, 429 with Retry-After, before any work. Nothing here reads the exchanges:
// a fresh price is only at a coordinator's signed `price/fresh` message (node.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AddressRateLimiter, PUBLIC_RATE_LIMIT, type RateLimit } from './bounded';
import type { GuardianSet } from './guardian-set';
import type { NodeOracle } from './oracle/routes';
import { priceAnswer, type OwnPriceOracle } from './price/own-price';
import { FRESH_PRICE_MESSAGE, PRICE_PATH } from './price/quorum';
import { KEPT_PRICES_PATH, readKeptQuorum } from './price/kept-prices';

export interface PublicRouteDeps {
  limit?: RateLimit;
  health: () => Record<string, unknown>;
  oracle: NodeOracle;
  /** its newest set, once it has one */
  set: () => GuardianSet | undefined;
  price: OwnPriceOracle | undefined;
  /** its directory: the signed prices of each quorum it approved (price/kept-prices.ts) */
  dir: string;
}

type Send = (status: number, json: unknown) => void;

export class PublicRoutes {
  private readonly limiter: AddressRateLimiter;
  /** requests refused by the rate limit since start */
  limited = 0;

  constructor(private readonly deps: PublicRouteDeps) {
    this.limiter = new AddressRateLimiter(deps.limit ?? PUBLIC_RATE_LIMIT);
  }

  /** Answers a public route, or a 429; false when the request is none of them. */
  handle(req: IncomingMessage, res: ServerResponse, send: Send): boolean {
    if (req.method !== 'GET') return false;
    const wait = this.limiter.take(req.socket.remoteAddress ?? 'unknown');
    if (wait > 0) {
      this.limited++;
      res.setHeader('retry-after', String(wait));
      send(429, {
        error: {
          code: 'rate-limited',
          message: `Too many requests from this address; try again in ${wait} s.`,
        },
      });
      return true;
    }
    const { deps } = this;
    if (req.url === '/v1/health') send(200, deps.health());
    else if (deps.oracle.route(req, send)) return true;
    else if (req.url === '/v1/set') {
      const set = deps.set();
      if (set) send(200, set);
      else send(404, { error: { code: 'not-ready', message: 'no set yet' } });
    } else if (req.url?.startsWith(KEPT_PRICES_PATH)) this.keptPrices(req.url, send);
    else if (req.url === PRICE_PATH)
      void priceAnswer(deps.price, false).then((a) => send(a.status, a.json));
    else if (req.url?.startsWith(`${PRICE_PATH}?`))
      send(403, {
        error: {
          code: 'not-allowed',
          message: `A fresh price read is only at a coordinator's signed ${FRESH_PRICE_MESSAGE} message; GET ${PRICE_PATH} serves the last one.`,
        },
      });
    else return false;
    return true;
  }

  /** GET /v1/prices/<commitment>: one file of its directory by a 64-hex name, or a 404. */
  private keptPrices(url: string, send: Send): void {
    const commitment = url.slice(KEPT_PRICES_PATH.length);
    let kept = null;
    try {
      kept = readKeptQuorum(this.deps.dir, commitment);
    } catch {
      // an unreadable file is answered as none kept
    }
    if (kept) send(200, kept);
    else
      send(404, {
        error: {
          code: 'not-found',
          message: `This guardian keeps no signed prices under ${commitment.slice(0, 64)}; ask for ${KEPT_PRICES_PATH}<the record's 64-hex price quorum commitment>.`,
        },
      });
  }
}
