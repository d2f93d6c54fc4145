import { type FieldError, validationFailed, zodFieldErrors } from "@earshot/platform/core";
import type { z } from "zod";

// Input checks every verb of the reads shares: the shared field schemas run as the edge runs them, with
// the same field errors, and the parsed (trimmed) values kept.

export const required = (value: string | undefined, path: string): FieldError[] => (value ? [] : [{ path, message: "is required" }]);

/** The parsed value of a field schema, or 400 naming each bad field (with `extraErrors` found before). */
export const parseFields = <S extends z.ZodType>(schema: S, value: unknown, extraErrors: FieldError[] = []): z.infer<S> => {
  const parsed = schema.safeParse(value);
  const errors = [...extraErrors, ...(parsed.success ? [] : zodFieldErrors(parsed.error.issues))];
  if (errors.length > 0 || !parsed.success) throw validationFailed(errors);
  return parsed.data;
};
