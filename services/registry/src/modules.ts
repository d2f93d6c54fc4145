import { consumedTopics, deadLetterTopic, type ServiceModule } from "@earshot/platform";
import { moduleExportName } from "./names";
import { SERVICES, type ServiceEntry } from "./services";

// A registered service's ServiceModule, loaded by package name: what hosts it (the all-in-one) and what
// derives files from its declarations (npm run sync-services) load it this way, so the registry, which
// the edge imports too, never imports service code. Each package exports `<name>Service`.

export const loadServiceModule = (entry: Pick<ServiceEntry, "name" | "module">): ServiceModule => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exported = (require(entry.module) as Record<string, unknown>)[moduleExportName(entry.name)] as ServiceModule | undefined;
  if (typeof exported?.open !== "function" || exported.name !== entry.name) {
    throw new Error(`${entry.module} must export ${moduleExportName(entry.name)}, a ServiceModule named "${entry.name}"`);
  }
  return exported;
};

/** Every registered service's module, in registry order (which orders the all-in-one's loopback ports). */
export const serviceModules = (services: readonly ServiceEntry[] = SERVICES): ServiceModule[] => services.map(loadServiceModule);

/**
 * Every topic the registered services consume and its dead-letter topic (`<topic>.dlq`), sorted: what
 * `earshot setup` creates. Every topic a service publishes is consumed by another, so this is all of them.
 */
export const declaredTopics = (modules: readonly ServiceModule[] = serviceModules()): string[] =>
  [...new Set(modules.flatMap((m) => consumedTopics(m).flatMap((t) => [t, deadLetterTopic(t)])))].sort();
