import type { CloudEvent } from "@earshot/platform/core";
import type { IntegrationDeps } from "./deps";

// PLACEHOLDER: project and keyword replicas, and the pollers they enable.
export const handleProjectEvent = async (_deps: IntegrationDeps, _event: CloudEvent): Promise<void> => undefined;
export const handleKeywordEvent = async (_deps: IntegrationDeps, _event: CloudEvent): Promise<void> => undefined;
