// Requests: the client's recipe of a vault request, planned free of I/O and run by the caller's I/O.
export * from './plan';
export * from './run';
export * from './speed-up';
