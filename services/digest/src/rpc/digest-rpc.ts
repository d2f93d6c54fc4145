import { validationFailed } from "@earshot/platform";
import type { digestV1 } from "@earshot/proto";
import type { DigestDeps } from "../domain/deps";
import { sendDigestNow } from "../domain/digests";

// gRPC adapter: decode, call the verb, encode. The operators' call, with no caller.

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const digestRpc = (deps: DigestDeps) => ({
  sendDigest: async (req: digestV1.SendDigestRequest): Promise<digestV1.SendDigestResponse> => {
    const errors = [
      ...(req.projectId ? [] : [{ path: "projectId", message: "is required" }]),
      ...(req.localDate === "" || (DATE.test(req.localDate) && !Number.isNaN(Date.parse(`${req.localDate}T00:00:00Z`))) ? [] : [{ path: "localDate", message: "must be a date such as 2026-11-22" }]),
    ];
    if (errors.length > 0) throw validationFailed(errors);
    const { sent, mentions, window } = await sendDigestNow(deps, req.projectId, req.localDate || undefined);
    return { emailsSent: sent, mentions, ...(window ? { windowStart: window.from, windowEnd: window.until } : {}) };
  },
});
