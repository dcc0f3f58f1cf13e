// Discord and Twitter (X) account links (SPEC §3 User: discord_id, twitter_id; issue 14) through
// their OAuth2 authorization-code flows with PKCE, run by arctic's OAuth2Client. The endpoints are
// the providers' own (the same arctic's Discord and Twitter classes use) under a configurable root,
// so tests run the real flow against a local fake provider.
import { CodeChallengeMethod, OAuth2Client, generateCodeVerifier, generateState } from 'arctic';
import type { Kysely } from 'kysely';
import type { OAuthApp } from '../config';
import type { Database } from '../store/schema';
import { linkUserAccounts, ensureUser } from '../store/users';

export type OAuthProvider = 'discord' | 'twitter';
export const OAUTH_PROVIDERS: readonly OAuthProvider[] = ['discord', 'twitter'];

/** How long the provider's consent screen may take. */
const STATE_TTL_S = 10 * 60;

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
        state,
        provider,
        address,
        code_verifier: codeVerifier,
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
   * address; the code is exchanged (with the PKCE verifier) for a token that reads the account id,
   * which is stored on the user. Returns the linked id, or null when anything does not hold.
   */
  async finish(
    provider: OAuthProvider,
    input: { state: string; code: string; signedIn: string | null; redirectUri: string },
  ): Promise<string | null> {
    const client = this.client(provider, input.redirectUri);
    if (!client || !input.signedIn) return null;
    const row = await this.db
      .selectFrom('oauth_states')
      .selectAll()
      .where('state', '=', input.state)
      .executeTakeFirst();
    // One use only, whatever happens next.
    const spent = await this.db
      .deleteFrom('oauth_states')
      .where('state', '=', input.state)
      .executeTakeFirst();
    if (
      !row ||
      Number(spent.numDeletedRows) !== 1 ||
      row.provider !== provider ||
      row.address !== input.signedIn ||
      Number(row.expires_at) < nowS()
    ) {
      return null;
    }
    const spec = PROVIDERS[provider];
    const root = trimRoot(this.apps[provider]!.apiRoot);
    const tokens = await client.validateAuthorizationCode(
      spec.token(root),
      input.code,
      row.code_verifier,
    );
    const res = await fetch(spec.profile(root), {
      headers: { authorization: `Bearer ${tokens.accessToken()}`, accept: 'application/json' },
    });
    if (!res.ok) return null;
    const id = spec.idOf(await res.json());
    if (!id) return null;
    await ensureUser(this.db, row.address);
    await linkUserAccounts(
      this.db,
      row.address,
      provider === 'discord' ? { discord_id: id } : { twitter_id: id },
    );
    return id;
  }
}
