import express, { type Express } from "express";
import type { Backends } from "../backends";
import { adminRoutes } from "./health-routes";
import type { HttpMetrics } from "./metrics";

/** The app of the admin port (EARSHOT_METRICS_PORT): metrics and detailed readiness, nothing public. */
export const createAdminApp = (backends: Backends, metrics: HttpMetrics, isDraining: () => boolean): Express => {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(adminRoutes(backends, metrics, isDraining));
  app.use((_req, res) => void res.status(404).json({ status: 404, detail: "Not found." }));
  return app;
};
