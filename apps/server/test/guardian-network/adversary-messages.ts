// Hostile messages to an honest `--policy vault` guardian, carrying a vault request as the context
// of a `sign/propose` (network.test.ts covers the bare envelope): a context over the policy's size
// cap, one over the envelope's, forged, out-of-set, peer-sent and replayed proposals, and a second
// proposal on a decided session. Each is refused with its code or reason, and none changes what
// the guardian stored or decided.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { base64, hex } from '@scure/base';
import { loadIdentity, newIdentity, sealMessage, type Identity } from '@unit/guardian-net';
import { postRaw } from '../../../../packages/guardian-net/test/harness';
import { MAX_CONTEXT_BYTES } from '../../../../packages/guardian-net/src/vault-policy/context';
import type { TestWallet } from '../guardian/harness';
import type { World } from './adversary-harness';
import { vaultSighash } from './adversary-attacks';

interface Answer {
  status: number;
  json: {
    error?: { code: string; message: string };
    payload?: string;
  };
}

export function hostileMessageTests(get: () => { w: World; alice: TestWallet }): void {
  const g1 = () => get().w.set.members[0]!;
  const coordinator = () => loadIdentity(join(get().w.network.dir, 'coordinator', 'identity.json'));

  /** Over TLS with `sender`'s own certificate: what refuses is the envelope's check, not the link. */
  const post = async (body: string, sender: Identity = coordinator()): Promise<Answer> => {
    const res = await postRaw(g1(), body, sender, 10_000);
    return { status: res.status, json: res.body as Answer['json'] };
  };
  const proposal = (
    body: unknown,
    from: Identity = coordinator(),
    signer: Identity = from,
    type = 'sign/propose',
  ) =>
    JSON.stringify(
      sealMessage(
        { type, from: from.publicKey, to: g1().identityKey, setVersion: get().w.set.version, body },
        signer.secretKey,
      ),
    );
  const decision = (a: Answer) =>
    (JSON.parse(a.json.payload!) as { body: { approved: boolean; reason: string | null } }).body;
  const count = (table: string): number => {
    const db = new Database(join(get().w.gdir(1), 'store.sqlite'), { readonly: true });
    try {
      return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  };
  /** An honest borrow's input-0 proposal: a fresh session, the right message, the real context. */
  const honest = async () => {
    const { w, alice } = get();
    const { request } = await alice.borrow(5_000n);
    const { sighash } = vaultSighash(base64.decode(request.psbt), request.vault_pubkey, w.groupKey);
    const context = { kind: 'vault-input', action: 'borrow', request, input: 0, role: 'vault' };
    return {
      sessionId: `${randomBytes(16).toString('hex')}:0`,
      message: hex.encode(sighash),
      context,
    };
  };

  it('a vault context over its size cap is refused with its reason, and nothing can be signed on it', async () => {
    const body = await honest();
    const padded = {
      ...body,
      context: { ...body.context, padding: 'x'.repeat(MAX_CONTEXT_BYTES) },
    };
    const answer = await post(proposal(padded));
    expect(answer.status).toBe(200);
    expect(decision(answer)).toEqual({
      approved: false,
      reason: `the request context is over ${MAX_CONTEXT_BYTES} bytes`,
    });
    const commit = await post(
      proposal(
        { sessionId: body.sessionId, attempt: 1 },
        coordinator(),
        coordinator(),
        'sign/commit',
      ),
    );
    expect(commit.json.error?.code).toBe('refused');
    expect((await get().w.nonces(1)).filter((r) => r.session_id === body.sessionId)).toEqual([]);
  }, 30_000);

  it('forged, out-of-set, peer-sent, oversized and replayed proposals are refused and change nothing', async () => {
    const body = await honest();
    const before = { sessions: count('sessions'), seen: count('seen_messages') };
    const stranger = newIdentity();

    const outOfSet = await post(proposal(body, stranger), stranger);
    expect([outOfSet.status, outOfSet.json.error?.code]).toEqual([403, 'sender-not-in-set']);
    // The coordinator's name signed by a stranger: refused by the link on the stranger's own
    // connection, and by the envelope's signature check on the coordinator's.
    const onItsLink = await post(proposal(body, coordinator(), stranger), stranger);
    expect([onItsLink.status, onItsLink.json.error?.code]).toEqual([403, 'bad-certificate']);
    const forged = await post(proposal(body, coordinator(), stranger));
    expect([forged.status, forged.json.error?.code]).toEqual([401, 'bad-signature']);
    const huge = { ...body, context: { ...body.context, padding: 'x'.repeat(70_000) } };
    const oversized = await post(proposal(huge));
    expect([oversized.status, oversized.json.error?.code]).toEqual([413, 'too-large']);
    expect(count('sessions')).toBe(before.sessions);
    expect(count('seen_messages')).toBe(before.seen);

    // A guardian of the set may not propose: its message is recorded as seen, nothing else.
    const peer = loadIdentity(join(get().w.gdir(2), 'identity.json'));
    const fromPeer = await post(proposal(body, peer), peer);
    expect([fromPeer.status, fromPeer.json.error?.code]).toEqual([403, 'not-allowed']);
    expect(count('sessions')).toBe(before.sessions);

    // The genuine proposal is approved once; replayed, it is refused and decides nothing again.
    const genuine = proposal(body);
    const first = await post(genuine);
    expect(decision(first)).toEqual({ approved: true, reason: null });
    const sessions = count('sessions');
    expect(sessions).toBe(before.sessions + 1);
    const replayed = await post(genuine);
    expect([replayed.status, replayed.json.error?.code]).toEqual([409, 'replayed']);
    // The same session for another message is refused; with a lying context it keeps its decision.
    const other = await post(proposal({ ...body, message: hex.encode(randomBytes(32)) }));
    expect([other.status, other.json.error?.code]).toEqual([409, 'refused']);
    const request = body.context.request as { payload: object };
    const lying = {
      ...body.context,
      request: { ...request, payload: { ...request.payload, borrow_amount: 1 } },
    };
    const again = await post(proposal({ ...body, context: lying }));
    expect(decision(again)).toEqual({ approved: true, reason: null });
    expect(count('sessions')).toBe(sessions);
  }, 30_000);
}
