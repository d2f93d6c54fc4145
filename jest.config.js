// Tests run from TypeScript sources through SWC; `tsc -b` type-checks separately (make build).
/** @type {import('jest').Config} */
const swc = [
  "@swc/jest",
  {
    jsc: { target: "es2022", parser: { syntax: "typescript" } },
    module: { type: "commonjs" },
  },
];
module.exports = {
  testEnvironment: "node",
  transform: { "^.+\\.(t|j)s$": swc },
  transformIgnorePatterns: ["/node_modules/(?!(oauth4webapi|jose)/)"],
  moduleNameMapper: {
    "^@earshot/proto$": "<rootDir>/proto/src/index.ts",
    // Subpath entry points before the package pattern: the first pattern that matches wins.
    "^@earshot/platform/(core|grpc|store|bus|testing)$": "<rootDir>/services/platform/src/$1/index.ts",
    "^@earshot/account/scopes$": "<rootDir>/services/account/src/scopes.ts",
    // Each domain's events module: its topic, event types, builders and decoders.
    "^@earshot/([a-z-]+)/events$": "<rootDir>/services/$1/src/events.ts",
    "^@earshot/([a-z-]+)$": "<rootDir>/services/$1/src/index.ts",
    // Field modules: the one subpath a service publishes besides its entry point.
    "^@earshot/([a-z-]+)/fields$": "<rootDir>/services/$1/src/fields.ts",
    "^@earshot/keyword/matcher$": "<rootDir>/services/keyword/src/matcher/index.ts",
  },
  testMatch: ["<rootDir>/services/**/*.test.ts", "<rootDir>/proto/**/*.test.ts", "<rootDir>/deploy/**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/", "/dist/"],
  globalSetup: "<rootDir>/services/platform/src/testing/global-setup.ts",
  testTimeout: 30000,
  reporters: ["default", "<rootDir>/services/platform/src/testing/summary-reporter.js"],
};
