// The answers' check of the one client (rpc-client.ts) against the contract's result schemas: the
// server side (tests, scripts) passes it; a malformed answer is refused as 'internal'.
import { DomainError } from '../domain-error';
import { GUARDIAN_METHODS, type GuardianMethod } from './guardian';
import type { ResultCheck } from './rpc-client';

export const checkGuardianResult: ResultCheck = (method: GuardianMethod, answer: unknown) => {
  const result = GUARDIAN_METHODS[method].result.safeParse(answer);
  if (!result.success)
    throw new DomainError('internal', `The guardian answered ${method} with a malformed result`);
  return result.data;
};
