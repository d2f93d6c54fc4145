import { DomainError, type Logger } from "@earshot/platform";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import helmet from "helmet";
import type { Backends } from "./backends";
import { healthRoutes } from "./http/health-routes";
import { createHttpMetrics } from "./http/metrics";
import { sendProblem, toProblem } from "./http/problem";
import { requestContext } from "./http/request-context";

export interface GatewayAppOptions {
  backends: Backends;
  logger: Logger;
  isDraining?: () => boolean;
}

/** The REST gateway's express app. Operations come from the catalog; this is the frame around them. */
export const createGatewayApp = (options: GatewayAppOptions): Express => {
  const app = express();
  const metrics = createHttpMetrics();
  app.disable("x-powered-by");
  app.set("trust proxy", true);
  app.use(requestContext);
  app.use(metrics.middleware);
  app.use(helmet({ contentSecurityPolicy: false }));
  app.use(healthRoutes(options.backends, metrics, options.isDraining ?? (() => false)));

  app.use((req: Request, res: Response) => {
    sendProblem(res, toProblem(new DomainError("not_found", `No route for ${req.method} ${req.path}.`), req.requestId, req.path));
  });
  // Express error handler: malformed JSON and anything thrown become problem+json; 5xx details are logged only.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const problem = toProblem(err, req.requestId, req.path);
    if (problem.status >= 500) options.logger.error({ err, path: req.path }, "request failed");
    sendProblem(res, problem);
  });
  return app;
};
