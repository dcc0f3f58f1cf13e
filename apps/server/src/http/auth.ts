// /api/auth: sign-in with Bitcoin. challenge → the wallet signs → verify sets the
// session cookie; session answers whose it is; logout ends it.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import * as z from 'zod';
import type { AuthChallengeDto, AuthSessionDto } from '@unit/protocol';
import { authVerifyBodySchema } from '@unit/protocol/wire';
import type { AccountLinks, LinkOutcome } from '../auth/oauth';
import {
  SESSION_TTL_S,
  requireSession,
  createChallenge,
  endSession,
  sessionAddress,
  setSessionCookie,
  verifyChallenge,
  type SignInSite,
} from '../auth/sessions';
import type { Database } from '../store/schema';
import { DomainError } from '../errors';
import { parseInput } from './errors';
import { WRITE_LIMIT } from './security';

const address = z.string().regex(/^[A-Za-z0-9]{14,90}$/, 'expected a Bitcoin address');

/**
 * Registers the cookie parser (for every route) and the /api/auth routes. `site` is the configured
 * public origin and network (http/public-origin.ts): the challenge names them whatever `Host` or
 * `X-Forwarded-Host` a request carries, so a page elsewhere that relays our challenge gets one that
 * names us, and a message it rewrites to name itself is refused.
 */
export async function registerAuthRoutes(
  app: FastifyInstance,
  db: Kysely<Database>,
  site: () => SignInSite,
) {
  await app.register(cookie);

  app.post('/api/auth/challenge', { config: WRITE_LIMIT }, async (request) => {
    const body = parseInput(z.object({ address }), request.body);
    return (await createChallenge(db, site(), body.address)) satisfies AuthChallengeDto;
  });

  app.post('/api/auth/verify', { config: WRITE_LIMIT }, async (request, reply) => {
    const body = parseInput(authVerifyBodySchema, request.body);
    const session = await verifyChallenge(db, site(), body);
    setSessionCookie(request, reply, session.token, SESSION_TTL_S);
    return { address: body.address } satisfies AuthSessionDto;
  });

  // Signed out is a normal state, not an error: 200 with null keeps a healthy page's console clean.
  // The routes that need a session still answer 401.
  app.get('/api/auth/session', async (request): Promise<AuthSessionDto | null> => {
    const signedIn = await sessionAddress(db, request);
    return signedIn ? { address: signedIn } : null;
  });

  app.post('/api/auth/logout', { config: WRITE_LIMIT }, async (request, reply) => {
    await endSession(db, request);
    setSessionCookie(request, reply, null, 0);
    return reply.status(204).send();
  });
}

const provider = z.enum(['discord', 'twitter']);

/**
 * /api/oauth: Discord and Twitter account links. start (signed in) answers the provider's consent
 * URL; the provider sends the browser back to callback, which links the account and returns to the
 * missions page saying how it went.
 */
export function registerOAuthRoutes(
  app: FastifyInstance,
  db: Kysely<Database>,
  links: AccountLinks,
  publicOrigin: () => string,
): void {
  // The provider sends the browser back to the configured origin, never to a request's Host.
  const redirectUri = (p: string) => `${publicOrigin()}/api/oauth/${p}/callback`;

  app.get('/api/oauth/providers', async () => links.configured());

  app.post('/api/oauth/:provider/start', { config: WRITE_LIMIT }, async (request) => {
    const params = parseInput(z.object({ provider }), request.params);
    const signedIn = await requireSession(db, request);
    const url = await links.start(params.provider, signedIn, redirectUri(params.provider));
    if (!url) {
      throw new DomainError(
        'not_configured',
        `${params.provider} is not configured on this server`,
      );
    }
    return { url: url.toString() };
  });

  app.get('/api/oauth/:provider/callback', async (request, reply) => {
    const params = parseInput(z.object({ provider }), request.params);
    const query = z
      .object({ state: z.string().min(1).max(200), code: z.string().min(1).max(2000) })
      .safeParse(request.query);
    let outcome: LinkOutcome = { error: 'failed' };
    if (query.success) {
      try {
        outcome = await links.finish(params.provider, {
          ...query.data,
          signedIn: await sessionAddress(db, request),
          redirectUri: redirectUri(params.provider),
        });
      } catch (err) {
        request.log.warn({ err: String(err), provider: params.provider }, 'account link failed');
      }
    }
    if ('linked' in outcome) return reply.redirect(`/missions?linked=${params.provider}`);
    // `taken`: this account is linked to another address; the missions page says so.
    const reason = outcome.error === 'taken' ? '&reason=taken' : '';
    return reply.redirect(`/missions?link_error=${params.provider}${reason}`);
  });
}
