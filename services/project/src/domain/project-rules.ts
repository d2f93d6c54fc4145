import { checkText, countCharacters, type FieldError, type TextLimit } from "@earshot/platform/core";

// Field rules and defaults of a project (API spec section 2). The edge validates the same rules with its
// schemas; the service checks them again because it owns the invariant, with the same bounded character
// counting (gRPC callers reach it without the edge).

export const SOURCES = ["x", "reddit", "youtube", "linkedin"] as const;
export type Source = (typeof SOURCES)[number];
export const PROJECT_STATUSES = ["active", "paused", "archived"] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export type ProjectRole = "owner" | "editor" | "viewer";

export const PROJECT_DEFAULTS = {
  description: "",
  color: "#7e47eb",
  icon: "📡",
  enabledSources: [...SOURCES] as Source[],
  digestTimezone: "UTC",
};

export const DIGEST_HOUR = 8;

const COLOR_RE = /^#[0-9a-fA-F]{6}$/;

/** The text limits of a project's fields, in user-perceived characters (and UTF-8 bytes). */
export const TEXT_LIMITS = {
  name: { min: 1, max: 100 },
  description: { max: 500 },
  icon: { max: 10 },
  dashboardDescription: { max: 500 },
} satisfies Record<string, TextLimit>;

/**
 * Counts user-perceived characters, so an emoji icon is one character, not two UTF-16 units; stops one
 * past `stopAfter` so that a long string costs no more than the limit it is compared with.
 */
export const charLength = (s: string, stopAfter?: number): number => countCharacters(s, stopAfter);

export const isIanaTimezone = (tz: string): boolean => {
  if (tz.length === 0 || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const isProjectStatus = (s: string): s is ProjectStatus => (PROJECT_STATUSES as readonly string[]).includes(s);

export interface ProjectFields {
  name?: string;
  description?: string;
  color?: string;
  icon?: string;
  enabledSources?: string[];
  digestTimezone?: string;
}

export const checkProjectFields = (f: ProjectFields): FieldError[] => {
  const errors: FieldError[] = [];
  errors.push(...checkText("name", f.name, TEXT_LIMITS.name));
  errors.push(...checkText("description", f.description, TEXT_LIMITS.description));
  if (f.color !== undefined && !COLOR_RE.test(f.color)) errors.push({ path: "color", message: "must be # followed by 6 hex digits" });
  errors.push(...checkText("icon", f.icon, TEXT_LIMITS.icon));
  if (f.enabledSources !== undefined) {
    if (f.enabledSources.length === 0) errors.push({ path: "enabledSources", message: "must name at least one source" });
    f.enabledSources.forEach((s, i) => {
      if (!(SOURCES as readonly string[]).includes(s)) errors.push({ path: `enabledSources.${i}`, message: `must be one of ${SOURCES.join(", ")}` });
    });
    if (new Set(f.enabledSources).size !== f.enabledSources.length) errors.push({ path: "enabledSources", message: "must not repeat a source" });
  }
  if (f.digestTimezone !== undefined && !isIanaTimezone(f.digestTimezone)) {
    errors.push({ path: "digestTimezone", message: "must be an IANA time zone such as Europe/Paris" });
  }
  return errors;
};
