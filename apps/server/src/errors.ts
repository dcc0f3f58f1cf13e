// The server's one error type for a failure the caller should see is the protocol's DomainError
// (packages/protocol/src/domain-error.ts): a code of ErrorCode and a message for people. The domain
// (guardian, oracle, auth, routes) throws it; the JSON-RPC transport answers it as a domain error
// (rpc/json-rpc.ts) and the HTTP error handler with the code's status from ERROR_HTTP_STATUS.
export { DomainError } from '@unit/protocol';
