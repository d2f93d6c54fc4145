import { ACME, authorizeLinkedin, connectedProject } from "../linkedin-flow";
import { type Cases, freshProject, MISSING_PROJECT } from "./support";

// LinkedIn: the harness of these cases serves LinkedIn from its simulator (operations.test.ts).
export const linkedinCases: Cases = {
  get_linkedin_connect_url: {
    happy: async (_h, w) => ({
      input: { projectId: w.projectId },
      status: 200,
      check: (b) => expect(b.data).toMatchObject({ projectId: w.projectId, url: expect.stringContaining("/oauth/v2/authorization?"), expiresAt: expect.any(String) }),
    }),
    bad: async () => ({ input: { projectId: "x".repeat(65), pageUrn: "urn" }, fields: ["projectId", "pageUrn"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId }, as: "editor" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  get_linkedin_integration: {
    happy: async (_h, w) => ({ input: { projectId: w.projectId }, status: 200, check: (b) => expect(b.data).toMatchObject({ projectId: w.projectId, syncsPerDay: 20 }) }),
    bad: async () => ({ input: { projectId: "x".repeat(65) }, fields: ["projectId"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId }, as: "viewer" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  select_linkedin_page: {
    happy: async (h) => {
      const { owner, projectId } = await freshProject(h);
      await authorizeLinkedin(h, owner, projectId);
      return { input: { projectId, organizationUrn: ACME }, key: owner.key, status: 200, check: (b) => expect(b.data).toMatchObject({ status: "connected", page: { organizationUrn: ACME } }) };
    },
    bad: async (_h, w) => ({ input: { projectId: w.projectId, organizationUrn: "" }, fields: ["organizationUrn"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId, organizationUrn: ACME }, as: "editor" }),
    foreign: async (_h, w) => ({
      foreign: { input: { projectId: w.strangerProjectId, organizationUrn: ACME } },
      missing: { input: { projectId: MISSING_PROJECT, organizationUrn: ACME } },
    }),
  },
  sync_linkedin: {
    happy: async (h) => {
      const owner = await h.newActor();
      const { projectId } = await connectedProject(h, owner);
      return { input: { projectId }, key: owner.key, status: 200, check: (b) => expect(b.data).toMatchObject({ postsFound: 0, integration: { status: "connected", syncsLeftToday: 18 } }) };
    },
    bad: async () => ({ input: { projectId: "" }, fields: ["projectId"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId }, as: "editor" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
  disconnect_linkedin: {
    happy: async (_h, w) => ({ input: { projectId: w.projectId }, status: 200, check: (b) => expect(b.data).toMatchObject({ projectId: w.projectId, status: "disconnected", page: null }) }),
    bad: async () => ({ input: { projectId: "x".repeat(65) }, fields: ["projectId"] }),
    tooWeak: async (_h, w) => ({ input: { projectId: w.projectId }, as: "editor" }),
    foreign: async (_h, w) => ({ foreign: { input: { projectId: w.strangerProjectId } }, missing: { input: { projectId: MISSING_PROJECT } } }),
  },
};
