// Test accounts that sign in the way wallets do: a key, its P2WPKH and P2TR addresses on the
// devnet's test network, and a session cookie obtained through the real /api/auth routes.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { TEST_NETWORK, p2tr, p2wpkh } from '@scure/btc-signer';
import { signBip322Simple } from '@unit/bitcoin';
import type { AuthChallengeDto } from '@unit/protocol';

export interface TestAccount {
  secret: Uint8Array;
  address: string;
  taprootAddress: string;
  /** BIP-322 simple signature of `message` by the P2WPKH address */
  sign(message: string): string;
  signTaproot(message: string): string;
}

export function testAccount(seed: number): TestAccount {
  const secret = new Uint8Array(32).fill(seed);
  const pub = secp256k1.getPublicKey(secret, true);
  const wpkh = p2wpkh(pub, TEST_NETWORK);
  const tr = p2tr(pub.subarray(1), undefined, TEST_NETWORK);
  return {
    secret,
    address: wpkh.address!,
    taprootAddress: tr.address!,
    sign: (message) => signBip322Simple({ message, script: wpkh.script, secretKey: secret }),
    signTaproot: (message) =>
      signBip322Simple({
        message,
        script: tr.script,
        secretKey: secret,
        internalKey: pub.subarray(1),
      }),
  };
}

export async function challenge(baseUrl: string, address: string): Promise<AuthChallengeDto> {
  const res = await fetch(`${baseUrl}/api/auth/challenge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address }),
  });
  if (res.status !== 200) throw new Error(`challenge answered ${res.status}`);
  return (await res.json()) as AuthChallengeDto;
}

/** Signs in through challenge and verify; returns the Cookie header value of the session. */
export async function signIn(baseUrl: string, account: TestAccount): Promise<string> {
  const { message } = await challenge(baseUrl, account.address);
  const res = await fetch(`${baseUrl}/api/auth/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      address: account.address,
      message,
      signature: account.sign(message),
    }),
  });
  if (res.status !== 200) throw new Error(`verify answered ${res.status}: ${await res.text()}`);
  const cookie = res.headers.get('set-cookie') ?? '';
  return cookie.split(';')[0]!;
}

/** POST JSON with a session cookie. */
export async function postAs(
  cookie: string | null,
  url: string,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}
