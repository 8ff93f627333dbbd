// Owns how `blade memory` and the interactive /memory show a session's project context: each memory
// file with its kind, where it came from and its size in tokens (estimated), what was skipped and why,
// then the skills and custom commands found. Text and JSON; file-controlled text is made terminal-safe
// by the caller.

import { estimateTokens, type MemoryDiagnostic, type MemoryFile } from "../memory/memory_file.ts";

export interface ContextReport {
  workspace: string;
  trusted: boolean;
  /** --bare: nothing was loaded from files. */
  bare: boolean;
  memory: { files: readonly MemoryFile[]; diagnostics: readonly MemoryDiagnostic[] };
  /** Skills the model is told about (name, where, the listing's tokens). */
  skills?: readonly { name: string; path: string; description: string }[];
  /** Custom slash commands a prompt may start with. */
  commands?: readonly { name: string; path: string; description?: string }[];
}

const grouped = (n: number) => n.toLocaleString("en-US");

export function contextText(r: ContextReport): string {
  const lines = [`Memory of ${r.workspace} (${r.trusted ? "trusted" : "not trusted"})`];
  if (r.bare) return `${lines[0]}\n--bare: no memory, commands or skills are loaded from files.\n`;
  const files = r.memory.files;
  const width = Math.max(1, ...files.map((f) => grouped(estimateTokens(f.content)).length));
  for (const f of files) {
    const tokens = grouped(estimateTokens(f.content)).padStart(width);
    const via = f.importedBy === undefined ? "" : `  (imported by ${f.importedBy})`;
    lines.push(`  ${tokens} tokens  ${f.kind.padEnd(7)}  ${f.path}${via}`);
  }
  const total = files.reduce((n, f) => n + estimateTokens(f.content), 0);
  lines.push(
    files.length === 0
      ? "  No memory files."
      : `Total: ${grouped(total)} tokens in ${files.length} file${
        files.length === 1 ? "" : "s"
      } (estimated: 4 characters a token)`,
  );
  if (!r.trusted) {
    lines.push("Project memory is not loaded: this folder is not trusted (`blade trust` trusts it).");
  }
  for (const d of r.memory.diagnostics) lines.push(`Skipped: ${d.message}`);
  if (r.skills !== undefined) {
    lines.push("", r.skills.length === 0 ? "No skills." : `Skills (${r.skills.length}):`);
    for (const s of r.skills) lines.push(`  ${s.name}  ${s.path}`);
  }
  if (r.commands !== undefined) {
    lines.push(
      "",
      r.commands.length === 0 ? "No custom commands." : `Custom commands (${r.commands.length}):`,
    );
    for (const c of r.commands) lines.push(`  /${c.name}  ${c.path}`);
  }
  return lines.join("\n") + "\n";
}

export function contextJson(r: ContextReport): Record<string, unknown> {
  const files = r.memory.files.map((f) => ({
    path: f.path,
    kind: f.kind,
    tokens: estimateTokens(f.content),
    characters: f.content.length,
    ...(f.importedBy === undefined ? {} : { importedBy: f.importedBy }),
  }));
  return {
    workspace: r.workspace,
    trusted: r.trusted,
    bare: r.bare,
    memory: files,
    totalTokens: files.reduce((n, f) => n + f.tokens, 0),
    skipped: r.memory.diagnostics.map((d) => d.message),
    ...(r.skills === undefined ? {} : { skills: r.skills }),
    ...(r.commands === undefined ? {} : { commands: r.commands }),
  };
}
