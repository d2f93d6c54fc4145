import { MEMBER_TYPE_WORDS, PROJECT_STATUS_WORDS, ROLE_WORDS, SOURCE_WORDS } from "@earshot/platform";
import type { accountV1, projectV1 } from "@earshot/proto";
import { apiWord } from "./wire-enums";

// Presenters: gRPC messages → the JSON resources of the API (times as ISO 8601 UTC strings).

const iso = (d: Date | undefined): string | null => (d ? d.toISOString() : null);

export const presentProject = (p: projectV1.Project | undefined, publicUrl: string) => {
  if (!p) return null;
  const dash = p.publicDashboard;
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    color: p.color,
    icon: p.icon,
    enabledSources: p.enabledSources.map((s) => apiWord(SOURCE_WORDS, s)),
    status: apiWord(PROJECT_STATUS_WORDS, p.status),
    digestTimezone: p.digestTimezone,
    role: apiWord(ROLE_WORDS, p.role),
    workspaceId: p.workspaceId,
    ownerId: p.ownerId,
    publicDashboard: {
      enabled: dash?.enabled ?? false,
      shareUrl: dash?.shareId ? `${publicUrl}/p/${dash.shareId}` : null,
      description: dash?.description ?? "",
      websiteUrl: dash?.websiteUrl || null,
    },
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
    archivedAt: iso(p.archivedAt),
  };
};

export const presentMember = (m: projectV1.Member | undefined) => {
  if (!m) return null;
  return {
    id: m.id,
    projectId: m.projectId,
    memberType: apiWord(MEMBER_TYPE_WORDS, m.memberType),
    userId: m.userId || null,
    email: m.email,
    name: m.name || null,
    role: apiWord(ROLE_WORDS, m.role),
    status: m.status,
    createdAt: iso(m.createdAt),
    expiresAt: iso(m.expiresAt),
  };
};

export const presentUser = (u: accountV1.User | undefined, w: accountV1.Workspace | undefined) => {
  if (!u) return null;
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    status: u.status,
    workspace: w ? { id: w.id, plan: w.plan } : { id: u.workspaceId },
    createdAt: iso(u.createdAt),
    updatedAt: iso(u.updatedAt),
    deactivatedAt: iso(u.deactivatedAt),
  };
};

export const presentApiKey = (k: accountV1.ApiKey | undefined) => {
  if (!k) return null;
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    readOnly: k.scopes.every((s) => s.endsWith(":read")),
    createdAt: iso(k.createdAt),
    expiresAt: iso(k.expiresAt),
    lastUsedAt: iso(k.lastUsedAt),
    revokedAt: iso(k.revokedAt),
  };
};
