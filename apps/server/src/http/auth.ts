// /api/auth: sign-in with Bitcoin. challenge → the wallet signs → verify sets the
// session cookie; session answers whose it is; logout ends it.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import * as z from 'zod';
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
import { WRITE_LIMIT } from './security';
import { tableRoute } from './table-route';

/**
 * Registers the cookie plugin (its parser runs only where a session is read, auth/sessions.ts, not
 * on every request; it writes the cookies a reply sets) and the /api/auth routes. `site` is the configured
 * public origin and network (http/public-origin.ts): the challenge names them whatever `Host` or
 * `X-Forwarded-Host` a request carries, so a page elsewhere that relays our challenge gets one that
 * names us, and a message it rewrites to name itself is refused.
 */
export async function registerAuthRoutes(
  app: FastifyInstance,
  db: Kysely<Database>,
  site: () => SignInSite,
) {
  await app.register(cookie, { hook: false });

  tableRoute(app, 'authChallenge', async ({ body }) => createChallenge(db, site(), body.address), {
    config: WRITE_LIMIT,
  });

  tableRoute(
    app,
    'authVerify',
    async ({ body, request, reply }) => {
      const session = await verifyChallenge(db, site(), body);
      setSessionCookie(request, reply, session.token, SESSION_TTL_S);
      return { address: body.address };
    },
    { config: WRITE_LIMIT },
  );

  // Signed out is a normal state, not an error: 200 with null keeps a healthy page's console clean.
  // The routes that need a session still answer 401.
  tableRoute(app, 'authSession', async ({ request }) => {
    const signedIn = await sessionAddress(db, request);
    return signedIn ? { address: signedIn } : null;
  });

  tableRoute(
    app,
    'authLogout',
    async ({ request, reply }) => {
      await endSession(db, request);
      setSessionCookie(request, reply, null, 0);
      return reply.status(204).send();
    },
    { config: WRITE_LIMIT },
  );
}

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

  tableRoute(app, 'oauthProviders', () => links.configured());

  tableRoute(
    app,
    'oauthStart',
    async ({ params, request }) => {
      const signedIn = await requireSession(db, request);
      const url = await links.start(params.provider, signedIn, redirectUri(params.provider));
      if (!url) {
        throw new DomainError(
          'not_configured',
          `${params.provider} is not configured on this server`,
        );
      }
      return { url: url.toString() };
    },
    { config: WRITE_LIMIT },
  );

  tableRoute(app, 'oauthCallback', async ({ params, request, reply }) => {
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
