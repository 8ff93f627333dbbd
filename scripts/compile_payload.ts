// Owns reading what `deno compile` (Deno 2.9) baked into an executable: the metadata JSON (argv,
// permissions, unstable features, entry point), the npm packages and the virtual file system, so
// tests can check a release binary without running it. Does not build binaries (release.ts) and
// does not read the native part of the file: the payload is found by its own framing, whatever the
// container (ELF note, PE resource or Mach-O section).
//
//   deno run --allow-read scripts/compile_payload.ts dist/release/<version>/blade-<target>
//   prints the baked flags, the entry point and the embedded files (npm packages summarised).
//
// Layout of the payload (deno_lib standalone format, all integers little-endian):
//   "d3n0l4nd"
//   u64 len + metadata JSON
//   u64 len + npm snapshot
//   specifiers: u32 count, then per entry u32 len + specifier, u32 id
//   redirects: u32 count, then per entry u32 from-id, u32 to-id
//   remote modules: u32 count, then per entry u32 id, u8 media type, u32 len + data, u8 flags,
//     then u32 len + data for each of transpiled (flag 1), source map (2), CJS analysis (4)
//   u64 len + VFS JSON (entries: {Dir: {n, e}}, {File: {n, o: [offset, len], x?}}, {Symlink: {n}})
//   u64 len + VFS file data
//   "d3n0l4nd"

import { BladeError } from "../lib/errors.ts";

export const PAYLOAD_MAGIC = "d3n0l4nd";

/** The part of Deno's metadata JSON Blade checks; everything else is kept as Deno wrote it. */
export interface CompileMetadata {
  argv: string[];
  permissions: BakedPermissions;
  entrypoint_key: string;
  unstable_config: { features: string[]; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * Deno's `PermissionsOptions`: per kind `allow_<kind>` / `deny_<kind>` (`null` = not given,
 * `[]` = the bare flag, a list = `--allow-<kind>=a,b`), `ignore_env`, `ignore_read` and `prompt`.
 */
export interface BakedPermissions {
  prompt: boolean;
  [key: string]: string[] | boolean | null;
}

export interface PayloadFile {
  /** Path below the compile root, `/`-separated, e.g. `agents/Explore.md`. */
  path: string;
  size: number;
  executable: boolean;
}

export interface CompilePayload {
  metadata: CompileMetadata;
  /** npm package ids of the embedded snapshot, e.g. `yaml@2.9.1`. */
  npmPackages: string[];
  /** Specifiers of embedded remote (http/https) modules. */
  remoteModules: string[];
  /** Every file of the virtual file system, sorted by path. */
  files: PayloadFile[];
  /** The bytes of one embedded file, or undefined when the payload has no such file. */
  readFile(path: string): Uint8Array | undefined;
}

/** Reads and parses the payload of a compiled executable. */
export async function readCompilePayload(path: string): Promise<CompilePayload> {
  return parseCompilePayload(await Deno.readFile(path), { name: path });
}

export interface ParseOptions {
  /** Shown in errors (default "the executable"). */
  name?: string;
}

/** Parses the payload out of a compiled executable's bytes; throws a BladeError when there is none. */
export function parseCompilePayload(bytes: Uint8Array, options: ParseOptions = {}): CompilePayload {
  const name = options.name ?? "the executable";
  const start = findPayloadStart(bytes);
  if (start === undefined) {
    throw new BladeError("compile_payload_missing", `No deno compile payload found in ${name}`, {
      hint: "Build it with scripts/release.ts (or `deno compile`) first",
    });
  }
  try {
    return readPayload(new Reader(bytes, start));
  } catch (error) {
    if (error instanceof BladeError) throw error;
    throw new BladeError(
      "compile_payload_invalid",
      `The deno compile payload in ${name} is malformed: ${error instanceof Error ? error.message : error}`,
      { hint: "Was it built by the Deno version pinned in .tools/? The format is Deno 2.9's", cause: error },
    );
  }
}

/**
 * The flags the baked permissions stand for, in `toDenoFlags` spelling, so they can be compared with
 * what Blade asked for. `allow_import` is left out while it holds Deno's default host list, which
 * `deno compile` writes when no import flag was given.
 */
export function bakedPermissionFlags(permissions: BakedPermissions): string[] {
  const flags: string[] = [];
  if (permissions.prompt === false) flags.push("--no-prompt");
  for (const [key, value] of Object.entries(permissions)) {
    const match = /^(allow|deny|ignore)_([a-z]+)$/.exec(key);
    if (match === null || value === null || typeof value === "boolean") continue;
    if (key === "allow_import" && sameItems(value, DENO_DEFAULT_ALLOW_IMPORT)) continue;
    const flag = `--${match[1]}-${match[2]}`;
    flags.push(value.length === 0 ? flag : `${flag}=${value.join(",")}`);
  }
  return flags;
}

/** Hosts Deno 2.9 allows remote imports from when no `--allow-import` is given. */
export const DENO_DEFAULT_ALLOW_IMPORT: readonly string[] = [
  "deno.land:443",
  "jsr.io:443",
  "esm.sh:443",
  "raw.esm.sh:443",
  "cdn.jsdelivr.net:443",
  "raw.githubusercontent.com:443",
  "gist.githubusercontent.com:443",
];

const MAGIC = new TextEncoder().encode(PAYLOAD_MAGIC);
const decoder = new TextDecoder();

/**
 * The offset of the opening magic: the first "d3n0l4nd" followed by a u64 length and a JSON
 * object. The runtime binary itself contains the magic as a constant, and libsui writes the
 * section name before the data, so a bare match is not enough.
 */
function findPayloadStart(bytes: Uint8Array): number | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = indexOf(bytes, MAGIC, 0); i !== -1; i = indexOf(bytes, MAGIC, i + 1)) {
    const at = i + MAGIC.length;
    if (at + 9 > bytes.length) break;
    // A length that runs past the end is left to the reader, which reports the payload as cut off.
    if (view.getBigUint64(at, true) > 1n && bytes[at + 8] === 0x7b /* { */) return i;
  }
  return undefined;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  for (let i = haystack.indexOf(first ?? 0, from); i !== -1; i = haystack.indexOf(first ?? 0, i + 1)) {
    if (i + needle.length > haystack.length) return -1;
    let hit = true;
    for (let j = 1; j < needle.length && hit; j++) hit = haystack[i + j] === needle[j];
    if (hit) return i;
  }
  return -1;
}

