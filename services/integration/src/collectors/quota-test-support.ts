import type { Source } from "@earshot/platform/core";
import type { QuotaLedger } from "./collector";

// A QuotaLedger in memory for collector tests: a fixed budget, and every take recorded.
export const memoryQuotaLedger = (budget: number, resetAt = new Date("2026-11-21T08:00:00Z")) => {
  let used = 0;
  const takes: { source: Source; units: number; granted: boolean }[] = [];
  const ledger: QuotaLedger = {
    take: async (source, units) => {
      const granted = used + units <= budget;
      if (granted) used += units;
      takes.push({ source, units, granted });
      return { granted, left: budget - used, resetAt };
    },
    left: async () => ({ left: budget - used, resetAt }),
  };
  return { ledger, takes };
};
