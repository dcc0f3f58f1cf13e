// The attempt numbers and the time one network signing may take: shared by the vault inputs'
// signer (network-signer.ts) and the settlement at the term's (settle-cosign.ts).

/** The network's whole answer to one request: every session, both rounds, retries included. */
export const NETWORK_SIGN_TIMEOUT_MS = 20_000;

/** Attempt numbers one signing may use per guardian: n - t + 2 under ROAST (attemptsPerSigning). */
export const ATTEMPTS_PER_SIGNING = 32;

/**
 * A guardian gives one nonce per (session, attempt), ever, and a session id is the request's, so a
 * request signed again (retaken after a failure, or by another instance after a crash) must not
 * start at attempt 1 again. Each signing takes ATTEMPTS_PER_SIGNING attempts from a base that
 * moves every 2.5 s and comes round again after 249 steps (622 s): longer than a request lives
 * (600 s at most), inside the 1..100,000 a guardian accepts. Two signings of one request within
 * 2.5 s (not possible while its vault is locked) would find their nonces taken and fail cleanly,
 * naming the guardians.
 */
export function firstAttempt(nowMs: number): number {
  return 1 + ATTEMPTS_PER_SIGNING * (Math.floor(nowMs / 2_500) % 249);
}
