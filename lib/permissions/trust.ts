// Owns Workspace Trust (docs/reference/permissions.md): the durable list of trusted workspace paths in
// `<storage>/trust.json` and the decision for one workspace. A trusted folder trusts its sub-folders.

import type { Fs } from "../sys/fs.ts";
import { BladeError } from "../errors.ts";

export interface TrustFile {
  version: 1;
  trusted: { path: string; trustedAt: string }[];
}

export interface TrustDecision {
  trusted: boolean;
  /** Why: `flag` (--trust-workspace), `recorded` (trust.json entry `via`), or `untrusted`. */
  reason: "flag" | "recorded" | "untrusted";
  via?: string;
}

export async function readTrust(fs: Fs, trustFile: string): Promise<TrustFile> {
  const text = await fs.readTextIfExists(trustFile);
  if (text === null) return { version: 1, trusted: [] };
  try {
    const parsed = JSON.parse(text) as Partial<TrustFile>;
    if (!Array.isArray(parsed.trusted)) throw new Error("missing `trusted` list");
    const trusted = parsed.trusted.filter((t): t is { path: string; trustedAt: string } =>
      typeof t?.path === "string" && typeof t?.trustedAt === "string"
    );
    return { version: 1, trusted };
  } catch (e) {
    throw new BladeError(
      "trust_file_invalid",
      `The trust file ${trustFile} is not valid: ${(e as Error).message}.`,
      {
        hint: "Fix or delete the file, then run `blade trust <path>` again for each workspace you trust.",
      },
    );
  }
}

function covers(trustedPath: string, workspace: string): boolean {
  if (trustedPath === workspace) return true;
  const prefix = trustedPath.endsWith("/") ? trustedPath : `${trustedPath}/`;
  return workspace.startsWith(prefix);
}

export function decideTrust(file: TrustFile, workspace: string, flag: boolean): TrustDecision {
  if (flag) return { trusted: true, reason: "flag" };
  const hit = file.trusted.find((t) => covers(t.path, workspace));
  return hit === undefined
    ? { trusted: false, reason: "untrusted" }
    : { trusted: true, reason: "recorded", via: hit.path };
}

export async function setTrust(
  fs: Fs,
  trustFile: string,
  options: { path: string; trusted: boolean; now: Date },
): Promise<{ changed: boolean }> {
  const file = await readTrust(fs, trustFile);
  const has = file.trusted.some((t) => t.path === options.path);
  if (options.trusted === has) return { changed: false };
  const trusted = options.trusted
    ? [...file.trusted, { path: options.path, trustedAt: options.now.toISOString() }]
    : file.trusted.filter((t) => t.path !== options.path);
  await fs.writeAtomic(trustFile, JSON.stringify({ version: 1, trusted }, null, 2) + "\n");
  return { changed: true };
}
