// Tests for child_sandbox.ts (docs/reference/permissions.md): the Deno permission set each child run gets from its trust,
// mode, tools, workspace and provider, and the Worker pool that runs children under that set: one
// Worker per set, per-run cancellation, and every failure of a Worker turned into a failed outcome.
// Real Workers, real files and the scripted provider; where a test shows a refusal, Deno refuses,
// not Blade's tool filter (the child keeps the tool; only its grant lacks the access).

import { projectFolderName } from "../config/storage.ts";
import assert from "node:assert/strict";
import {
  ChildWorkerPool,
  permissionsForChild,
  runRequest,
  type WorkerChildOptions,
} from "./child_sandbox.ts";
import type { ChildOutcome, ChildSpec } from "../executor/child.ts";
import type { ProviderConfig } from "../provider/factory.ts";
import type { Script } from "../provider/script_schema.ts";
import type { RuntimeEvent } from "../protocol/events.ts";
import type { PermissionMode } from "../protocol/permission_mode.ts";
import { storageLayout } from "../config/storage.ts";
import { realClock } from "../sys/clock.ts";
import {
  fakeHang,
  fakeStatus,
  fakeTurn,
  startFakeAnthropicServer,
} from "../testing/fake_anthropic_server.ts";

const BROKEN_CHILD = new URL("../testing/broken_child.ts", import.meta.url);

const WS = "/home/dev/project";
const STORAGE = "/home/dev/.blade";
const AGENTS_DIR = "/home/dev/.claude/agents";
const TRANSCRIPT_DIR = `${STORAGE}/projects/${projectFolderName("/home/dev/project")}`;
const STORAGE_DATA = [`${STORAGE}/agents/sessions`, `${STORAGE}/projects`, `${STORAGE}/worktrees`];
const SCRIPTED: ProviderConfig = {
  kind: "scripted",
  script: { agents: { "*": [{ turns: [{ text: "ok" }] }] } },
};

interface ChildShape {
  id?: string;
  type?: string;
  prompt?: string;
  tools: string[];
  /** The tools the child really has, when a test fakes a tool-filter bug (default `tools`). */
  realTools?: string[];
  mode?: PermissionMode;
  trusted?: boolean;
}

function childSpec(ws: string, shape: ChildShape): ChildSpec {
  const id = shape.id ?? "agent-test";
  const type = shape.type ?? "worker-test";
  return {
    id,
    subagentType: type,
    description: "test child",
    prompt: shape.prompt ?? "Do the test work.",
    config: {
      name: type,
      description: "An agent for tests",
      systemPrompt: "You are a test agent.",
      tools: shape.realTools ?? shape.tools,
      disallowedTools: [],
      model: "scripted",
      permissionMode: shape.mode ?? "default",
      maxTurns: 5,
      skills: [],
      isolation: "none",
      source: "test",
    },
    parentSessionId: "parent-session",
    parentProjectPath: ws,
    workspaceRoot: ws,
    trusted: shape.trusted ?? true,
    depth: 1,
    lineage: { rootAgentId: id, resumeDepth: 0 },
  };
}

function childOptions(
  where: { ws: string; storage: string },
  shape: ChildShape,
  extra: { provider?: ProviderConfig; extraReadDirs?: string[]; onEvent?: (e: RuntimeEvent) => void } = {},
): WorkerChildOptions {
  const spec = childSpec(where.ws, shape);
  return {
    spec,
    toolNames: shape.tools,
    provider: extra.provider ?? SCRIPTED,
    storageRoot: where.storage,
    transcriptDir: storageLayout(where.storage).projectDir(spec.parentProjectPath),
    extraReadDirs: extra.extraReadDirs ?? [],
    maxTokens: 1024,
    platform: Deno.build.os,
    secrets: [],
    delegation: false,
    onEvent: extra.onEvent ?? (() => {}),
    onCall: () => Promise.reject(new Error("this test child does not delegate")),
  };
}

const fixed = { ws: WS, storage: STORAGE };

Deno.test("permissionsForChild: a read-only child reads its workspace and own project folder, writes only that folder", () => {
  const set = permissionsForChild(
    childOptions(fixed, { tools: ["Glob", "Grep", "Read"] }, { extraReadDirs: [AGENTS_DIR] }),
  );
  assert.deepEqual(set, {
    read: [WS, TRANSCRIPT_DIR, AGENTS_DIR],
    write: [TRANSCRIPT_DIR],
    net: false,
    env: false,
    run: false,
    sys: false,
    ffi: false,
    import: false,
  });
});

