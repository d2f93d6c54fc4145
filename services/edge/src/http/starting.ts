import type { IncomingMessage, ServerResponse } from "node:http";
import { DomainError, newId } from "@earshot/platform";
import { toProblem } from "./problem";

// The port is bound before the app exists (the public URL defaults to the bound port), so requests can
// arrive while the gateway is still starting. They get a prompt 503 telling the client when to retry
// instead of hanging until the app is ready.

export const STARTING_RETRY_AFTER_SECONDS = 1;

export const answerWhileStarting = (req: IncomingMessage, res: ServerResponse): void => {
  const requestId = newId("req");
  const path = (req.url ?? "/").split("?")[0];
  const problem = toProblem(new DomainError("unavailable", "Earshot is starting; retry in a moment."), requestId, path);
  // Nothing reads the body; let it drain so the socket can carry the answer.
  req.resume();
  res.writeHead(503, {
    "Content-Type": "application/problem+json; charset=utf-8",
    "Retry-After": String(STARTING_RETRY_AFTER_SECONDS),
    "Cache-Control": "no-store",
    "X-Request-Id": requestId,
  });
  res.end(JSON.stringify(problem));
};
