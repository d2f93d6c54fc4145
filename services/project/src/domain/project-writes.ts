import type { Write } from "@earshot/platform/core";
import { PROJECTS, type ProjectDoc } from "../store";

// The write every verb that changes a project commits, in a file of its own so the verbs (projects.ts,
// dashboard.ts, deactivation.ts, dashboard-announcement.ts) share it without importing each other.

/** Replaces a project read at version `_v`; the caller retries on a version conflict. */
export const replaceProject = (project: ProjectDoc, next: ProjectDoc): Write => ({
  kind: "replace",
  collection: PROJECTS,
  doc: next,
  expectedVersion: project._v ?? 1,
});

/** The project at its next version. */
export const bumped = (p: ProjectDoc): ProjectDoc => ({ ...p, _v: (p._v ?? 1) + 1 });
