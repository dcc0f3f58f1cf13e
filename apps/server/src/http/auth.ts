// /api/auth: sign-in with Bitcoin (issue 14). challenge → the wallet signs → verify sets the
// session cookie; session answers whose it is; logout ends it.
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import * as z from 'zod';
import type { AuthChallengeDto, AuthSessionDto } from '@unit/protocol';
import type { AccountLinks } from '../auth/oauth';
import {
  SESSION_TTL_S,
  requireSession,
  createChallenge,
  endSession,
  sessionAddress,
  setSessionCookie,
  verifyChallenge,
} from '../auth/sessions';
import type { Database } from '../store/schema';
import { ApiError, parseInput } from './errors';
import { WRITE_LIMIT } from './security';

const address = z.string().regex(/^[A-Za-z0-9]{14,90}$/, 'expected a Bitcoin address');

/** Registers the cookie parser (for every route) and the /api/auth routes. */
export async function registerAuthRoutes(app: FastifyInstance, db: Kysely<Database>) {
  await app.register(cookie);

  app.post('/api/auth/challenge', { config: WRITE_LIMIT }, async (request) => {
    const body = parseInput(z.object({ address }), request.body);
    // The domain the user sees in the prompt is the one the browser reached.
    const domain = request.host.slice(0, 200);
    return (await createChallenge(db, domain, body.address)) satisfies AuthChallengeDto;
  });

  app.post('/api/auth/verify', { config: WRITE_LIMIT }, async (request, reply) => {
    const body = parseInput(
      z.object({
        address,
        message: z.string().min(1).max(1000),
        signature: z.string().min(1).max(500),
      }),
      request.body,
    );
    const session = await verifyChallenge(db, body);
    setSessionCookie(request, reply, session.token, SESSION_TTL_S);
    return { address: body.address } satisfies AuthSessionDto;
  });

  // Signed out is a normal state, not an error: 200 with null keeps a healthy page's console clean
  // (issue 22). The routes that need a session still answer 401.
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
): void {
  const redirectUri = (request: FastifyRequest, p: string) =>
    `${request.protocol}://${request.host}/api/oauth/${p}/callback`;

  app.get('/api/oauth/providers', async () => links.configured());

  app.post('/api/oauth/:provider/start', { config: WRITE_LIMIT }, async (request) => {
    const params = parseInput(z.object({ provider }), request.params);
    const signedIn = await requireSession(db, request);
    const url = await links.start(params.provider, signedIn, redirectUri(request, params.provider));
    if (!url) {
      throw new ApiError(
        503,
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
    let linked: string | null = null;
    if (query.success) {
      try {
        linked = await links.finish(params.provider, {
          ...query.data,
          signedIn: await sessionAddress(db, request),
          redirectUri: redirectUri(request, params.provider),
        });
      } catch (err) {
        request.log.warn({ err: String(err), provider: params.provider }, 'account link failed');
      }
    }
    return reply.redirect(
      linked ? `/missions?linked=${params.provider}` : `/missions?link_error=${params.provider}`,
    );
  });
}
