// Owns reading a run's settings into its configuration (docs/guides/configuration.md): Blade's user
// settings, the project's (only when trusted), Claude Code's settings files, then Blade's (which win),
// then `--settings` for this run, as `--setting-sources` allows; and the extra folders settings name
// (`permissions.additionalDirectories`), canonical, after the `--add-dir` ones. lib/app.ts wires it.

import type { Ports } from "../sys/mod.ts";
import { allInOrder } from "../sys/concurrency.ts";
import { type ConfigFlags, readSettingsFile, resolveConfig, type Settings } from "./config.ts";
import type { StorageLayout } from "./storage.ts";
import {
  claudeSettingsOf,
  mergeClaudeSettings,
  readClaudeSettings,
  settingsFlagLayer,
  type SettingSource,
} from "./claude_settings.ts";
import { canonicalAddDirs } from "./workspace.ts";
import { claudeUserDir } from "./claude_dir.ts";

/** What of the command line decides which settings are read (lib/app.ts's AppFlags has it). */
export interface RunSettingsFlags extends ConfigFlags {
  /** `--settings <file|json>`. */
  settings?: string;
  /** `--add-dir` (relative to the working folder). */
  addDirs?: readonly string[];
  /** `--setting-sources`: which settings files are read; default all. */
  settingSources?: ReadonlySet<SettingSource>;
}

/**
 * The run's configuration and Claude Code settings: Blade's user settings, the project's (only when
 * trusted), Claude Code's settings files, then Blade's (which win), then --settings for this run.
 */
export async function runSettings(
  ports: Ports,
  flags: RunSettingsFlags,
  where: {
    layout: StorageLayout;
    workspace: string;
    trusted: boolean;
    debugSink?: (line: string) => void;
    /** Said on stderr whatever `--debug` says: a setting Blade does not support (SPEC §17). */
    warnSink?: (line: string) => void;
  },
) {
  const { layout, workspace, trusted } = where;
  const flagDirs = await canonicalAddDirs(ports, flags.addDirs ?? []);
  const sources = flags.settingSources;
  const wanted = (source: SettingSource) => sources === undefined || sources.has(source);
  // Read together; a broken file is reported as if they were read in this order.
  const [user, project, claudeFiles, settingsFlag] = await allInOrder([
    wanted("user") ? readSettingsFile(ports.fs, layout.configFile) : Promise.resolve<Settings>({}),
    trusted && wanted("project")
      ? readSettingsFile(ports.fs, `${workspace}/.blade/settings.json`)
      : Promise.resolve<Settings>({}),
    readClaudeSettings(ports.fs, {
      userDir: claudeUserDir(ports.env),
      workspace,
      trusted,
      ...(sources === undefined ? {} : { sources }),
    }),
    flags.settings === undefined
      ? Promise.resolve(undefined)
      : settingsFlagLayer(ports.fs, flags.settings, ports.env.cwd()),
  ]);
  const claude = mergeClaudeSettings([
    claudeFiles,
    claudeSettingsOf({ permissions: user.permissions, env: user.env }, layout.configFile),
    claudeSettingsOf({ permissions: project.permissions, env: project.env }, ".blade/settings.json"),
    ...(settingsFlag === undefined ? [] : [settingsFlag]),
  ]);
  for (const key of claude.ignored) {
    (where.warnSink ?? where.debugSink)?.(`settings: ${key} is not supported by Blade; ignored`);
  }
  const config = resolveConfig({
    user,
    project,
    claude: claudeFiles,
    ...(settingsFlag === undefined ? {} : { settingsFlag }),
  }, { env: ports.env, flags });
  // Settings `permissions.additionalDirectories` work as --add-dir does (project files only when trusted).
  const additionalDirs = await canonicalAddDirs(ports, claude.additionalDirectories, {
    after: flagDirs,
    skip: (dir, why) => {
      if (config.debug) where.debugSink?.(`settings: additionalDirectories: ${dir} ${why}; left out`);
    },
  });
  return { config, claude, additionalDirs };
}
