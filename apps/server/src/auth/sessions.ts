// Sign-in with Bitcoin: a challenge naming the site (the configured public origin, never a request
// header), the network, the address, a fresh nonce and an expiry; a verified signature of it is
// exchanged, once, for a session. The session cookie carries a random token; the store keeps only
// its SHA-256.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Network } from '@unit/protocol';
import type { Database } from '../store/schema';
import { DomainError } from '../errors';
import { addressNetworkProblem, verifyAddressSignature } from './signature';

export const SESSION_COOKIE = 'unit_session';
/** How long a challenge may be signed: long enough to read a wallet prompt. */
export const CHALLENGE_TTL_S = 5 * 60;
/** A session lasts a week; signing in again is one wallet prompt. */
export const SESSION_TTL_S = 7 * 24 * 60 * 60;
/** Challenges kept per address at once (older unused ones are removed). */
const OPEN_CHALLENGES_PER_ADDRESS = 5;

const nowS = () => Math.floor(Date.now() / 1000);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export const unauthorized = (message = 'Sign in with your wallet first') =>
  new DomainError('unauthorized', message);

/** Where a session is good: the origin people open the app at, and the chain it runs on. */
export interface SignInSite {
  /** `scheme://host[:port]` (config PUBLIC_ORIGIN, or the devnet's listening address) */
  origin: string;
  network: Network;
}

const FIRST_LINE = / wants you to sign in to UNIT with your Bitcoin account:$/;

/**
 * The text the wallet signs; every line is checked again on verify by comparing it whole, and the
 * site lines against this server's site. The first line names the host the wallet shows; the URI
 * and Network lines say exactly where the session will be good.
 */
export function challengeText(o: {
  site: SignInSite;
  address: string;
  nonce: string;
  issuedAt: number;
  expiresAt: number;
}): string {
  return [
    `${new URL(o.site.origin).host} wants you to sign in to UNIT with your Bitcoin account:`,
    o.address,
    '',
    'Signing proves you hold this address. It moves no funds and costs nothing.',
    '',
    `URI: ${o.site.origin}`,
    `Network: ${o.site.network}`,
    `Nonce: ${o.nonce}`,
    `Issued At: ${new Date(o.issuedAt * 1000).toISOString()}`,
    `Expiration Time: ${new Date(o.expiresAt * 1000).toISOString()}`,
  ].join('\n');
}

const NONCE_LINE = /^Nonce: ([0-9a-f]{32})$/m;
const URI_LINE = /^URI: (.*)$/m;
const NETWORK_LINE = /^Network: (.*)$/m;

/** An address of another network never gets a challenge or a session (400, saying which). */
function assertAddressOfNetwork(address: string, network: Network): void {
  const problem = addressNetworkProblem(address, network);
  if (problem) throw new DomainError('bad_request', problem);
}

/**
 * Why a message is not a sign-in to this site, or null: its first line, URI and Network lines
 * must name this server's origin and network (a message a phishing page composed names its own).
 */
function foreignSiteProblem(message: string, site: SignInSite): string | null {
  const lines = message.split('\n');
  const host = new URL(site.origin).host;
  const named = FIRST_LINE.test(lines[0] ?? '') ? lines[0]!.replace(FIRST_LINE, '') : null;
  if (named !== host || URI_LINE.exec(message)?.[1] !== site.origin) {
    return `This message signs in to ${JSON.stringify((named ?? '?').slice(0, 100))}, not ${host}; sign in again from ${site.origin}`;
  }
  if (NETWORK_LINE.exec(message)?.[1] !== site.network) {
    return `This message signs in on another network, not ${site.network}; sign in again`;
  }
  return null;
}

export async function createChallenge(
  db: Kysely<Database>,
  site: SignInSite,
  address: string,
  now = nowS(),
): Promise<{ message: string; expires_at: number }> {
  assertAddressOfNetwork(address, site.network);
  const nonce = randomBytes(16).toString('hex');
  const expiresAt = now + CHALLENGE_TTL_S;
  const message = challengeText({ site, address, nonce, issuedAt: now, expiresAt });
  // Expired challenges of anyone, and all but the newest few of this address, are dropped, so
  // the table stays bounded however often the route is called.
  await db.deleteFrom('auth_challenges').where('expires_at', '<', now).execute();
  const keep = await db
    .selectFrom('auth_challenges')
    .select('nonce')
    .where('address', '=', address)
    .orderBy('expires_at', 'desc')
    .limit(OPEN_CHALLENGES_PER_ADDRESS - 1)
    .execute();
  await db
    .deleteFrom('auth_challenges')
    .where('address', '=', address)
    .$if(keep.length > 0, (q) =>
      q.where(
        'nonce',
        'not in',
        keep.map((k) => k.nonce),
      ),
    )
    .execute();
  await db
    .insertInto('auth_challenges')
    .values({ nonce, address, message, expires_at: expiresAt, used_at: null })
    .execute();
  return { message, expires_at: expiresAt };
}

