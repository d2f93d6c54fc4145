import { MEMBER_TYPE_WORDS, ROLE_WORDS } from "@earshot/platform";
import { MEMBER_STATUS_WORDS, MEMBER_STATUSES, MEMBER_TYPES, PROJECT_ROLES } from "@earshot/project/fields";
import type { projectV1 } from "@earshot/proto";
import { z } from "zod";
import { at, atOrNull, oneOf, optionalTimestamp, required, resourceSchemas, timestamp } from "../shared/resources";
import { apiWord } from "../shared/wire-enums";

export const memberSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    memberType: z.enum(MEMBER_TYPES),
    userId: z.string().nullable().describe("Null for an invitation nobody accepted."),
    email: z.string(),
    name: z.string().nullable(),
    role: z.enum(PROJECT_ROLES),
    status: z.enum(MEMBER_STATUSES),
    createdAt: timestamp,
    expiresAt: optionalTimestamp.describe("When an invitation lapses; null for members."),
  })
  .register(resourceSchemas, { id: "Member", description: "A member of a project, or an invitation (memberType invite)." });

export type Member = z.output<typeof memberSchema>;

export const presentMember = (message: projectV1.Member | undefined): Member => {
  const m = required(message, "member");
  return {
    id: m.id,
    projectId: m.projectId,
    memberType: oneOf(MEMBER_TYPES, apiWord(MEMBER_TYPE_WORDS, m.memberType), "member type"),
    userId: m.userId || null,
    email: m.email,
    name: m.name || null,
    role: oneOf(PROJECT_ROLES, apiWord(ROLE_WORDS, m.role), "role"),
    status: oneOf(MEMBER_STATUSES, apiWord(MEMBER_STATUS_WORDS, m.status), "member status"),
    createdAt: at(m.createdAt, "member createdAt"),
    expiresAt: atOrNull(m.expiresAt),
  };
};
