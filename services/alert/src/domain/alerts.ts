import { conflict, type FieldError, newId, notFound, type Page, pageLimit, runOnce, validationFailed, withCursorErrors, withVersionRetry, zodFieldErrors } from "@earshot/platform/core";
import type { z } from "zod";
import { alertChangedEvent, alertDeletedEvent } from "../events";
import { createAlertSchema, updateAlertSchema } from "../fields";
import { ALERTS, type AlertDoc, alertSortKey } from "../store";
import { accessProject } from "./access";
import { ensureDailyDigest } from "./daily-digest";
import type { AlertDeps, Caller, ProjectRole } from "./deps";

// Alert rules: which of a project's mentions are emailed to the workspace owner, in the daily digest and
// as instant alerts. Editors and owners manage them; the address is never part of a rule (it is always
// the workspace owner's). That a rule's keywords and groups belong to its project is checked against the
// keyword service by the edge before the write reaches this service.

const parse = <S extends z.ZodType>(schema: S, value: unknown, extra: FieldError[] = []): z.output<S> => {
  const parsed = schema.safeParse(value);
  const errors = [...extra, ...(parsed.success ? [] : zodFieldErrors(parsed.error.issues))];
  if (errors.length > 0 || !parsed.success) throw validationFailed(errors);
  return parsed.data;
};

/** A rule the caller may act on with `minimum`, refused as not_found "Alert" otherwise. */
const loadAlert = async (deps: AlertDeps, caller: Caller, alertId: string, minimum: ProjectRole): Promise<AlertDoc> => {
  const alert = alertId ? await deps.collections.alerts.findById(alertId) : null;
  if (!alert) throw notFound("Alert");
  await accessProject(deps, caller, alert.projectId, minimum, "Alert");
  return alert;
};

export interface CreateAlertInput {
  projectId: string;
  name: string;
  active?: boolean;
  channels?: unknown;
  digest?: unknown;
  instant?: boolean;
  filters?: unknown;
}

export const createAlert = async (deps: AlertDeps, caller: Caller, input: CreateAlertInput, effectKey?: string): Promise<AlertDoc> => {
  const { projectId, ...fields } = input;
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  const parsed = parse(createAlertSchema, defined, projectId ? [] : [{ path: "projectId", message: "is required" }]);
  const access = await accessProject(deps, caller, projectId, "editor");
  await ensureDailyDigest(deps, access);
  return runOnce(
    deps.outbox,
    effectKey,
    (effect) => loadAlert(deps, caller, effect.resourceId, "viewer"),
    async () => {
      const now = deps.clock.now();
      const id = newId("alr", now.getTime());
      const alert: AlertDoc = {
        _id: id,
        projectId,
        workspaceId: access.workspaceId,
        ...parsed,
        kind: "custom",
        sortKey: alertSortKey("custom", id),
        createdAt: now,
        updatedAt: now,
        _v: 1,
      };
      await deps.outbox.commit([{ kind: "insert", collection: ALERTS, doc: alert }], [alertChangedEvent("alert.created", alert)], effectKey ? { key: effectKey, resourceId: id } : undefined);
      return alert;
    },
  );
};

export const getAlert = (deps: AlertDeps, caller: Caller, alertId: string): Promise<AlertDoc> => loadAlert(deps, caller, alertId, "viewer");

/** A project's rules: its Daily Digest first (made now for a project that predates this service), then oldest first. */
export const listAlerts = async (deps: AlertDeps, caller: Caller, input: { projectId: string; limit?: number; cursor?: string }): Promise<Page<AlertDoc>> => {
  if (!input.projectId) throw validationFailed([{ path: "projectId", message: "is required" }]);
  const limit = pageLimit(input.limit);
  const access = await accessProject(deps, caller, input.projectId, "viewer");
  await ensureDailyDigest(deps, access);
  return withCursorErrors(() => deps.collections.alerts.findPage({ projectId: input.projectId }, { limit, cursor: input.cursor ?? null, sortField: "sortKey" }));
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Changes any of the rule's fields; a given object replaces the old one whole; unchanged input changes nothing. */
export const updateAlert = (deps: AlertDeps, caller: Caller, alertId: string, update: Record<string, unknown>): Promise<AlertDoc> =>
  withVersionRetry(async () => {
    const defined = Object.fromEntries(Object.entries(update).filter(([, v]) => v !== undefined));
    const parsed = parse(updateAlertSchema, defined);
    const alert = await loadAlert(deps, caller, alertId, "editor");
    const next: AlertDoc = { ...alert };
    const changed: string[] = [];
    for (const field of ["name", "active", "channels", "digest", "instant", "filters"] as const) {
      const value = parsed[field];
      if (value === undefined || same(value, alert[field])) continue;
      (next as unknown as Record<string, unknown>)[field] = value;
      changed.push(field);
    }
    if (changed.length === 0) return alert;
    next.updatedAt = deps.clock.now();
    next._v = (alert._v ?? 1) + 1;
    await deps.outbox.commit([{ kind: "replace", collection: ALERTS, doc: next, expectedVersion: alert._v ?? 1 }], [alertChangedEvent("alert.updated", next, changed)]);
    return next;
  });

/** Deletes a rule. The Daily Digest stays (turn it off with `active` or `digest.enabled` instead). */
export const deleteAlert = async (deps: AlertDeps, caller: Caller, alertId: string): Promise<AlertDoc> => {
  const alert = await loadAlert(deps, caller, alertId, "editor");
  if (alert.kind === "daily_digest") {
    throw conflict("The Daily Digest is every project's own rule and cannot be deleted; set active or digest.enabled to false to stop it.", { alertId });
  }
  await deps.outbox.commit([{ kind: "delete", collection: ALERTS, id: alertId }], [alertDeletedEvent(alert)]);
  return alert;
};
