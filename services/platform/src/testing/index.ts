// Test support: test callers, temp dirs, certificates for mutual TLS, waiting on a condition, container-runtime detection, the check of
// staged events against their messages, and the contract suites every store and bus adapter must pass.
export * from "./tmp";
export * from "./containers";
export { describeStoreContract, type StoreFixture } from "../store/store-contract-test-support";
export { describeBusContract, type BusFixture } from "../bus/bus-contract-test-support";
export * from "./service-under-test";
export * from "./refusal";
export * from "./event-checks";
export * from "./pki";
export { testCaller, testProjectCaller } from "./caller";