Deno.test("permissionsForChild: no network whatever the provider (its requests go through the main thread)", () => {
  const local: ProviderConfig = { kind: "anthropic", apiKey: "sk-test", baseUrl: "http://127.0.0.1:43121" };
  const remote: ProviderConfig = {
    kind: "anthropic",
    apiKey: "sk-test",
    baseUrl: "https://api.anthropic.com",
  };
  const openai: ProviderConfig = { kind: "openai", baseUrl: "http://localhost:11434/v1" };
  const shapes: ChildShape[] = [{ tools: ["Glob", "Grep", "Read"] }, {
    tools: ["Bash", "Write"],
    mode: "yolo",
  }];
  for (const provider of [local, remote, openai, SCRIPTED]) {
    for (const shape of shapes) {
      const set = permissionsForChild(childOptions(fixed, shape, { provider }));
      assert.deepEqual([set.net, set.env], [false, false], `${provider.kind} ${shape.tools}`);
    }
  }
});

Deno.test("runRequest: no key, token, custom header or other secret reaches the Worker", () => {
  const anthropic: ProviderConfig = {
    kind: "anthropic",
    apiKey: "sk-ant-secret-key",
    authToken: "bearer-secret-token",
    headers: { "x-gateway-key": "gateway-secret" },
    baseUrl: "https://api.anthropic.com",
    maxRetries: 3,
  };
  const openai: ProviderConfig = {
    kind: "openai",
    apiKey: "sk-openai-secret",
    baseUrl: "http://localhost:1/v1",
  };
  // The run's secrets (what secretsOf() and MCP tokens give) travel as prints only.
  const secrets = [
    "sk-ant-secret-key",
    "bearer-secret-token",
    "gateway-secret",
    "sk-openai-secret",
    "mcp-tok",
  ];
  const sent = [anthropic, openai].map((provider) =>
    JSON.stringify(runRequest({ ...childOptions(fixed, { tools: ["Read"] }, { provider }), secrets }, 1))
  );
  for (const secret of secrets) {
    for (const text of sent) assert.ok(!text.includes(secret), `${secret} reaches the Worker`);
  }
  const request = runRequest(childOptions(fixed, { tools: ["Read"] }, { provider: anthropic }), 1);
  assert.deepEqual(request.provider, {
    kind: "anthropic",
    baseUrl: "https://api.anthropic.com",
    maxRetries: 3,
  });
});

Deno.test("permissionsForChild: a trusted autoEdit child with Write/Edit writes its workspace, runs nothing", () => {
  const set = permissionsForChild(
    childOptions(fixed, { tools: ["Read", "Write", "Edit", "Glob"], mode: "autoEdit", trusted: true }),
  );
  // The transcript folder lies inside <storage>/projects, which is granted whole.
  assert.deepEqual(set.write, [WS, ...STORAGE_DATA]);
  assert.equal(set.run, false);
  assert.deepEqual(set.read, [WS, TRANSCRIPT_DIR]);
});

Deno.test("permissionsForChild: Bash runs a shell only when trusted and not in plan mode", () => {
  const bash = ["Read", "Bash"];
  const trusted = permissionsForChild(childOptions(fixed, { tools: bash, mode: "yolo", trusted: true }));
  const untrusted = permissionsForChild(childOptions(fixed, { tools: bash, mode: "yolo", trusted: false }));
  const plan = permissionsForChild(childOptions(fixed, { tools: bash, mode: "plan", trusted: true }));
  assert.deepEqual(
    trusted.run,
    ["setsid", "bwrap", "sandbox-exec", "bash", "sh"],
    "the control: a trusted yolo child may run its shell",
  );
  assert.equal(untrusted.run, false);
  assert.deepEqual(untrusted.write, STORAGE_DATA, "untrusted: no writes outside the storage data folders");
  assert.equal(plan.run, false);
});

Deno.test("permissionsForChild: plan mode gets no tool writes whatever its tools", () => {
  const all = ["Read", "Write", "Edit", "Glob", "Grep", "Bash"];
  for (const trusted of [true, false]) {
    const set = permissionsForChild(childOptions(fixed, { tools: all, mode: "plan", trusted }));
    assert.deepEqual(
      [set.write, set.run],
      [[TRANSCRIPT_DIR], false],
      `plan (trusted ${trusted}): only the child's own transcript folder`,
    );
  }
  const autoEdit = permissionsForChild(childOptions(fixed, { tools: all, mode: "autoEdit" }));
  assert.notDeepEqual(
    autoEdit.write,
    [TRANSCRIPT_DIR],
    "the control: the same tools outside plan mode write",
  );
});

// --- The pool, with real Workers ---------------------------------------------------------------------

interface Dirs {
  ws: string;
  storage: string;
  outside: string;
}

