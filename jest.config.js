// Tests run from TypeScript sources through SWC; `tsc -b` type-checks separately (make build).
const { moduleNameMapper } = require("./services/platform/src/testing/workspace-sources");

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
  // Every workspace package's entry points (package.json "exports") resolve to its sources.
  moduleNameMapper: moduleNameMapper(__dirname),
  testMatch: ["<rootDir>/services/**/*.test.ts", "<rootDir>/proto/**/*.test.ts", "<rootDir>/deploy/**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/", "/dist/"],
  globalSetup: "<rootDir>/services/platform/src/testing/global-setup.ts",
  testTimeout: 30000,
  reporters: ["default", "<rootDir>/services/platform/src/testing/summary-reporter.js"],
};
