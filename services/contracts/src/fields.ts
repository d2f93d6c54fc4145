// The field rules several services share, declared once in the contract layer: a service that checks or
// filters by one of them (the mention service labels mentions, the alert service filters rules by label)
// reads it here rather than from the other service's package.

/** A mention's sentiment labels. */
export const SENTIMENTS = ["positive", "neutral", "negative"] as const;
export type SentimentLabel = (typeof SENTIMENTS)[number];
