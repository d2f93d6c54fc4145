import type { FieldError } from "@earshot/platform";

// Field rules and defaults of a project (API spec section 2). The edge validates the same rules with its
// schemas; the service checks them again because it owns the invariant.

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

/** Counts user-perceived characters, so an emoji icon is one character, not two UTF-16 units. */
export const charLength = (s: string): number => [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(s)].length;

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
  if (f.name !== undefined && (f.name.trim().length < 1 || charLength(f.name) > 100)) {
    errors.push({ path: "name", message: "must be 1 to 100 characters" });
  }
  if (f.description !== undefined && charLength(f.description) > 500) errors.push({ path: "description", message: "must be at most 500 characters" });
  if (f.color !== undefined && !COLOR_RE.test(f.color)) errors.push({ path: "color", message: "must be # followed by 6 hex digits" });
  if (f.icon !== undefined && charLength(f.icon) > 10) errors.push({ path: "icon", message: "must be at most 10 characters" });
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
