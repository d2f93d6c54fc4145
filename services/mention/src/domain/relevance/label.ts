// From a relevance score to its label: the one place the thresholds live. Between them the model is not
// sure either way and says so; a project without ratings sits there unless its description, aliases or
// exclusions speak about the mention.

export type RelevanceLabel = "relevant" | "uncertain" | "irrelevant";

export const RELEVANCE_LABELS = ["relevant", "uncertain", "irrelevant"] as const satisfies readonly RelevanceLabel[];

/** At or above: relevant. */
export const RELEVANT_FROM = 0.65;
/** Below: irrelevant. */
export const IRRELEVANT_BELOW = 0.35;

export const labelOf = (score: number): RelevanceLabel => (score >= RELEVANT_FROM ? "relevant" : score < IRRELEVANT_BELOW ? "irrelevant" : "uncertain");