function readPayload(r: Reader): CompilePayload {
  r.magic("opening");
  const metadata = parseMetadata(r.bytes(r.u64()));
  const npmPackages = parseNpmSnapshot(r.bytes(r.u64()));
  const specifiers = new Map<number, string>();
  for (let n = r.u32(); n > 0; n--) {
    const specifier = decoder.decode(r.bytes(r.u32()));
    specifiers.set(r.u32(), specifier);
  }
  for (let n = r.u32(); n > 0; n--) r.skip(8); // redirects: from-id, to-id
  const remoteModules: string[] = [];
  for (let n = r.u32(); n > 0; n--) {
    const id = r.u32();
    r.skip(1); // media type
    r.skip(r.u32());
    const flags = r.u8();
    for (const flag of [1, 2, 4]) if ((flags & flag) !== 0) r.skip(r.u32());
    remoteModules.push(specifiers.get(id) ?? `#${id}`);
  }
  const entries = JSON.parse(decoder.decode(r.bytes(r.u64()))) as unknown;
  const data = r.bytes(r.u64());
  r.magic("closing");
  const located = new Map<string, { file: PayloadFile; offset: number }>();
  walkVfs(entries, "", (file, offset) => {
    if (offset + file.size > data.length) throw new Error(`file ${file.path} lies outside the VFS data`);
    located.set(file.path, { file, offset });
  });
  const files = [...located.values()].map((l) => l.file).sort((a, b) => (a.path < b.path ? -1 : 1));
  return {
    metadata,
    npmPackages,
    remoteModules,
    files,
    readFile(path) {
      const hit = located.get(path);
      return hit === undefined ? undefined : data.slice(hit.offset, hit.offset + hit.file.size);
    },
  };
}