async function withDirs(fn: (dirs: Dirs) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "blade-child-sandbox-" }));
  const dirs = { ws: `${root}/ws`, storage: `${root}/storage`, outside: `${root}/outside` };
  for (const dir of Object.values(dirs)) await Deno.mkdir(dir);
  try {
    await fn(dirs);
  } finally {
    await removeSettled(root);
  }
}

/** Removes `dir`; retries briefly, as I/O of a terminated Worker may still land in it. */
async function removeSettled(dir: string): Promise<void> {
  for (let attempt = 1;; attempt++) {
    try {
      return await Deno.remove(dir, { recursive: true });
    } catch (e) {
      if (attempt === 10) throw e;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function scripted(script: Script): ProviderConfig {
  return { kind: "scripted", script };
}

/** Resolves once `count` children have emitted session_started through `onEvent`. */
function startedCounter(count: number) {
  const { promise, resolve } = Promise.withResolvers<void>();
  let seen = 0;
  return {
    all: promise,
    onEvent: (event: RuntimeEvent) => {
      if (event.type === "session_started" && ++seen === count) resolve();
    },
  };
}

/** `promise`, or a failure naming `what` after `ms` (a hang guard, far above the expected time). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

function toolResult(outcome: ChildOutcome, index = 0) {
  const entry = outcome.toolResults[index];
  assert.ok(entry !== undefined, `no tool result #${index}: ${JSON.stringify(outcome)}`);
  return entry.result;
}

Deno.test("pool: a tool-filter bug still cannot write — Deno refuses what the grant lacks", async () => {
  await withDirs(async (dirs) => {
    const pool = new ChildWorkerPool({ clock: realClock() });
    try {
      const provider = scripted({
        agents: {
          "*": [{
            turns: [
              { tool_calls: [{ name: "Write", input: { file_path: "planted.txt", content: "escaped" } }] },
              { text: "done" },
            ],
          }],
        },
      });
      // The child really has Write (trusted, yolo: the gate allows it), but its permissions were
      // derived from a read-only tool list, as if the tool filter had let Write slip through.
      const leaked = await pool.run(
        childOptions(dirs, { tools: ["Read"], realTools: ["Read", "Write"], mode: "yolo" }, { provider }),
        new AbortController().signal,
      );
      const refused = toolResult(leaked);
      assert.equal(refused.isError, true, refused.content);
      assert.match(refused.content, /NotCapable|Requires write access/);
      assert.equal(await Deno.lstat(`${dirs.ws}/planted.txt`).then(() => true, () => false), false);

      // The control: the same child whose grant matches its tools writes the file.
      const granted = await pool.run(
        childOptions(dirs, { tools: ["Read", "Write"], mode: "yolo" }, { provider }),
        new AbortController().signal,
      );
      assert.equal(toolResult(granted).isError, false, toolResult(granted).content);
      assert.equal(await Deno.readTextFile(`${dirs.ws}/planted.txt`), "escaped");
    } finally {
      await pool.close();
    }
  });
});

Deno.test("pool: the Worker's model requests go through the main thread, which adds the key", async () => {
  await withDirs(async (dirs) => {
    await using server = startFakeAnthropicServer([
      fakeStatus(529, { headers: { "retry-after-ms": "1" } }),
      fakeTurn({ text: "Hello from the fake server, in several deltas; the key is sk-test-key", chunks: 5 }),
    ]);
    const pool = new ChildWorkerPool({ clock: realClock() });
    try {
      const provider: ProviderConfig = {
        kind: "anthropic",
        apiKey: "sk-test-key",
        headers: { "x-custom": "custom-value" },
        baseUrl: server.url,
        maxRetries: 2,
      };
      const options = { ...childOptions(dirs, { tools: ["Read"] }, { provider }), secrets: ["sk-test-key"] };
      assert.equal(permissionsForChild(options).net, false);
      const outcome = await pool.run(options, new AbortController().signal);
      assert.equal(outcome.success, true, outcome.error);
      assert.equal(outcome.message, "Hello from the fake server, in several deltas; the key is sk-test-key");
      // The Worker redacts its transcript with the key's print, never having the key.
      const transcript = await Deno.readTextFile(
        storageLayout(dirs.storage).transcriptPath(options.spec.parentProjectPath, options.spec.id),
      );
      assert.match(transcript, /the key is \[REDACTED\]/);
      assert.ok(!transcript.includes("sk-test-key"));
      // The 529 reached the child's retry logic as a direct fetch's would: one retry, then the answer.
      assert.equal(server.requests.length, 2);
      for (const request of server.requests) {
        assert.equal(request.headers["x-api-key"], "sk-test-key");
        assert.equal(request.headers["x-custom"], "custom-value");
        assert.equal(request.body.messages[0]?.role, "user");
      }
    } finally {
      await pool.close();
    }
  });
});

/**
 * The global fetch, telling when a request starts and when its signal aborts. (Deno 2.9 keeps the
 * connection of an aborted request whose body is over ~1 KB open until the server answers, direct
 * fetch or not, so the server cannot be the witness.)
 */
function watchedFetch() {
  const started: PromiseWithResolvers<void>[] = [];
  const aborted: PromiseWithResolvers<void>[] = [];
  const slot = (list: PromiseWithResolvers<void>[], n: number) => (list[n] ??= Promise.withResolvers<void>());
  let count = 0;
  const fetch: typeof globalThis.fetch = (input, init) => {
    const n = count++;
    init?.signal?.addEventListener("abort", () => slot(aborted, n).resolve(), { once: true });
    slot(started, n).resolve();
    return globalThis.fetch(input, init);
  };
  return {
    fetch,
    started: (n: number) => slot(started, n).promise,
    aborted: (n: number) => slot(aborted, n).promise,
  };
}

Deno.test("pool: cancelling a run, or ending its Worker, aborts its model request on the main thread", async () => {
  await withDirs(async (dirs) => {
    await using server = startFakeAnthropicServer([fakeHang(), fakeHang()]);
    const watched = watchedFetch();
    const pool = new ChildWorkerPool({ clock: realClock(), fetch: watched.fetch });
    try {
      const provider: ProviderConfig = { kind: "anthropic", apiKey: "sk-test", baseUrl: server.url };
      // TaskStop, Ctrl-C and a cancelled parent all abort the run's signal.
      const controller = new AbortController();
      const run = pool.run(childOptions(dirs, { tools: ["Read"] }, { provider }), controller.signal);
      await within(watched.started(0), 10_000, "the child's request starting");
      controller.abort();
      const outcome = await within(run, 10_000, "the cancelled run returning");
      assert.deepEqual([outcome.success, outcome.cancelled], [false, true]);
      await within(watched.aborted(0), 5_000, "the cancelled request's fetch being aborted");

      // The Worker ends under a run: its request is aborted too, nothing keeps it open.
      const second = pool.run(
        childOptions(dirs, { tools: ["Read"] }, { provider }),
        new AbortController().signal,
      );
      await within(watched.started(1), 10_000, "the second request starting");
      await pool.close();
      const ended = await within(second, 10_000, "the run of the ended Worker returning");
      assert.equal(ended.success, false);
      await within(watched.aborted(1), 5_000, "the second request's fetch being aborted");
    } finally {
      await pool.close();
    }
  });
});

Deno.test("pool: three children with the same permission set share one Worker; another set gets its own", async () => {
  await withDirs(async (dirs) => {
    const pool = new ChildWorkerPool({ clock: realClock() });
    try {
      const provider = scripted({
        agents: { "*": [{ turns: [{ text: "child {{match:(#\\d)}} done", delay_ms: 400 }] }] },
      });
      const started = startedCounter(3);
      const same = [1, 2, 3].map((n) =>
        pool.run(
          childOptions(dirs, { id: `agent-${n}`, prompt: `Job #${n}`, tools: ["Read", "Glob"] }, {
            provider,
            onEvent: started.onEvent,
          }),
          new AbortController().signal,
        )
      );
      await within(started.all, 10_000, "three children starting");
      assert.equal(pool.size, 1, "three runs with one permission set use one Worker");

      const other = pool.run(
        childOptions(dirs, { id: "agent-4", prompt: "Job #4", tools: ["Read", "Write"], mode: "autoEdit" }, {
          provider,
        }),
        new AbortController().signal,
      );
      assert.equal(pool.size, 2, "a different permission set starts a second Worker");

      const outcomes = await Promise.all([...same, other]);
      assert.deepEqual(outcomes.map((o) => [o.success, o.message]), [
        [true, "child #1 done"],
        [true, "child #2 done"],
        [true, "child #3 done"],
        [true, "child #4 done"],
      ]);
    } finally {
      await pool.close();
    }
  });
});

Deno.test("pool: cancelling one run ends it promptly; the others in its Worker go on", async () => {
  await withDirs(async (dirs) => {
    const pool = new ChildWorkerPool({ clock: realClock() });
    try {
      const provider = scripted({
        agents: {
          "*": [
            { match: "slow", turns: [{ text: "never", delay_ms: 30_000 }] },
            { match: "quick", turns: [{ text: "quick done", delay_ms: 300 }] },
          ],
        },
      });
      const started = startedCounter(2);
      const shape = { tools: ["Read"] };
      const controller = new AbortController();
      const slow = pool.run(
        childOptions(dirs, { ...shape, id: "agent-slow", prompt: "slow job" }, {
          provider,
          onEvent: started.onEvent,
        }),
        controller.signal,
      );
      const quick = pool.run(
        childOptions(dirs, { ...shape, id: "agent-quick", prompt: "quick job" }, {
          provider,
          onEvent: started.onEvent,
        }),
        new AbortController().signal,
      );
      await within(started.all, 10_000, "both children starting");
      controller.abort();
      // Long before the 30 s delay. The run stopped itself (its outcome keeps its conversation): the
      // pool did not end the Worker after its 5 s grace (that outcome would have no messages).
      const cancelled = await within(slow, 10_000, "the cancelled run returning");
      assert.deepEqual([cancelled.success, cancelled.cancelled, cancelled.errorType], [
        false,
        true,
        "cancelled",
      ]);
      assert.ok(cancelled.messages.length > 0, "the child's own cancelled outcome, with its conversation");

      const other = await quick;
      assert.deepEqual([other.success, other.message], [true, "quick done"]);
      const after = await pool.run(
        childOptions(dirs, { ...shape, id: "agent-after", prompt: "quick again" }, { provider }),
        new AbortController().signal,
      );
      assert.deepEqual([after.success, after.message, pool.size], [true, "quick done", 1]);
    } finally {
      await pool.close();
    }
  });
});

Deno.test("pool: a run cancelled while its Worker is still starting ends promptly, never runs on", async () => {
  await withDirs(async (dirs) => {
    const pool = new ChildWorkerPool({ clock: realClock() });
    try {
      const provider = scripted({ agents: { "*": [{ turns: [{ text: "never", delay_ms: 30_000 }] }] } });
      const controller = new AbortController();
      const run = pool.run(
        childOptions(dirs, { tools: ["Read"], id: "agent-early", prompt: "slow job" }, { provider }),
        controller.signal,
      );
      // Ctrl-C lands before the Worker has loaded (pool.run is still awaiting it).
      controller.abort();
      const outcome = await within(run, 10_000, "the run cancelled during start-up returning");
      assert.deepEqual([outcome.success, outcome.cancelled, outcome.errorType], [false, true, "cancelled"]);
    } finally {
      await pool.close();
    }
  });
});

Deno.test("pool: a Worker that cannot start, fails in its run, or ends under its runs gives failed outcomes", async () => {
  await withDirs(async (dirs) => {
    const pool = new ChildWorkerPool({ clock: realClock() });
    try {
      // A Worker whose module fails while loading never says it is ready.
      const unloadable = new ChildWorkerPool({ clock: realClock(), module: BROKEN_CHILD });
      const notStarted = await within(
        unloadable.run(childOptions(dirs, { tools: ["Read"] }), new AbortController().signal),
        10_000,
        "the unstartable run returning",
      );
      assert.deepEqual([notStarted.success, notStarted.cancelled], [false, false]);
      assert.match(notStarted.error ?? "", /did not start/);
      assert.equal(unloadable.size, 0, "a Worker that failed to start is not kept");

      // A provider config the Worker cannot build: the request fails inside the Worker.
      const broken = { kind: "scripted", script: { agents: null } } as unknown as ProviderConfig;
      const failedInside = await within(
        pool.run(childOptions(dirs, { tools: ["Read"] }, { provider: broken }), new AbortController().signal),
        10_000,
        "the broken run returning",
      );
      assert.deepEqual([failedInside.success, failedInside.cancelled], [false, false]);
      assert.match(failedInside.error ?? "", /sandbox failed/);

      // The Worker ends while two runs are in it: both fail at once, none hangs.
      const provider = scripted({ agents: { "*": [{ turns: [{ text: "never", delay_ms: 30_000 }] }] } });
      const started = startedCounter(2);
      const runs = [1, 2].map((n) =>
        pool.run(
          childOptions(dirs, { id: `agent-${n}`, tools: ["Read"] }, { provider, onEvent: started.onEvent }),
          new AbortController().signal,
        )
      );
      await within(started.all, 10_000, "both children starting");
      await pool.close();
      const ended = await within(Promise.all(runs), 10_000, "the runs of an ended Worker returning");
      assert.deepEqual(ended.map((o) => [o.success, o.cancelled, o.errorType]), [
        [false, false, "internal"],
        [false, false, "internal"],
      ]);
      for (const outcome of ended) assert.match(outcome.error ?? "", /sandbox failed/);
    } finally {
      await pool.close();
    }
  });
});
