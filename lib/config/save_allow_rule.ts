// Owns saving one allow rule into a Claude Code settings file, for the interactive session's "allow and
// save" answer (docs/guides/interactive.md): the project's `.claude/settings.local.json` (kept out of
// version control by Claude Code's convention) or the user's `settings.json` in `~/.claude` (or
// CLAUDE_CONFIG_DIR). Every other key of the file is kept as it was; a file that is not a JSON object is
// never overwritten (a clear error instead); the write is atomic.

import type { Fs } from "../sys/fs.ts";
import { BladeError } from "../errors.ts";
import { dirname } from "../path.ts";
import { readJsonFile } from "./json_file.ts";

/** Adds `o.rule` to `permissions.allow` of the settings file at `o.path` (made when missing). */
export async function saveAllowRule(fs: Fs, o: { path: string; rule: string }): Promise<{ added: boolean }> {
  const { path, rule } = o;
  const json = (await readJsonFile(fs, path)) ?? {};
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new BladeError(
      "config_invalid",
      `${path} is not a JSON object, so the rule ${rule} was not saved.`,
      {
        hint: "Fix the file (it must be a JSON object) or remove it, then allow the call again.",
      },
    );
  }
  const settings = json as Record<string, unknown>;
  const permissions = settings["permissions"] ?? {};
  if (typeof permissions !== "object" || permissions === null || Array.isArray(permissions)) {
    throw new BladeError(
      "config_invalid",
      `${path}: permissions is not an object, so ${rule} was not saved.`,
      {
        hint: 'Fix the file: "permissions": {"allow": […]}.',
      },
    );
  }
  const allow = (permissions as Record<string, unknown>)["allow"] ?? [];
  if (!Array.isArray(allow) || allow.some((r) => typeof r !== "string")) {
    throw new BladeError(
      "config_invalid",
      `${path}: permissions.allow is not a list of rules, so ${rule} was not saved.`,
      {
        hint: 'Fix the file: "allow": ["Bash(npm test)", …].',
      },
    );
  }
  if (allow.includes(rule)) return { added: false };
  const next = { ...settings, permissions: { ...permissions, allow: [...allow, rule] } };
  await fs.ensureDir(dirname(path));
  await fs.writeAtomic(path, JSON.stringify(next, null, 2) + "\n");
  return { added: true };
}
