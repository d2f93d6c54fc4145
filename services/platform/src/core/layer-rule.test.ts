import { execFile } from "node:child_process";
import { resolve } from "node:path";

// The rule lives in the repository's ESLint config; this runs ESLint's own API on it in a child process
// (ESLint loads its flat config with a dynamic import, which Jest's module sandbox does not allow).

const ROOT = resolve(__dirname, "../../../..");

interface Case {
  file: string;
  source: string;
}

const LINT = `
import { ESLint } from "eslint";
const cases = JSON.parse(process.argv[1]);
const eslint = new ESLint({ cwd: process.cwd() });
const out = [];
for (const c of cases) {
  const [result] = await eslint.lintText(c.source, { filePath: c.file });
  out.push(result.messages.map((m) => m.ruleId ?? "fatal: " + m.message));
}
process.stdout.write(JSON.stringify(out));
`;

const lint = (cases: Case[]): Promise<string[][]> =>
  new Promise((done, fail) => {
    execFile(process.execPath, ["--input-type=module", "-e", LINT, JSON.stringify(cases)], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) =>
      err ? fail(new Error(`${err.message}\n${stderr}`)) : done(JSON.parse(stdout) as string[][]),
    );
  });

const inDomain = (source: string): Case => ({ file: resolve(ROOT, "services/project/src/domain/example.ts"), source });

const FORBIDDEN = [
  'import { MongoClient } from "mongodb";',
  'import Datastore from "@seald-io/nedb";',
  'import { Kafka } from "kafkajs";',
  'import { status } from "@grpc/grpc-js";',
  'import express from "express";',
  'import { projectV1 } from "@earshot/proto";',
  'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";',
  'import nodemailer from "nodemailer";',
  'import { newId } from "@earshot/platform";',
  'import { openEmbeddedStore } from "@earshot/platform/store";',
  'import type { DocumentStore } from "@earshot/platform/store";',
  'import { startGrpcServer } from "@earshot/platform/grpc";',
  'import { createInProcessBus } from "@earshot/platform/bus";',
  'import { makeTempDir } from "@earshot/platform/testing";',
  'import { openEmbeddedStore } from "../../../platform/src/store/embedded";',
  'export { MongoClient } from "mongodb";',
  'import { PROJECT_EVENTS } from "@earshot/contracts/events";',
];

const ALLOWED = [
  'import { newId, type Write } from "@earshot/platform/core";',
  'import { z } from "zod";',
  'import { randomBytes } from "node:crypto";',
  'import { PROJECTS } from "../store";',
  'import type { ProjectDeps } from "./deps";',
  'import type { ProjectEvent } from "@earshot/contracts/events";',
  'import { keywordEvent } from "../events";',
];

describe("the domain layer rule", () => {
  let results: string[][];
  beforeAll(async () => {
    results = await lint([
      ...FORBIDDEN.map(inDomain),
      ...ALLOWED.map(inDomain),
      { file: resolve(ROOT, "services/account/src/domain/example.ts"), source: 'import { MongoClient } from "mongodb";' },
      { file: resolve(ROOT, "services/project/src/rpc/example.ts"), source: 'import { MongoClient } from "mongodb";\nimport { startGrpcServer } from "@earshot/platform/grpc";' },
    ]);
  });

  it.each(FORBIDDEN.map((source, i) => [source, i] as const))("refuses `%s` in a domain file", (_source, i) => {
    expect(results[i]).toEqual(["@typescript-eslint/no-restricted-imports"]);
  });

  it.each(ALLOWED.map((source, i) => [source, FORBIDDEN.length + i] as const))("allows `%s` in a domain file", (_source, i) => {
    expect(results[i]).toEqual([]);
  });

  it("applies to every service's domain folder", () => {
    expect(results[FORBIDDEN.length + ALLOWED.length]).toEqual(["@typescript-eslint/no-restricted-imports"]);
  });

  it("leaves wiring outside the domain free to import adapters and transports", () => {
    expect(results[FORBIDDEN.length + ALLOWED.length + 1]).toEqual([]);
  });
});
