// Owns `blade trust [path] [--revoke] [--status] [--json]`: records, removes or shows Workspace
// Trust for a folder (default: the working folder).

import { parseArgs } from "./parse_args.ts";
import type { Ports } from "../sys/mod.ts";
import { BladeError } from "../errors.ts";
import { resolveStorageRoot, storageLayout } from "../config/storage.ts";
import { openStorageRoot } from "../store/storage_root.ts";
import { decideTrust, readTrust, setTrust } from "../permissions/trust.ts";
import type { Io } from "./io.ts";
import { parseOrUsage } from "./args.ts";
import { jsonTerminalSafe, terminalSafe } from "./sanitize.ts";

const HELP = `Usage: blade trust [path] [--revoke | --status] [--json]

Workspace Trust: an untrusted folder's project agents (.claude/agents, .blade/agents) and project
settings are not loaded, and Bash and writes outside Blade's storage are refused.

  blade trust              trust the working folder (and its sub-folders)
  blade trust ../repo      trust another folder
  blade trust --revoke     stop trusting the folder
  blade trust --status     show whether the folder is trusted (exit 0 either way)
  --json                   machine-readable output
`;

export async function runTrust(argv: string[], ports: Ports, io: Io): Promise<number> {
  const { values, positionals } = parseOrUsage(() =>
    parseArgs({
      args: argv,
      options: {
        revoke: { type: "boolean" },
        status: { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    }), "blade trust");
  if (values.help === true) {
    io.out(HELP);
    return 0;
  }
  if (positionals.length > 1) {
    throw new BladeError("usage", "blade trust takes at most one path.", { exitCode: 2 });
  }
  if (values.revoke === true && values.status === true) {
    throw new BladeError("usage", "--revoke and --status cannot be used together.", { exitCode: 2 });
  }
  const path = await trustTarget(ports, positionals[0] ?? ports.env.cwd());
  const root = resolveStorageRoot(ports.env);
  const layout = storageLayout(
    await openStorageRoot(ports.fs, root, values.status === true ? "read" : "write"),
  );
  let changed = false;
  if (values.status !== true) {
    ({ changed } = await setTrust(ports.fs, layout.trustFile, {
      path,
      trusted: values.revoke !== true,
      now: new Date(ports.clock.now()),
    }));
  }
  const decision = decideTrust(await readTrust(ports.fs, layout.trustFile), path, false);
  if (values.status !== true && values.revoke !== true) {
    const broad = await broadTrustWarning(ports, path);
    if (broad !== undefined) io.err(terminalSafe(broad));
  }
  if (values.json === true) {
    io.out(
      jsonTerminalSafe(JSON.stringify({
        path,
        trusted: decision.trusted,
        ...(decision.via !== undefined && decision.via !== path ? { via: decision.via } : {}),
        changed,
      })) + "\n",
    );
    return 0;
  }
  reportTrust(io, values, path, decision, changed);
  return 0;
}

/** The real path of the folder to trust, or a clear error when `given` is missing or not a folder. */
async function trustTarget(ports: Ports, given: string): Promise<string> {
  const absolute = given.startsWith("/") ? given : `${ports.env.cwd()}/${given}`;
  let path: string;
  try {
    path = await ports.fs.realPath(absolute);
  } catch {
    throw new BladeError("path_not_found", `Cannot trust ${given}: no such folder.`, {
      hint: "Give the path of an existing folder.",
    });
  }
  const info = await ports.fs.stat(path);
  if (info?.isDirectory !== true) {
    throw new BladeError("not_a_folder", `Cannot trust ${given}: it is not a folder.`, {
      hint: "Workspace Trust applies to folders.",
    });
  }
  return path;
}

/** The human-readable outcome of `blade trust` (status, revoke or trust). */
function reportTrust(
  io: Io,
  values: { status?: boolean; revoke?: boolean },
  path: string,
  decision: ReturnType<typeof decideTrust>,
  changed: boolean,
): void {
  // A folder's name comes from the file system (a cloned repository may name it): no raw escapes.
  const say = (text: string) => io.out(terminalSafe(text));
  if (values.status === true) {
    say(
      decision.trusted
        ? `${path} is trusted${decision.via !== path ? ` (through ${decision.via})` : ""}.\n`
        : `${path} is not trusted. Run \`blade trust\` in it to trust it.\n`,
    );
  } else if (values.revoke === true) {
    say(changed ? `${path} is no longer trusted.\n` : `${path} was not trusted; nothing changed.\n`);
    if (decision.trusted) say(`It is still trusted through ${decision.via}.\n`);
  } else {
    say(changed ? `Trusted ${path}.\n` : `${path} was already trusted.\n`);
  }
}

/**
 * Trust covers sub-folders, so trusting `/` or the home folder trusts every project on the machine
 * (or of the user): it is allowed, but never silently.
 */
async function broadTrustWarning(ports: Ports, path: string): Promise<string | undefined> {
  const home = ports.env.home();
  const realHome = home === undefined || home === ""
    ? undefined
    : await ports.fs.realPath(home).catch(() => home);
  const what = path === "/" ? "the root folder" : path === realHome ? "your home folder" : undefined;
  if (what === undefined) return undefined;
  return `blade: warning: ${path} is ${what}: every folder below it is now trusted (project agents, ` +
    `settings and Bash included). Use \`blade trust --revoke ${path}\` to undo; trust project folders instead.\n`;
}
