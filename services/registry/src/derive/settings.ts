import { type DeclaredSetting, declaredSettings } from "@earshot/platform";
import { serviceModules } from "../modules";
import { SERVICES, type ServiceEntry } from "../services";

// The services' own settings, as their modules declare them, sorted for the deployment files: secrets a
// deployment must set (a chart value each), the other secrets (the chart's `global.secrets`, commented
// out in the example Secret) and the plain settings (the chart's `global.settings`, into the ConfigMap).

/** Every registered service's declared settings, in registry order (loads each module by package name). */
export const declaredServiceSettings = (services: readonly ServiceEntry[] = SERVICES): DeclaredSetting[] =>
  listedOnce(declaredSettings(serviceModules(services).map((m) => ({ owner: m.name, shape: m.settings ?? {} }))));

/**
 * A setting several services declare (one shared schema, such as EARSHOT_ENCRYPTION_KEY, which the hosts
 * load once) is listed once, where its first declarer puts it, naming every declarer.
 */
export const listedOnce = (settings: readonly DeclaredSetting[]): DeclaredSetting[] => {
  const byName = new Map<string, DeclaredSetting>();
  for (const s of settings) {
    const first = byName.get(s.name);
    if (first) first.owner = `${first.owner}, ${s.owner}`;
    else byName.set(s.name, { ...s });
  }
  return [...byName.values()];
};

export const requiredSecrets = (settings: readonly DeclaredSetting[]) => settings.filter((s) => s.secret?.requiredWhenDeployed);
export const optionalSecrets = (settings: readonly DeclaredSetting[]) => settings.filter((s) => s.secret && !s.secret.requiredWhenDeployed);
export const plainSettings = (settings: readonly DeclaredSetting[]) => settings.filter((s) => !s.secret);

/** Text as `# ` comment lines of at most `width` characters, indented. */
export const commentLines = (text: string, indent = "", width = 110): string => {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + 2 + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => `${indent}# ${l}\n`).join("");
};
