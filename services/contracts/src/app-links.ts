// Where the web app's pages are (the edge serves them under /app): what an email links to, written the
// same way by every service that sends one. A page reached without a session asks to sign in first and
// then opens the page itself.

const seg = encodeURIComponent;

export const appLinks = (publicUrl: string) => {
  const base = publicUrl.replace(/\/+$/, "");
  const project = (projectId: string) => `${base}/app/projects/${seg(projectId)}`;
  return {
    /** The project's inbox: its mentions, newest first. */
    project,
    mention: (projectId: string, mentionId: string) => `${project(projectId)}/mentions/${seg(mentionId)}`,
    alert: (projectId: string, alertId: string) => `${project(projectId)}/alerts/${seg(alertId)}`,
    webhook: (projectId: string, endpointId: string) => `${project(projectId)}/webhooks/${seg(endpointId)}`,
    members: (projectId: string) => `${project(projectId)}/members`,
    /** How collection is going, and the project's feeds with their errors. */
    sources: (projectId: string) => `${project(projectId)}/sources`,
    /** An alert email's one-click unsubscribe: works without a session (the signed token is the permission). */
    unsubscribe: (token: string) => `${base}/app/unsubscribe/${seg(token)}`,
  };
};
