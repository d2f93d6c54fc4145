// Plans and their allowances. Only `free` exists so far; the numbers are the spec's "not shown" gaps,
// chosen to fit a small team and raised by adding plans here.

export interface Allowances {
  projects: number;
  keywords: number;
  seats: number;
  webhookDeliveriesPerDay: number;
  linkedinSyncsPerDay: number;
}

export const PLANS: Record<string, Allowances> = {
  free: { projects: 10, keywords: 100, seats: 10, webhookDeliveriesPerDay: 1000, linkedinSyncsPerDay: 20 },
};

export const DEFAULT_PLAN = "free";

export const allowancesOf = (plan: string): Allowances => PLANS[plan] ?? (PLANS[DEFAULT_PLAN] as Allowances);
