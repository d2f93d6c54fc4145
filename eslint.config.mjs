// Lint keeps the layering honest and catches a few mistakes the compiler lets through. Types, unused
// names and style are not its business: `tsc -b` checks the first two, and no rule here forces a rewrite.
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

// Domain code decides; it does not talk to drivers or transports. It may use @earshot/platform/core,
// zod, node built-ins and its own package; everything below is refused there.
const DOMAIN_MESSAGE = "Domain code imports only @earshot/platform/core from the platform, and no driver or transport.";
// Another service's events reach a domain handler already decoded: the wiring subscribes with
// subscribeDomainEvents and hands the handler the typed event. So a domain file may name those events'
// types (`import type { ProjectEvent } from "@earshot/project/events"`) but not load the events module,
// whose decoders are the proto codecs. Its own package's events module (`../events`, the builders its
// verbs stage) is its own package.
const EVENTS_MESSAGE = "Domain code imports another service's events module for its types only (import type); decoding happens where the consumer subscribes.";
const EVENTS_PATTERN = { group: ["@earshot/*/events"], allowTypeImports: true, message: EVENTS_MESSAGE };
const FORBIDDEN_IN_DOMAIN = ["mongodb", "better-sqlite3", "@seald-io/nedb", "kafkajs", "express", "@earshot/proto", "nodemailer", "@earshot/platform"];

// Test code (tests and the `test-support` helpers only tests import) is left out of every package's build
// (`TEST_SOURCES`, services/registry/src/derive/workspace.ts): nothing that ships may import it.
const TEST_FILES = ["**/*.test.ts", "**/test-support.ts", "**/*-test-support.ts"];
// The platform's test helpers (`@earshot/platform/testing`) are test code too, left out of its build.
const PLATFORM_TESTING = "services/platform/src/testing/**";
const TEST_CODE = { group: ["**/*.test", "**/test-support", "**/*-test-support"], message: "Only tests import test code: it is not part of the build." };

// Services depend on contracts, not on each other: a service's code imports the platform, the protobuf code
// and the contract layer (event catalogs, the matcher, shared field rules), never another service's
// package; its tests may also use the simulators. The edge, the all-in-one and the CLI compose services and
// are not held to this (services/registry/src/derive/service-dependencies.test.ts checks the package.json
// side of the same rule).
const COMPOSERS = ["edge", "all-in-one", "cli"];
const LIBRARIES = ["platform", "contracts", "registry", "simulators"];
const SERVICE_MESSAGE = "A service imports @earshot/platform, @earshot/proto and @earshot/contracts, never another service's package: move what both need into the contract layer.";
const serviceImports = (...allowed) => ({
  group: ["@earshot/*", "!@earshot/platform", "!@earshot/platform/*", "!@earshot/proto", "!@earshot/contracts", "!@earshot/contracts/*", ...allowed.flatMap((a) => [`!@earshot/${a}`, `!@earshot/${a}/*`])],
  message: SERVICE_MESSAGE,
});
const SERVICE_FILES = ["services/*/src/**/*.ts"];
const NOT_SERVICES = [...COMPOSERS, ...LIBRARIES].map((name) => `services/${name}/**`);

const domainImports = (...more) => [
  "error",
  {
    paths: FORBIDDEN_IN_DOMAIN.map((name) => ({ name, message: DOMAIN_MESSAGE })),
    patterns: [
      {
        group: [
          "@earshot/platform/*",
          "!@earshot/platform/core",
          "@grpc/*",
          "@modelcontextprotocol/*",
          ...FORBIDDEN_IN_DOMAIN.filter((name) => name !== "@earshot/platform").map((name) => `${name}/*`),
          // A relative path into the platform's sources would go around its entry points.
          "**/platform/src/**",
        ],
        message: DOMAIN_MESSAGE,
      },
      ...more,
    ],
  },
];

export default defineConfig(
  { ignores: ["**/node_modules/", "**/dist/", "proto/src/", "coverage/", "bench/results/", ".data/"] },
  {
    files: ["**/*.ts"],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: "module" },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "no-async-promise-executor": "error",
      "no-case-declarations": "error",
      "no-compare-neg-zero": "error",
      "no-cond-assign": "error",
      "no-constant-binary-expression": "error",
      "no-control-regex": "error",
      "no-debugger": "error",
      "no-dupe-else-if": "error",
      "no-duplicate-case": "error",
      "no-empty": "error",
      "no-empty-character-class": "error",
      "no-empty-pattern": "error",
      "no-ex-assign": "error",
      "no-fallthrough": "error",
      "no-global-assign": "error",
      "no-import-assign": "error",
      "no-invalid-regexp": "error",
      "no-irregular-whitespace": "error",
      "no-loss-of-precision": "error",
      "no-misleading-character-class": "error",
      "no-prototype-builtins": "error",
      "no-self-assign": "error",
      "no-self-compare": "error",
      "no-setter-return": "error",
      "no-sparse-arrays": "error",
      "no-unreachable-loop": "error",
      "no-unsafe-finally": "error",
      "no-unsafe-optional-chaining": "error",
      "no-unused-labels": "error",
      "no-useless-backreference": "error",
      "no-useless-catch": "error",
      "no-var": "error",
      "require-yield": "error",
      "use-isnan": "error",
      "valid-typeof": "error",
      "eqeqeq": "error",
      "@typescript-eslint/ban-ts-comment": "error",
      "@typescript-eslint/no-duplicate-enum-values": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-extra-non-null-assertion": "error",
      "@typescript-eslint/no-misused-new": "error",
      "@typescript-eslint/no-namespace": "error",
      "@typescript-eslint/no-non-null-asserted-optional-chain": "error",
      "@typescript-eslint/no-require-imports": "error",
      "@typescript-eslint/no-this-alias": "error",
      "@typescript-eslint/no-unsafe-declaration-merging": "error",
      "@typescript-eslint/no-unused-expressions": "error",
      "@typescript-eslint/prefer-as-const": "error",
    },
  },
  {
    files: ["services/*/src/**/*.ts"],
    ignores: [...TEST_FILES, PLATFORM_TESTING],
    rules: { "no-restricted-imports": ["error", { patterns: [TEST_CODE] }] },
  },
  // The same rule for the services' own packages, with the service-to-service ban (tests may use the simulators).
  { files: SERVICE_FILES, ignores: [...TEST_FILES, ...NOT_SERVICES], rules: { "no-restricted-imports": ["error", { patterns: [TEST_CODE, serviceImports()] }] } },
  { files: TEST_FILES.map((t) => `services/*/src/${t}`), ignores: NOT_SERVICES, rules: { "no-restricted-imports": ["error", { patterns: [serviceImports("simulators")] }] } },
  // The TypeScript form of the rule, which can let type-only imports through (the events modules). Test
  // code in a domain folder is refused to shipping domain files by the rule above.
  { files: ["services/*/src/domain/**/*.ts"], rules: { "@typescript-eslint/no-restricted-imports": domainImports(EVENTS_PATTERN) } },
);
