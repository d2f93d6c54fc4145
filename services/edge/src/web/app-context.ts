import type { Request, Response } from "express";
import { escapeHtml } from "../pages/html";
import { type LayoutOptions, sendAppPage } from "./layout";
import type { OperationResult, OperationRunner, Problem } from "./run-operation";
import type { WebSession } from "../sessions/session-store";

// What a signed-in page handler works with: the request, the session, and the operations run as its person.

export interface AppContext {
  req: Request;
  res: Response;
  session: WebSession;
  run<T = unknown>(name: string, input: Record<string, unknown>, idempotencyKey?: string): Promise<OperationResult<T>>;
  /** Sends a page with the signed-in frame. */
  page(status: number, o: Omit<LayoutOptions, "user">): void;
  /** Sends the page for a problem an operation answered (404 for another workspace's ids, 403 for a viewer's post...). */
  problem(p: Problem): void;
}

const PROBLEM_TITLES: Record<number, string> = { 400: "That did not work", 401: "Sign in again", 403: "Not allowed", 404: "Not found", 409: "Conflict", 429: "Slow down" };

export const appContext = (req: Request, res: Response, session: WebSession, runner: OperationRunner): AppContext => {
  const user = { name: session.name, email: session.email, csrf: session.csrf };
  const page: AppContext["page"] = (status, o) => sendAppPage(res, status, { ...o, user });
  return {
    req,
    res,
    session,
    run: (name, input, key) => runner.run(name, input, req, session, key),
    page,
    problem: (p) => {
      const status = p.status >= 500 ? 503 : p.status;
      const detail = p.status === 404 ? "There is nothing here, or it belongs to a project you are not a member of." : p.status >= 500 ? "Earshot could not do that right now. Try again shortly." : (p.detail ?? "");
      const fields = (p.errors ?? []).map((e) => `<li><code>${escapeHtml(e.path)}</code> ${escapeHtml(e.message)}</li>`).join("");
      page(status, {
        title: PROBLEM_TITLES[status] ?? "Something went wrong",
        body: `<p role="alert">${escapeHtml(detail)}</p>${fields ? `<ul>${fields}</ul>` : ""}<p><a href="/app">Back to your projects</a></p>`,
      });
    },
  };
};

/** The project a page's address names, with the person's role in it (get_project); its problem page sent, and undefined, when not theirs. */
export interface PageProject {
  id: string;
  name: string;
  role: string;
}

export const projectOf = async (ctx: AppContext): Promise<PageProject | undefined> => {
  const r = await ctx.run<PageProject>("get_project", { projectId: String(ctx.req.params.projectId) });
  if (!r.ok) return void ctx.problem(r.problem);
  return r.data;
};
