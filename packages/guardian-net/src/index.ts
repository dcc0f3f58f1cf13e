export * from './guardian-set';
export * from './frost';
export * from './envelope';
export * from './identity';
export { Coordinator, QuorumError, runDkg, type SignEvent, type SignResult } from './coordinator';
export { GuardianNode, type Decision, type SignRequest, type Validator } from './node';
