import type { FieldError } from "@earshot/platform";
import type { z } from "zod";
import type { Operation } from "./operation";

// A field an operation does not take is refused, never ignored: `sentimnt=negative` silently returning
// every mention is a wrong answer a user acts on. The refusal names the field and, when one of the
// operation's own fields is a likely typo of it, that field.

const shapeKeys = (schema: z.ZodObject | undefined): string[] => (schema ? Object.keys(schema.shape) : []);

/** Every field name the operation takes, in its path, query and body. */
export const fieldsOf = (op: Operation): string[] => [...new Set([...shapeKeys(op.input.path), ...shapeKeys(op.input.query), ...shapeKeys(op.input.body)])];

/** Edit distance (insertions, deletions, substitutions, and swaps of two neighbours), case-insensitive. */
const distance = (a: string, b: string): number => {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min((d[i - 1]![j] as number) + 1, (d[i]![j - 1] as number) + 1, (d[i - 1]![j - 1] as number) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, (d[i - 2]![j - 2] as number) + 1);
      d[i]![j] = best;
    }
  }
  return d[s.length]![t.length] as number;
};

/** The operation's field a typed name most likely meant, when one is close enough to be a typo. */
export const nearestField = (name: string, known: readonly string[]): string | undefined => {
  let best: { field: string; d: number } | undefined;
  for (const field of known) {
    const d = distance(name, field);
    if (!best || d < best.d) best = { field, d };
  }
  return best && best.d <= Math.max(2, Math.floor(name.length / 3)) ? best.field : undefined;
};

/** The refusal of a field the operation does not take. */
export const unknownField = (op: Operation, name: string, where: "query" | "field"): FieldError => {
  const known = fieldsOf(op);
  const near = nearestField(name, known);
  const what = where === "query" ? `is not a query parameter of ${op.name}` : `is not a field of ${op.name}`;
  const hint = near ? `; did you mean \`${near}\`?` : known.length > 0 ? ` (it takes ${known.map((k) => `\`${k}\``).join(", ")})` : " (it takes none)";
  return { path: name, message: `${what}${hint}` };
};
