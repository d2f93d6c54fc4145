import type { FieldError } from "@earshot/platform";
import type { Request } from "express";
import { SOURCE_ORDER } from "./charts";

// What a dashboard URL may ask for, checked at the edge so a bad value is a 400 naming the parameter
// (never a 500): the period (`days`: 7, 30 or 90), sources (`source`, repeated or comma-separated),
// keyword groups by name (`group`, repeated), the page (`cursor`) and, for mentions.json, `limit`.
// Other parameters (an embedding site's tracking ones) are ignored.

export const PERIODS = [7, 30, 90] as const;
export const DEFAULT_PERIOD = 30;
export const PAGE_SIZE = 20;
const MAX_GROUPS = 20;
const MAX_GROUP_NAME = 100;
const MAX_CURSOR = 512;

export interface DashboardQuery {
  days: number;
  sources: string[];
  groups: string[];
  cursor?: string;
  limit: number;
}

const valuesOf = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

const isText = (v: unknown): v is string => typeof v === "string";

export const parseDashboardQuery = (req: Request, options: { limit: boolean }): { query: DashboardQuery; errors: FieldError[] } => {
  const q = req.query as Record<string, unknown>;
  const errors: FieldError[] = [];
  const query: DashboardQuery = { days: DEFAULT_PERIOD, sources: [], groups: [], limit: PAGE_SIZE };

  const days = valuesOf(q.days);
  if (days.length > 1 || (days.length === 1 && !PERIODS.includes(Number(days[0]) as (typeof PERIODS)[number]))) {
    errors.push({ path: "days", message: `must be one of ${PERIODS.join(", ")}` });
  } else if (days.length === 1 && isText(days[0]) && days[0] !== "") query.days = Number(days[0]);

  const sources = valuesOf(q.source);
  if (!sources.every(isText)) errors.push({ path: "source", message: "must be a source name" });
  else {
    for (const s of sources.flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean)) {
      if (!(SOURCE_ORDER as readonly string[]).includes(s)) errors.push({ path: "source", message: `must be one of ${SOURCE_ORDER.join(", ")}` });
      else if (!query.sources.includes(s)) query.sources.push(s);
    }
  }

  const groups = valuesOf(q.group);
  if (!groups.every(isText) || groups.length > MAX_GROUPS || groups.some((g) => g.length > MAX_GROUP_NAME)) {
    errors.push({ path: "group", message: `must be at most ${MAX_GROUPS} keyword group names of at most ${MAX_GROUP_NAME} characters` });
  } else query.groups = [...new Set(groups.filter((g) => g !== ""))];

  const cursor = valuesOf(q.cursor);
  if (cursor.length > 1 || !cursor.every(isText) || cursor.some((c) => c.length > MAX_CURSOR)) errors.push({ path: "cursor", message: "is not a cursor this dashboard gave" });
  else if (cursor[0]) query.cursor = cursor[0];

  if (options.limit) {
    const limit = valuesOf(q.limit);
    const value = Number(limit[0]);
    if (limit.length > 1 || (limit.length === 1 && (!Number.isInteger(value) || value < 1 || value > 100))) errors.push({ path: "limit", message: "must be an integer from 1 to 100" });
    else if (limit.length === 1) query.limit = value;
  }
  return { query, errors };
};

/** The query string of a dashboard URL (defaults left out), for links and forms. */
export const queryString = (q: Pick<DashboardQuery, "days" | "sources" | "groups"> & { cursor?: string }): string => {
  const params = new URLSearchParams();
  if (q.days !== DEFAULT_PERIOD) params.set("days", String(q.days));
  for (const s of q.sources) params.append("source", s);
  for (const g of q.groups) params.append("group", g);
  if (q.cursor) params.set("cursor", q.cursor);
  const text = params.toString();
  return text ? `?${text}` : "";
};

/** The mention service names the public filters' members; the URL names them its own way. */
export const urlPathOf = (path: string): string => {
  if (path.startsWith("groupNames")) return "group";
  if (path.startsWith("sources")) return "source";
  return path;
};
