import type { IntegrationDeps } from "./deps";

// PLACEHOLDER: polls each enabled (project, source) every interval, one replica at a time.
export class Scheduler {
  constructor(private readonly deps: IntegrationDeps) {}
  start(): void {
    void this.deps;
  }
  /** A project's replicas changed: reconcile its pollers now. */
  projectChanged(_projectId: string): void {}
  async stop(): Promise<void> {}
}
