// Owns the test helpers the tool tests share: a real temp workspace and storage root, a ToolContext
// over the real ports, and a runner that parses input through the tool's schema like the loop does.
// Only imported by *_test.ts files.

import { join } from "node:path";
import { realPorts } from "../sys/mod.ts";
import type { AnyTool, ToolContext, ToolResult } from "../tools/tool.ts";

export interface Sandbox extends AsyncDisposable {
  /** Canonical temp folder holding everything below. */
  dir: string;
  workspace: string;
  storage: string;
  /** A folder outside both roots. */
  outside: string;
  ctx(overrides?: Partial<ToolContext>): ToolContext;
}

export async function sandbox(): Promise<Sandbox> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-tools-" }));
  const workspace = join(dir, "repo");
  const storage = join(dir, "storage");
  const outside = join(dir, "outside");
  for (const d of [workspace, storage, outside]) await Deno.mkdir(d);
  const ports = realPorts();
  return {
    dir,
    workspace,
    storage,
    outside,
    ctx: (overrides = {}) => ({
      ports,
      sessionId: "session-test",
      workspaceRoot: workspace,
      storageRoot: storage,
      trusted: true,
      mode: "yolo",
      callId: "call_1",
      signal: new AbortController().signal,
      emit: () => {},
      ...overrides,
    }),
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Validates `input` with the tool's schema (as the loop does), then runs the tool. */
export function runTool(
  tool: AnyTool,
  input: Record<string, unknown>,
  ctx: ToolContext,
): Promise<ToolResult> {
  const parsed = tool.schema.safeParse(input);
  if (!parsed.success) {
    return Promise.reject(
      new Error(`invalid input for ${tool.name}: ${JSON.stringify(parsed.error.issues)}`),
    );
  }
  return tool.run(parsed.data, ctx);
}
