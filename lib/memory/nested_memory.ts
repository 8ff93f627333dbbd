// Owns nested memory (docs/guides/memory.md): the memory files of a folder below the working folder join
// the conversation when the session first uses a file there (Read, Edit, Write, NotebookEdit), as a
// block after that call's result, like Claude Code 2.1.332 (tests/fixtures/claude/memory_layers). Each
// folder is read once per session; a file already loaded is never sent again.

import { dirname, resolve, sep } from "../path.ts";
import type { AnyTool } from "../tools/tool.ts";
import type { MemoryFile } from "./memory_file.ts";
import type { MemoryReader } from "./load_memory.ts";
import { nestedReminders } from "./memory_context.ts";

/** The tools whose `file_path` opens a folder's memory. */
export const NESTED_MEMORY_TOOLS: readonly string[] = ["Read", "Edit", "Write", "NotebookEdit"];

export class NestedMemory {
  #reader: MemoryReader;
  #workspace: string;
  #visited = new Set<string>();

  constructor(reader: MemoryReader, workspace: string) {
    this.#reader = reader;
    this.#workspace = workspace;
  }

  /** The memory files of the folders between the working folder and `file` that were not read yet. */
  async visit(file: string): Promise<MemoryFile[]> {
    const root = this.#workspace;
    if (!file.startsWith(root + sep)) return [];
    const folders: string[] = [];
    for (let dir = dirname(file); dir !== root && dir.startsWith(root + sep); dir = dirname(dir)) {
      folders.unshift(dir);
    }
    const found: MemoryFile[] = [];
    for (const dir of folders) {
      if (this.#visited.has(dir)) continue;
      this.#visited.add(dir);
      found.push(...await this.#reader.folder(dir));
    }
    return found;
  }
}

/** `tool` with its successful calls followed by the memory of the folders they first reached. */
export function withNestedMemory(tool: AnyTool, nested: NestedMemory): AnyTool {
  if (!NESTED_MEMORY_TOOLS.includes(tool.name)) return tool;
  return {
    ...tool,
    async run(input, ctx) {
      const result = await tool.run(input, ctx);
      const given = (input as { file_path?: unknown }).file_path;
      if (result.isError || typeof given !== "string" || given === "") return result;
      const files = await nested.visit(resolve(ctx.workspaceRoot, given)).catch(() => []);
      if (files.length === 0) return result;
      return { ...result, context: [...result.context ?? [], ...nestedReminders(files)] };
    },
  };
}
