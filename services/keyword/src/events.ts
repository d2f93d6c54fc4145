import { stageEvent, type StagedEvent } from "@earshot/platform/core";
import { filtersMessage, type GroupView, toGroupMessage, toKeywordMessage } from "./resource-messages";
import type { KeywordDoc } from "./store";
import { KEYWORD_EVENTS, type GroupChangeType, type KeywordChangeType, type KeywordChanged, type KeywordGroupChanged } from "@earshot/contracts/events/keyword";

// The keyword service's events: the builders its domain stages through the outbox. The catalog and the
// decoded event types are the contract layer's (`@earshot/contracts/events`), re-exported here for this
// service's own code; other services read them from the contract layer.

export * from "@earshot/contracts/events/keyword";

export const keywordEvent = (type: KeywordChangeType, k: KeywordDoc, fields: string[] = []): StagedEvent<KeywordChanged> =>
  stageEvent(KEYWORD_EVENTS, type, { key: k.projectId, subject: k._id }, {
    keywordId: k._id,
    projectId: k.projectId,
    workspaceId: k.workspaceId,
    groupId: k.groupId,
    value: k.value,
    sources: [...k.sources],
    aliases: [...k.aliases],
    excludedTerms: [...k.excludedTerms],
    filters: filtersMessage(k),
    caseSensitive: k.caseSensitive,
    active: k.active,
    fields,
    updatedAt: k.updatedAt.toISOString(),
    keyword: toKeywordMessage(k),
  });

/** A group's event, carrying the group with its counts as list_keyword_groups presents it. */
export const groupEvent = (type: GroupChangeType, view: GroupView, fields: string[] = []): StagedEvent<KeywordGroupChanged> => {
  const g = view.group;
  return stageEvent(KEYWORD_EVENTS, type, { key: g.projectId, subject: g._id }, {
    groupId: g._id,
    projectId: g.projectId,
    workspaceId: g.workspaceId,
    name: g.name,
    order: g.order,
    isDefault: g.kind !== "custom",
    fields,
    group: toGroupMessage(view),
  });
};
