import express, { Router } from "express";
import type { Page, PageDeps } from "./page";

/** The express routes of the pages, each with what it declares it needs and nothing else. */
export const pageRoutes = (pages: readonly Page[], deps: PageDeps): Router => {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: "16kb" });
  for (const page of pages) {
    const handler = (req: express.Request, res: express.Response) => page.handler(req, res, deps);
    const method = page.method === "GET" ? "get" : "post";
    for (const path of page.paths) {
      if (page.form) router[method](path, form, handler);
      else router[method](path, handler);
    }
  }
  return router;
};
