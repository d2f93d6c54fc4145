import { z } from "zod";

// A service declares its own settings once, as a zod shape on its ServiceModule (`settings`). The hosts
// load them with the shared ones (a service's own main, the all-in-one), and the deployment files are
// derived from them: a secret setting goes to the Kubernetes Secret and the chart's `global.secrets`,
// any other to the chart's `global.settings`. Secret ones are marked with `secret(...)`.

export type SettingsShape = z.ZodRawShape;

export interface SecretMark {
  /**
   * A deployment on MongoDB must set it, though the embedded default can go without (it generates or
   * does without one): the chart refuses to render without it and the example Secret lists it.
   */
  requiredWhenDeployed?: boolean;
  /** What the value is and how to make one, for the example Secret and the chart's values. */
  note?: string;
}

// Held wrapped: a zod registry reports an empty entry as no entry.
const secrets = z.registry<{ mark: SecretMark }>();

/** Marks a setting secret: `EARSHOT_X_BEARER_TOKEN: secret(z.string().min(1).optional())`. */
export const secret = <T extends z.ZodType>(schema: T, mark: SecretMark = {}): T => {
  // A copy, so one schema value shared by several settings can be marked for each on its own.
  const marked = schema.clone() as T;
  secrets.add(marked, { mark });
  return marked;
};

/** The mark of a secret setting; undefined for any other. */
export const secretMarkOf = (schema: z.core.$ZodType): SecretMark | undefined => secrets.get(schema)?.mark;

export interface DeclaredSetting {
  name: string;
  /** Who declares it: a service's name, `edge`, `platform`. */
  owner: string;
  secret: SecretMark | undefined;
}

/** Every setting of the given shapes, with who declares it and its secret mark. */
export const declaredSettings = (parts: ReadonlyArray<{ owner: string; shape: SettingsShape }>): DeclaredSetting[] =>
  parts.flatMap(({ owner, shape }) => Object.entries(shape).map(([name, schema]) => ({ name, owner, secret: secretMarkOf(schema) })));

/**
 * The shapes as one, for a host loading them together. Two owners declaring one name would have one
 * silently replace the other (and its default or check), so that is refused, naming both.
 */
export const combineSettings = (parts: ReadonlyArray<{ owner: string; shape: SettingsShape }>): SettingsShape => {
  const combined: Record<string, z.core.$ZodType> = {};
  const owners = new Map<string, string>();
  for (const { owner, shape } of parts) {
    for (const [name, schema] of Object.entries(shape)) {
      const first = owners.get(name);
      if (first !== undefined && combined[name] !== schema) throw new Error(`setting ${name} is declared by both ${first} and ${owner}`);
      owners.set(name, first ?? owner);
      combined[name] = schema;
    }
  }
  return combined;
};
