// Owns the tools as the model sees them in each request of a session: its own tools' specs (given, or
// converted once from the tool table, loading the registry on first use) followed by its MCP servers'
// tools, asked again whenever a server's list changed (or a server went away). The same list goes to
// the session's requests and its compaction's summary request (so their prefix is the cached one).

import type { ToolSpec } from "../protocol/messages.ts";
import type { AnyTool, LiveTools } from "../tools/tool.ts";

export class SessionToolSpecs {
  #given: ToolSpec[] | undefined;
  #tools: () => Promise<readonly AnyTool[]>;
  #live: LiveTools | undefined;
  #specs: ToolSpec[] | undefined;
  #liveSpecs: ToolSpec[] = [];
  #liveSeen = -1;

  constructor(
    o: {
      specs?: ToolSpec[] | undefined;
      tools: () => Promise<readonly AnyTool[]>;
      live?: LiveTools | undefined;
    },
  ) {
    this.#given = o.specs;
    this.#tools = o.tools;
    this.#live = o.live;
  }

  /** The specs known so far, without loading anything (undefined before the first `list`). */
  get known(): ToolSpec[] | undefined {
    return this.#specs;
  }

  async list(): Promise<ToolSpec[]> {
    if (this.#specs === undefined) {
      if (this.#given !== undefined) this.#specs = this.#given;
      else {
        const { toolSpecs } = await import("../tools/registry.ts");
        this.#specs = toolSpecs(await this.#tools());
      }
    }
    const live = this.#live;
    if (live !== undefined && live.version() !== this.#liveSeen) {
      this.#liveSeen = live.version();
      const { toolSpecs } = await import("../tools/registry.ts");
      const own = new Set(this.#specs.map((s) => s.name));
      this.#liveSpecs = toolSpecs(live.tools().filter((t) => !own.has(t.name)));
    }
    return this.#liveSpecs.length === 0 ? this.#specs : [...this.#specs, ...this.#liveSpecs];
  }
}
