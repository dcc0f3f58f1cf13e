// Discord and Twitter (X) account links (SPEC §3 User: discord_id, twitter_id) through
// their OAuth2 authorization-code flows with PKCE, run by arctic's OAuth2Client. The endpoints are
// the providers' own (the same arctic's Discord and Twitter classes use) under a configurable root,
// so tests run the real flow against a local fake provider.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { CodeChallengeMethod, OAuth2Client, generateCodeVerifier, generateState } from 'arctic';
import type { Kysely } from 'kysely';
import type { OAuthApp } from '../config';
import type { Database } from '../store/schema';
import { linkUserAccounts, ensureUser } from '../store/users';

export type OAuthProvider = 'discord' | 'twitter';
export const OAUTH_PROVIDERS: readonly OAuthProvider[] = ['discord', 'twitter'];

/** How long the provider's consent screen may take. */
const STATE_TTL_S = 10 * 60;

/**
 * A link in progress is kept so that a copy of the table completes none: the row holds the state's
 * SHA-256 and the PKCE verifier sealed (AES-256-GCM) under a key derived from the state itself,
 * which only the user's browser and the provider's redirect carry. The redirect alone (code and
 * state, without the row) still lacks the verifier, as PKCE intends.
 */
const stateHash = (state: string) => createHash('sha256').update(state).digest('hex');
const sealKey = (state: string) =>
  createHash('sha256').update('unit/oauth-verifier\0').update(state).digest();

function sealVerifier(state: string, verifier: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey(state), iv);
  const sealed = Buffer.concat([cipher.update(verifier, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

function openVerifier(state: string, sealed: string): string {
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', sealKey(state), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}
/** The profile read after the code exchange; a provider slower than this links nothing. */
const PROVIDER_TIMEOUT_MS = 10_000;

interface ProviderSpec {
  authorize: (root: string | null) => string;
  token: (root: string | null) => string;
  profile: (root: string | null) => string;
  scopes: string[];
  /** the account id in the profile answer */
  idOf: (body: unknown) => string | null;
}

const str = (value: unknown) =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(value) ? value : null;

const PROVIDERS: Record<OAuthProvider, ProviderSpec> = {
  discord: {
    authorize: (root) => `${root ?? 'https://discord.com'}/oauth2/authorize`,
    token: (root) => `${root ?? 'https://discord.com'}/api/oauth2/token`,
    profile: (root) => `${root ?? 'https://discord.com'}/api/users/@me`,
    scopes: ['identify'],
    idOf: (body) => str((body as { id?: unknown } | null)?.id),
  },
  twitter: {
    authorize: (root) => `${root ?? 'https://twitter.com'}/i/oauth2/authorize`,
    token: (root) => `${root ?? 'https://api.twitter.com'}/2/oauth2/token`,
    profile: (root) => `${root ?? 'https://api.twitter.com'}/2/users/me`,
    scopes: ['users.read', 'tweet.read'],
    idOf: (body) => str((body as { data?: { id?: unknown } } | null)?.data?.id),
  },
};

const nowS = () => Math.floor(Date.now() / 1000);
const trimRoot = (root: string | null) => (root ? root.replace(/\/+$/, '') : null);

export class AccountLinks {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly apps: Record<OAuthProvider, OAuthApp | null>,
  ) {}

  configured(): Record<OAuthProvider, boolean> {
    return { discord: this.apps.discord !== null, twitter: this.apps.twitter !== null };
  }

  private client(provider: OAuthProvider, redirectUri: string): OAuth2Client | null {
    const app = this.apps[provider];
    return app ? new OAuth2Client(app.clientId, app.clientSecret, redirectUri) : null;
  }

  /** The provider's consent URL for `address`; null when the provider is not configured. */
  async start(provider: OAuthProvider, address: string, redirectUri: string): Promise<URL | null> {
    const client = this.client(provider, redirectUri);
    if (!client) return null;
    const spec = PROVIDERS[provider];
    const state = generateState();
    const codeVerifier = generateCodeVerifier();
    const now = nowS();
    await this.db.deleteFrom('oauth_states').where('expires_at', '<', now).execute();
    await this.db
      .insertInto('oauth_states')
      .values({
        state: stateHash(state),
        provider,
        address,
        code_verifier: sealVerifier(state, codeVerifier),
        expires_at: now + STATE_TTL_S,
      })
      .execute();
    return client.createAuthorizationURLWithPKCE(
      spec.authorize(trimRoot(this.apps[provider]!.apiRoot)),
      state,
      CodeChallengeMethod.S256,
      codeVerifier,
      spec.scopes,
    );
  }

  /**
   * Completes the flow: the state must be unexpired, unused, of this provider and of the signed-in
   * address, and only such a callback spends it (another session presenting it leaves it for its
   * owner). The code is exchanged (with the PKCE verifier) for a token that reads the account id,
   * which is stored on the user unless another address holds it already (one address per social
   * account, also under a race: a unique index). Returns the linked id, or why not.
   */
  async finish(
    provider: OAuthProvider,
    input: { state: string; code: string; signedIn: string | null; redirectUri: string },
  ): Promise<LinkOutcome> {
    const client = this.client(provider, input.redirectUri);
    if (!client || !input.signedIn) return { error: 'failed' };
    // One use only, by its own session: the delete that matches everything is the spend.
    const row = await this.db
      .deleteFrom('oauth_states')
      .where('state', '=', stateHash(input.state))
      .where('provider', '=', provider)
      .where('address', '=', input.signedIn)
      .where('expires_at', '>=', nowS())
      .returningAll()
      .executeTakeFirst();
    if (!row) return { error: 'failed' };
    const spec = PROVIDERS[provider];
    const root = trimRoot(this.apps[provider]!.apiRoot);
    const tokens = await withinTime(
      client.validateAuthorizationCode(
        spec.token(root),
        input.code,
        openVerifier(input.state, row.code_verifier),
      ),
    );
    const res = await fetch(spec.profile(root), {
      headers: { authorization: `Bearer ${tokens.accessToken()}`, accept: 'application/json' },
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
    if (!res.ok) return { error: 'failed' };
    const id = spec.idOf(await res.json());
    if (!id) return { error: 'failed' };
    const column = provider === 'discord' ? 'discord_id' : 'twitter_id';
    const heldElsewhere = async () =>
      (await this.db
        .selectFrom('users')
        .select('address')
        .where(column, '=', id)
        .where('address', '!=', row.address)
        .executeTakeFirst()) !== undefined;
    if (await heldElsewhere()) return { error: 'taken' };
    await ensureUser(this.db, row.address);
    try {
      await linkUserAccounts(this.db, row.address, { [column]: id });
    } catch (error) {
      // Two addresses linking the same account at once: the unique index lets one through.
      if (await heldElsewhere()) return { error: 'taken' };
      throw error;
    }
    return { linked: id };
  }
}

/**
 * The code exchange within PROVIDER_TIMEOUT_MS: arctic takes no abort signal, so the callback stops
 * waiting (the request itself ends by undici's own time-outs).
 */
async function withinTime<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error('the provider did not answer in time')),
      PROVIDER_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How a link ended: the account id, or `taken` (linked to another address) or `failed`. */
export type LinkOutcome = { linked: string } | { error: 'failed' | 'taken' };
