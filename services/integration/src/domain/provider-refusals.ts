import { type DomainError, rateLimited, unavailable } from "@earshot/platform/core";
import { ProviderMalformed, ProviderRateLimited, ProviderUnavailable } from "../collectors/provider-errors";

// What LinkedIn's own refusals mean to the member who asked: its rate limit is ours to pass on (429 with
// the seconds LinkedIn asked for), an outage or an unreadable answer is a 503 to retry later. Anything
// else is left to the verb, which knows what a rejection of its call means.

export const providerRefusal = (err: unknown, now: Date): DomainError | undefined => {
  if (err instanceof ProviderRateLimited) {
    const seconds = Math.max(1, Math.ceil((err.retryAt.getTime() - now.getTime()) / 1000));
    return rateLimited(seconds, `LinkedIn is limiting requests; retry after ${seconds} seconds.`);
  }
  if (err instanceof ProviderUnavailable || err instanceof ProviderMalformed) return unavailable("LinkedIn did not answer properly; try again later.");
  return undefined;
};
