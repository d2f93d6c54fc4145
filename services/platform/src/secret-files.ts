import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Env } from "./config";
import { secretMarkOf } from "./settings";

// Secret settings may arrive as files rather than environment values, so a Kubernetes Secret can be
// mounted as a volume (never visible in the pod spec, `kubectl describe` or /proc/<pid>/environ of a
// child): `<NAME>_FILE` names the file of one setting (the usual convention), and EARSHOT_SECRETS_DIR a
// directory holding a file per setting, named after it (a Secret mounted whole, whatever keys it holds).
// A value given twice is refused, never silently chosen.

export const SECRETS_DIR_VAR = "EARSHOT_SECRETS_DIR";

/** The content of a secret file: its value, without the trailing newline editors and `echo` add. */
const readSecretFile = (path: string): string => readFileSync(path, "utf8").replace(/\r?\n$/, "");

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** The names of the secret settings of a config schema (an object schema); none for any other schema. */
export const secretSettingNames = (schema: z.ZodType): string[] =>
  schema instanceof z.ZodObject ? Object.entries(schema.shape as Record<string, z.ZodType>).filter(([, s]) => secretMarkOf(s)).map(([name]) => name) : [];

/**
 * The environment with each secret setting's file read into it: from `<NAME>_FILE`, else from
 * `<EARSHOT_SECRETS_DIR>/<NAME>` when that file exists. Returns the problems instead when a setting is
 * given twice or a named file cannot be read.
 */
export const resolveSecretFiles = (names: readonly string[], env: Env): { env: Env; problems: string[] } => {
  const resolved: Env = { ...env };
  const problems: string[] = [];
  const dir = env[SECRETS_DIR_VAR] || undefined;
  if (dir !== undefined && !statSync(dir, { throwIfNoEntry: false })?.isDirectory()) problems.push(`${SECRETS_DIR_VAR}: ${dir} is not a readable directory`);
  for (const name of names) {
    const fileVar = `${name}_FILE`;
    const given = env[name] !== undefined && env[name] !== "";
    const file = env[fileVar] || undefined;
    const inDir = dir !== undefined && !file ? join(dir, name) : undefined;
    const source = file ?? (inDir !== undefined && isFile(inDir) ? inDir : undefined);
    if (source === undefined) continue;
    if (given) {
      problems.push(file ? `${name}: set both as ${name} and as ${fileVar}; give one` : `${name}: set both as ${name} and in ${SECRETS_DIR_VAR} (${source}); give one`);
      continue;
    }
    try {
      resolved[name] = readSecretFile(source);
    } catch (err) {
      problems.push(`${file ? fileVar : SECRETS_DIR_VAR}: cannot read ${source} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    // The path is not the value: keep it out of what the schema sees.
    delete resolved[fileVar];
  }
  return { env: resolved, problems };
};
