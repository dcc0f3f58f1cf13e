// The message table against the code: every message type the package sends or handles is in the
// table and every table entry is used; a malformed body or answer of each type is refused with a
// `malformed` error that names the type and what was wrong.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from './envelope';
import {
  MESSAGE_TYPES,
  messageHandler,
  messageType,
  parseMessageAnswer,
  parseMessageBody,
  type MessageHandlers,
} from './messages';

/** Every `.ts` file of the package's source, tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * The message types the code names: string literals `'<word>/<word>'`, less the tags of signed
 * texts (`unit/...`) and media types (`application/...`), which share the form.
 */
function typesInCode(): Set<string> {
  const found = new Set<string>();
  for (const file of sources(import.meta.dirname)) {
    if (file.endsWith('messages.ts')) continue;
    for (const [, literal] of readFileSync(file, 'utf8').matchAll(
      /'([a-z][a-z0-9]*\/[a-z0-9][a-z0-9-]*)'/g,
    ))
      if (!/^(unit|application|text)\//.test(literal!)) found.add(literal!);
  }
  return found;
}

function refusal(run: () => unknown): ProtocolError {
  try {
    run();
  } catch (e) {
    if (e instanceof ProtocolError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('the message table', () => {
  it('holds every message type the code sends or handles, and only those', () => {
    const inCode = [...typesInCode()].sort();
    expect(inCode.length).toBeGreaterThan(20);
    expect(inCode).toEqual([...MESSAGE_TYPES].sort());
  });

  it('refuses a body that is not an object, for every type, naming the type', () => {
    for (const type of MESSAGE_TYPES)
      for (const body of ['text', 7, null, [1, 2]]) {
        const error = refusal(() => parseMessageBody(type, body));
        expect(error.code, type).toBe('malformed');
        expect(error.message).toContain(`the body of ${type} is malformed`);
      }
  });

  it('refuses an answer that is not an object, for every type, naming the type', () => {
    for (const type of MESSAGE_TYPES) {
      const error = refusal(() => parseMessageAnswer(type, 'text'));
      expect(error.code, type).toBe('malformed');
      expect(error.message).toContain(`the answer to ${type} is malformed`);
    }
  });

  it('says which field is wrong', () => {
    const share = refusal(() =>
      parseMessageBody('sign/share', { sessionId: 'ab'.repeat(32), commitments: 'all' }),
    );
    expect(share.message).toMatch(/commitments/);
    const round2 = refusal(() => parseMessageBody('dkg/round2', { round1: [{ sig: 'x' }] }));
    expect(round2.message).toMatch(/round1/);
    const propose = refusal(() => parseMessageAnswer('sign/propose', { approved: 'yes' }));
    expect(propose.message).toMatch(/approved/);
  });

  it('passes a well-formed body through, keeping fields a newer sender adds', () => {
    const body = { sessionId: 'ab'.repeat(32), attempt: 2, extra: true };
    expect(parseMessageBody('sign/commit', body)).toEqual(body);
  });

  it('refuses a type it does not know, and runs a handler on the parsed body only', () => {
    expect(refusal(() => messageType('dkg/nope')).message).toMatch(
      /unknown message type dkg\/nope/,
    );
    const seen: unknown[] = [];
    const handlers: MessageHandlers = { 'dkg/abort': (b) => seen.push(b.session) };
    const run = messageHandler(handlers, 'dkg/abort')!;
    run({ session: 'one', reason: 'why' });
    expect(refusal(() => run({ reason: 'no session' })).code).toBe('malformed');
    expect(seen).toEqual(['one']);
    expect(messageHandler(handlers, 'dkg/finish')).toBeNull();
  });
});