/**
 * Exchanges a signed challenge for a session token. Every refusal is a 401: a message naming
 * another site or network, a wrong or foreign signature, an unknown, expired or already used
 * challenge; an address of another network is a 400 saying so.
 */
export async function verifyChallenge(
  db: Kysely<Database>,
  site: SignInSite,
  input: { address: string; message: string; signature: string },
  now = nowS(),
): Promise<{ token: string; expires_at: number }> {
  assertAddressOfNetwork(input.address, site.network);
  const nonce = NONCE_LINE.exec(input.message)?.[1];
  if (!nonce) throw unauthorized('This is not a sign-in message of this server');
  // Checked before any lookup, and again (whole) against the stored challenge below: a challenge
  // stored before PUBLIC_ORIGIN changed names the old site and is refused too.
  const foreign = foreignSiteProblem(input.message, site);
  if (foreign) throw unauthorized(foreign);
  const challenge = await db
    .selectFrom('auth_challenges')
    .selectAll()
    .where('nonce', '=', nonce)
    .executeTakeFirst();
  if (
    !challenge ||
    challenge.address !== input.address ||
    challenge.message !== input.message ||
    challenge.used_at !== null ||
    Number(challenge.expires_at) < now
  ) {
    throw unauthorized('The sign-in request expired or was already used; sign in again');
  }
  if (!verifyAddressSignature(input.address, input.message, input.signature)) {
    throw unauthorized('The signature does not match this address');
  }
  // Only one verify of a challenge wins, even when two race with the same valid signature.
  const used = await db
    .updateTable('auth_challenges')
    .set({ used_at: now })
    .where('nonce', '=', nonce)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(used.numUpdatedRows) !== 1) {
    throw unauthorized('The sign-in request expired or was already used; sign in again');
  }
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + SESSION_TTL_S;
  await db.deleteFrom('sessions').where('expires_at', '<', now).execute();
  await db
    .insertInto('sessions')
    .values({
      token_hash: sha256(token),
      address: input.address,
      created_at: now,
      expires_at: expiresAt,
    })
    .execute();
  return { token, expires_at: expiresAt };
}

/**
 * The token of the request's session cookie. Parsed here, by the routes that ask for a session,
 * rather than by a hook on every request (http/auth.ts registers the cookie plugin without one).
 */
function sessionToken(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header ? request.server.parseCookie(header)[SESSION_COOKIE] : undefined;
}

/** The address whose session the request's cookie carries, or null. */
export async function sessionAddress(
  db: Kysely<Database>,
  request: FastifyRequest,
  now = nowS(),
): Promise<string | null> {
  const token = sessionToken(request);
  if (!token || token.length > 100) return null;
  const row = await db
    .selectFrom('sessions')
    .select(['address', 'expires_at'])
    .where('token_hash', '=', sha256(token))
    .executeTakeFirst();
  return row && Number(row.expires_at) >= now ? row.address : null;
}

/**
 * Every write about a user goes through here: 401 without a session, 403 when the session is
 * another address's. Returns the signed-in address.
 */
export async function requireSession(
  db: Kysely<Database>,
  request: FastifyRequest,
  address?: string,
): Promise<string> {
  const signedIn = await sessionAddress(db, request);
  if (!signedIn) throw unauthorized();
  if (address !== undefined && address !== signedIn) {
    throw new DomainError('forbidden', 'You are signed in with another address');
  }
  return signedIn;
}

export async function endSession(db: Kysely<Database>, request: FastifyRequest): Promise<void> {
  const token = sessionToken(request);
  if (token) await db.deleteFrom('sessions').where('token_hash', '=', sha256(token)).execute();
}

export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string | null,
  maxAgeS: number,
): void {
  reply.setCookie(SESSION_COOKIE, token ?? '', {
    httpOnly: true,
    sameSite: 'lax',
    // Secure only behind HTTPS: the devnet is served over plain HTTP on loopback.
    secure: request.protocol === 'https',
    path: '/',
    maxAge: token ? maxAgeS : 0,
  });
}
