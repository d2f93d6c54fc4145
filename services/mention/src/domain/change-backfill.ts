import { withVersionRetry } from "@earshot/platform/core";
import { MENTIONS } from "../store";
import { commitChanges, numbered } from "./change-sequence";
import type { MentionDeps } from "./deps";

// Mentions stored before the change feed existed carry no number in their project's sequence, so no feed
// read finds them. Once, in the background at start, each project not yet `changesNumbered` has them
// numbered, oldest first (by when they were matched), a page per commit, and is then marked. A stop in
// between leaves the rest to the next start; replicas doing it together number each mention once (a
// mention numbered by another meanwhile is a version conflict, and the page is read again).

/** Mentions numbered per commit. */
const PAGE = 500;

const numberPage = (deps: MentionDeps, projectId: string): Promise<number> =>
  withVersionRetry(async () => {
    const page = await deps.collections.mentions.find({ projectId, changeSeq: { $exists: false } }, { sort: { matchedAt: 1, _id: 1 }, limit: PAGE });
    await commitChanges(deps, new Map([[projectId, page.length]]), (first) => ({
      writes: page.map((m, i) => ({
        kind: "replace",
        collection: MENTIONS,
        doc: numbered({ ...m, _v: (m._v ?? 1) + 1 }, first.get(projectId)! + i),
        expectedVersion: m._v ?? 1,
      })),
      events: [],
    }));
    return page.length;
  });

export const numberOlderMentions = async (deps: MentionDeps, stopping: () => boolean = () => false): Promise<{ projects: number; mentions: number }> => {
  const done = { projects: 0, mentions: 0 };
  for (const project of await deps.collections.projects.find({ changesNumbered: { $exists: false } })) {
    for (;;) {
      if (stopping()) return done;
      const n = await numberPage(deps, project._id);
      done.mentions += n;
      if (n < PAGE) break;
    }
    await deps.collections.projects.updateOne({ _id: project._id }, { $set: { changesNumbered: true } });
    done.projects += 1;
  }
  return done;
};
