import assert from "node:assert/strict";
import { BladeError } from "../lib/errors.ts";
import {
  bakedPermissionFlags,
  type BakedPermissions,
  DENO_DEFAULT_ALLOW_IMPORT,
  parseCompilePayload,
} from "./compile_payload.ts";

const encoder = new TextEncoder();

/** Writes a payload in Deno 2.9's layout (see compile_payload.ts), to test the reader on known bytes. */
class PayloadWriter {
  #parts: Uint8Array[] = [];

  raw(bytes: Uint8Array | string): this {
    this.#parts.push(typeof bytes === "string" ? encoder.encode(bytes) : bytes);
    return this;
  }

  u8(value: number): this {
    return this.raw(new Uint8Array([value]));
  }

  u32(value: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, value, true);
    return this.raw(b);
  }

  u64(value: number): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(value), true);
    return this.raw(b);
  }

  str32(text: string): this {
    const bytes = encoder.encode(text);
    return this.u32(bytes.length).raw(bytes);
  }

  block64(bytes: Uint8Array | string): this {
    const b = typeof bytes === "string" ? encoder.encode(bytes) : bytes;
    return this.u64(b.length).raw(b);
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(this.#parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of this.#parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
}

const METADATA = {
  argv: [],
  entrypoint_key: "main.ts",
  permissions: { allow_read: [], allow_env: ["HOME"], deny_env: null, prompt: false },
  unstable_config: { features: ["worker-options"] },
  app_name: "blade",
};

function npmSnapshot(ids: string[]): Uint8Array {
  const w = new PayloadWriter().u32(ids.length);
  for (const id of ids) w.str32(id);
  return w.u32(0).bytes(); // no root packages (ignored by the reader)
}

function payload(options: { decoy?: boolean; truncate?: number } = {}): Uint8Array {
  const files = "# Explore\nconsole.log(1);\n";
  const vfs = [
    {
      Dir: {
        n: "agents",
        e: [{ File: { n: "Explore.md", o: [0, 10], u: true } }, { Symlink: { n: "link", p: ["x"] } }],
      },
    },
    { File: { n: "main.ts", o: [10, 16], u: true, m: [0, 3] } },
    { File: { n: "tool", o: [0, 1], x: true } },
  ];
  const w = new PayloadWriter().raw(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0]));
  // The runtime binary holds the magic as a constant, and libsui writes the section name first.
  if (options.decoy === true) w.raw("...d3n0l4nd...").u8(8).u8(0).raw("d3n0l4nd");
  w.raw("d3n0l4nd")
    .block64(JSON.stringify(METADATA))
    .block64(npmSnapshot(["yaml@2.9.1", "zod@4.6.7"]))
    .u32(2).str32("https://example.test/mod.ts").u32(0).str32("https://example.test/redirect.ts").u32(1)
    .u32(1).u32(1).u32(0) // one redirect: 1 → 0
    .u32(1).u32(0).u8(4).str32("export {}").u8(1 | 8).str32("export {};") // one remote module
    .block64(JSON.stringify(vfs))
    .block64(files)
    .raw("d3n0l4nd")
    .raw("trailing native bytes");
  const bytes = w.bytes();
  return options.truncate === undefined ? bytes : bytes.slice(0, options.truncate);
}

Deno.test("parseCompilePayload: metadata, npm packages, remote modules and files", () => {
  const parsed = parseCompilePayload(payload({ decoy: true }));
  assert.deepEqual(parsed.metadata, METADATA);
  assert.deepEqual(parsed.npmPackages, ["yaml@2.9.1", "zod@4.6.7"]);
  assert.deepEqual(parsed.remoteModules, ["https://example.test/mod.ts"]);
  assert.deepEqual(parsed.files, [
    { path: "agents/Explore.md", size: 10, executable: false },
    { path: "main.ts", size: 16, executable: false },
    { path: "tool", size: 1, executable: true },
  ]);
  assert.equal(new TextDecoder().decode(parsed.readFile("agents/Explore.md")), "# Explore\n");
  assert.equal(new TextDecoder().decode(parsed.readFile("main.ts")), "console.log(1);\n");
  assert.equal(parsed.readFile("agents/missing.md"), undefined);
});

Deno.test("parseCompilePayload: no payload at all", () => {
  assert.throws(
    () => parseCompilePayload(encoder.encode("\x7fELF plain program d3n0l4nd"), { name: "x" }),
    (e: unknown) =>
      e instanceof BladeError && e.code === "compile_payload_missing" && e.message.includes("in x"),
  );
});

Deno.test("parseCompilePayload: a cut-off payload is reported as malformed", () => {
  const whole = payload();
  for (const cut of [whole.length - 30, whole.length - 60, 200]) {
    assert.throws(
      () => parseCompilePayload(payload({ truncate: cut })),
      (e: unknown) => e instanceof BladeError && e.code === "compile_payload_invalid",
      `cut at ${cut}`,
    );
  }
});

Deno.test("bakedPermissionFlags: Deno's permission JSON back to flags", () => {
  const permissions: BakedPermissions = {
    allow_read: [],
    deny_read: null,
    ignore_read: null,
    allow_env: ["HOME", "PATH"],
    ignore_env: ["LOG_TOKENS"],
    allow_net: null,
    deny_net: ["example.test"],
    allow_import: [...DENO_DEFAULT_ALLOW_IMPORT].reverse(),
    prompt: false,
  };
  assert.deepEqual(bakedPermissionFlags(permissions), [
    "--no-prompt",
    "--allow-read",
    "--allow-env=HOME,PATH",
    "--ignore-env=LOG_TOKENS",
    "--deny-net=example.test",
  ]);
  const widened = {
    ...permissions,
    allow_import: [...DENO_DEFAULT_ALLOW_IMPORT, "evil.test:443"],
    prompt: true,
  };
  assert.deepEqual(
    bakedPermissionFlags(widened).filter((f) => f.includes("import") || f.includes("prompt")),
    [
      `--allow-import=${[...DENO_DEFAULT_ALLOW_IMPORT, "evil.test:443"].join(",")}`,
    ],
  );
});
