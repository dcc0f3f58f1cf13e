// @unit/protocol/wire/client: the one JSON-RPC client and the one request envelope without the
// schemas, for the browser (no zod in its chunks beyond the first chunk's zod/mini).
export * from './codes';
export * from './rpc-client';
export * from './envelope';
