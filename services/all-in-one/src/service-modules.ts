import type { ServiceModule } from "@earshot/platform";
import { moduleExportName, SERVICES, type ServiceEntry } from "@earshot/registry";

// The all-in-one hosts every registered service by loading its package by name, so the registry (which
// the edge imports too) never imports service code. Each package exports `<name>Service`.

export const loadServiceModule = (entry: Pick<ServiceEntry, "name" | "module">): ServiceModule => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exported = (require(entry.module) as Record<string, unknown>)[moduleExportName(entry.name)] as ServiceModule | undefined;
  if (typeof exported?.open !== "function" || exported.name !== entry.name) {
    throw new Error(`${entry.module} must export ${moduleExportName(entry.name)}, a ServiceModule named "${entry.name}"`);
  }
  return exported;
};

/** Every registered service's module, in registry order (which orders their loopback ports). */
export const serviceModules = (): ServiceModule[] => SERVICES.map(loadServiceModule);