function parseMetadata(bytes: Uint8Array): CompileMetadata {
  const value = JSON.parse(decoder.decode(bytes)) as Partial<CompileMetadata> | null;
  if (
    value === null || typeof value !== "object" || !Array.isArray(value.argv) ||
    typeof value.permissions !== "object" || value.permissions === null ||
    typeof value.entrypoint_key !== "string" || !Array.isArray(value.unstable_config?.features)
  ) {
    throw new Error("the metadata JSON lacks argv, permissions, entrypoint_key or unstable_config");
  }
  return value as CompileMetadata;
}

/** The package ids of Deno's compact npm snapshot: u32 count, then that many u32-length strings. */
function parseNpmSnapshot(bytes: Uint8Array): string[] {
  if (bytes.length === 0) return [];
  const r = new Reader(bytes, 0);
  const ids: string[] = [];
  for (let n = r.u32(); n > 0; n--) ids.push(decoder.decode(r.bytes(r.u32())));
  return ids;
}

function walkVfs(entries: unknown, prefix: string, visit: (file: PayloadFile, offset: number) => void): void {
  if (!Array.isArray(entries)) throw new Error(`VFS folder "${prefix}" has no entry list`);
  for (const entry of entries as Record<string, unknown>[]) {
    const [kind, body] = Object.entries(entry)[0] ?? [];
    const node = body as { n?: unknown; e?: unknown; o?: unknown; x?: unknown } | undefined;
    if (typeof node?.n !== "string") throw new Error(`VFS entry without a name in "${prefix}"`);
    const path = `${prefix}${node.n}`;
    if (kind === "Dir") walkVfs(node.e, `${path}/`, visit);
    else if (kind === "File") {
      const o = node.o;
      if (!Array.isArray(o) || typeof o[0] !== "number" || typeof o[1] !== "number") {
        throw new Error(`VFS file ${path} has no [offset, length]`);
      }
      visit({ path, size: o[1], executable: node.x === true }, o[0]);
    }
    // Symlinks carry no data of their own.
  }
}

function sameItems(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item) => b.includes(item));
}

class Reader {
  #bytes: Uint8Array;
  #view: DataView;
  #at: number;

  constructor(bytes: Uint8Array, at: number) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#at = at;
  }

  u8(): number {
    this.#need(1);
    return this.#view.getUint8(this.#at++);
  }

  u32(): number {
    this.#need(4);
    const value = this.#view.getUint32(this.#at, true);
    this.#at += 4;
    return value;
  }

  u64(): number {
    this.#need(8);
    const value = this.#view.getBigUint64(this.#at, true);
    this.#at += 8;
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`length ${value} is out of range`);
    return Number(value);
  }

  bytes(length: number): Uint8Array {
    this.#need(length);
    const slice = this.#bytes.subarray(this.#at, this.#at + length);
    this.#at += length;
    return slice;
  }

  skip(length: number): void {
    this.#need(length);
    this.#at += length;
  }

  magic(which: string): void {
    const found = this.bytes(MAGIC.length);
    if (!found.every((b, i) => b === MAGIC[i])) throw new Error(`the ${which} "${PAYLOAD_MAGIC}" is missing`);
  }

  #need(length: number): void {
    if (length < 0 || this.#at + length > this.#bytes.length) {
      throw new Error(`unexpected end of data at byte ${this.#at} (wanted ${length} more)`);
    }
  }
}

/** A short JSON summary of a payload, for people: flags, entry, unstable features, Blade's own files. */
export function summarizePayload(payload: CompilePayload): Record<string, unknown> {
  return {
    entrypoint: payload.metadata.entrypoint_key,
    argv: payload.metadata.argv,
    permissionFlags: bakedPermissionFlags(payload.metadata.permissions),
    unstable: payload.metadata.unstable_config.features,
    npmPackages: payload.npmPackages,
    remoteModules: payload.remoteModules,
    files: payload.files.filter((f) => !f.path.startsWith(".deno_compile_node_modules/")).map((f) => f.path),
  };
}

if (import.meta.main) {
  const [path] = Deno.args;
  if (path === undefined) {
    // deno-lint-ignore no-console
    console.error("Usage: deno run --allow-read scripts/compile_payload.ts <compiled binary>");
    Deno.exit(2);
  }
  // deno-lint-ignore no-console
  console.log(JSON.stringify(summarizePayload(await readCompilePayload(path)), null, 2));
}
