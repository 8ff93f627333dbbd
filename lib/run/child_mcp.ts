// Owns which MCP tools a child run gets and where its calls go (docs/reference/permissions.md: a child never has more than its
// parent). Without `mcpServers` in its agent file a child sees its parent's MCP tools; with it, only the
// named configured servers (still within its parent's) plus the agent's inline servers, which the main
// thread starts on first use and keeps for the run. The run's deny rules apply to all of them. Calls
// from Worker children arrive here (the main thread owns every connection) and are checked against the
// child's computed tools first.

import type { McpCallResult } from "../mcp/client.ts";
import type { McpHub, McpToolDescriptor } from "../mcp/hub.ts";
import type { ConfigSnapshot } from "../store/schema.ts";

export interface ChildMcpOptions {
  /** The run's MCP servers (undefined when none is configured). */
  hub: McpHub | undefined;
  /** The run's filter (`--disallowed-tools`): false = no descendant gets the tool. */
  visible: (bladeName: string) => boolean;
  /**
   * Starts an agent's inline servers (validated and expanded like any other definition). Absent on a
   * worker (docs/guides/remote.md): a remote child's agent comes with its job, and a job never makes a
   * worker start a process, so its inline servers are left out, and said so.
   */
  openInline?: ((agent: string, entries: Record<string, unknown>) => Promise<McpHub>) | undefined;
  /** Redacts the run's secrets (the inline servers' own included) from the problems prepare returns. */
  redact?: (text: string) => string;
}

export class ChildMcp {
  #o: ChildMcpOptions;
  #inline = new Map<string, Promise<McpHub>>();
  /** Inline servers started but not yet reported as unavailable (reported once, by the first prepare). */
  #unreported = new Set<Promise<McpHub>>();
  /** Per child id: the tools it may see (before its own tools/disallowedTools) and their hubs. */
  #children = new Map<string, { tools: McpToolDescriptor[]; hubs: Map<string, McpHub> }>();

  constructor(options: ChildMcpOptions) {
    this.#o = options;
  }

  /**
   * Works out the MCP tools child `id` may have. `parentTools` are the MCP tool names of its parent
   * (undefined for a child of the top-level session, whose tools are the run's). Returns the problems
   * of the agent's inline servers the first time they are started (a server that is not available,
   * and why), for the run to show as warnings; later runs of that agent return none.
   */
  async prepare(
    id: string,
    config: ConfigSnapshot,
    parentTools: readonly string[] | undefined,
  ): Promise<string[]> {
    const hub = this.#o.hub;
    const inherited = (hub?.tools() ?? []).filter((t) =>
      this.#o.visible(t.bladeName) && (parentTools === undefined || parentTools.includes(t.bladeName))
    );
    const hubs = new Map<string, McpHub>();
    if (hub !== undefined) { for (const t of inherited) hubs.set(t.bladeName, hub); }
    if (config.mcpServers === undefined) {
      this.#children.set(id, { tools: inherited, hubs });
      return [];
    }
    const problems: string[] = [];
    const names = new Set(config.mcpServers.filter((e): e is string => typeof e === "string"));
    const tools = inherited.filter((t) => names.has(t.server));
    const inline = Object.assign({}, ...config.mcpServers.filter((e) => typeof e !== "string")) as Record<
      string,
      unknown
    >;
    const openInline = this.#o.openInline;
    if (Object.keys(inline).length > 0 && openInline === undefined) {
      for (const server of Object.keys(inline)) {
        problems.push(this.#redact(
          `agent "${config.name}": MCP server "${server}" is not started on a worker (an agent's own ` +
            "servers never are: only the worker's configured ones; its tools are left out)",
        ));
      }
    } else if (Object.keys(inline).length > 0 && openInline !== undefined) {
      const key = `${config.name}\n${JSON.stringify(inline)}`;
      let started = this.#inline.get(key);
      if (started === undefined) {
        this.#inline.set(key, started = openInline(config.name, inline));
        this.#unreported.add(started);
      }
      const own = await started;
      if (this.#unreported.delete(started)) {
        for (const s of own.status()) {
          if (s.status !== "failed") continue;
          problems.push(this.#redact(
            `agent "${config.name}": MCP server "${s.name}" is not available (its tools are left out): ${
              s.error ?? "unknown reason"
            }`,
          ));
        }
      }
      for (const t of own.tools()) {
        if (!this.#o.visible(t.bladeName)) continue;
        // An inline server replaces a configured one of the same name for this child.
        const at = tools.findIndex((x) => x.bladeName === t.bladeName);
        if (at >= 0) tools.splice(at, 1);
        tools.push(t);
        hubs.set(t.bladeName, own);
      }
    }
    this.#children.set(id, { tools, hubs });
    return problems;
  }

  #redact(text: string): string {
    return this.#o.redact?.(text) ?? text;
  }

  /** The MCP tools child `id` may see (empty before prepare, or when it has none). */
  toolsFor(id: string): McpToolDescriptor[] {
    return this.#children.get(id)?.tools ?? [];
  }

  /**
   * Runs a call of child `id`. `granted` is the child's final tool list (after its own filters): a
   * name outside it is refused, whatever the child asks.
   */
  call(
    id: string,
    granted: readonly string[],
    name: string,
    input: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<McpCallResult> {
    const hub = this.#children.get(id)?.hubs.get(name);
    if (!granted.includes(name) || hub === undefined) {
      return Promise.resolve({
        content: [{ type: "text", text: `MCP tool "${name}" is not one of this subagent's tools.` }],
        isError: true,
      });
    }
    return hub.call(name, input, signal);
  }

  /** Forgets a finished child's tools (its inline servers stay up for the next run of that agent). */
  release(id: string): void {
    this.#children.delete(id);
  }

  /** Stops the agents' inline servers (the run's own hub is closed by its owner). */
  async close(): Promise<void> {
    const hubs = await Promise.allSettled([...this.#inline.values()]);
    await Promise.all(hubs.map((h) => h.status === "fulfilled" ? h.value.close() : undefined));
  }
}
