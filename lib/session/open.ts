// Owns opening a top-level session: a fresh one (new id, `session_created`), `--resume <id>` or
// `--continue` (the most recent transcript of this workspace), rebuilt from its transcript.

import type { Ports } from "../sys/mod.ts";
import type { StorageLayout } from "../config/storage.ts";
import { newSessionId } from "../sys/ids.ts";
import { BladeError } from "../errors.ts";
import { readTranscript, type TranscriptDiagnostic, TranscriptWriter } from "./transcript.ts";
import { type History, rebuildHistory } from "./history.ts";
import { validateSessionId } from "../protocol/ids.ts";
import type { NewTranscriptEvent } from "../protocol/events.ts";

export interface OpenedSession {
  sessionId: string;
  transcript: TranscriptWriter;
  history: History;
  diagnostics: TranscriptDiagnostic[];
  resumed: boolean;
  /** A fresh session opened with `deferCreated`: its `session_created`, for the first turn's batch. */
  prelude?: NewTranscriptEvent[];
}

export interface OpenSessionOptions {
  layout: StorageLayout;
  workspace: string;
  model: string;
  resume?: string;
  continueLatest?: boolean;
  /** `--session-id`: the id of a new session (or, with `fork`, of the fork). Must not exist yet. */
  sessionId?: string;
  /** `--fork-session`: continue a copy of the resumed session under a new id; the original stays. */
  fork?: boolean;
  redact?: (text: string) => string;
  /**
   * A fresh session's `session_created` is not written now but returned as `prelude`, to open the
   * first turn's durable batch (one fsync fewer; print mode, whose first turn follows at once).
   */
  deferCreated?: boolean;
}

/** Top-level session transcripts: Blade's `session-…` ids and the UUIDs `--session-id` gives. */
const TOP_LEVEL = /^(session-.*|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/** The top-level sessions in a project folder, most recently written first (none when it is missing). */
export async function recentSessions(ports: Ports, dir: string): Promise<{ id: string; mtimeMs: number }[]> {
  let entries;
  try {
    entries = await ports.fs.readDir(dir);
  } catch {
    return [];
  }
  const found: { id: string; mtimeMs: number }[] = [];
  for (const e of entries) {
    if (!e.isFile || !TOP_LEVEL.test(e.name)) continue;
    const info = await ports.fs.stat(`${dir}/${e.name}`);
    found.push({ id: e.name.slice(0, -6), mtimeMs: info?.mtimeMs ?? 0 });
  }
  return found.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/**
 * A transcript this size or larger holds more than a `session_created` line (a few hundred bytes),
 * so it is not read to tell whether the session is empty.
 */
const EMPTY_SESSION_MAX_BYTES = 16 * 1024;

/**
 * The most recent session of the folder that holds a conversation. A session opened and left without
 * a prompt, or left by a start that crashed before its first turn, holds only its `session_created`
 * (or nothing): `--continue` passes over it, as Claude Code does.
 */
async function latestSessionId(ports: Ports, dir: string): Promise<string | undefined> {
  for (const { id } of await recentSessions(ports, dir)) {
    if (!(await isEmptySession(ports, `${dir}/${id}.jsonl`))) return id;
  }
  return undefined;
}

async function isEmptySession(ports: Ports, path: string): Promise<boolean> {
  const info = await ports.fs.lstat(path);
  if (info === null || !info.isFile) return false; // not ours to judge: continuing it says why
  if (info.size >= EMPTY_SESSION_MAX_BYTES) return false;
  const read = await readTranscript(ports.fs, path).catch(() => null);
  if (read === null || read.diagnostics.length > 0) return false;
  return !read.events.some((e) => e.type === "turn_started");
}

export async function openSession(ports: Ports, o: OpenSessionOptions): Promise<OpenedSession> {
  let id = o.resume;
  // `--continue` with no earlier session in the folder starts a fresh one, as Claude Code does (CI
  // steps that always pass -c work from the first run on).
  if (id === undefined && o.continueLatest === true) {
    id = await latestSessionId(ports, o.layout.projectDir(o.workspace));
  }
  if (id !== undefined) return await continueSession(ports, o, id);
  const sessionId = await freshId(ports, o);
  const transcript = writer(ports, o, sessionId);
  const data = { agentType: "main", model: o.model, depth: 0 };
  const created: NewTranscriptEvent[] = [{ type: "session_created", data }];
  if (o.deferCreated !== true) await transcript.append(created);
  return {
    sessionId,
    transcript,
    history: rebuildHistory([]),
    diagnostics: [],
    resumed: false,
    ...(o.deferCreated === true ? { prelude: created } : {}),
  };
}

/** `--resume <id>` / `--continue`: the session's transcript, checked, rebuilt (or forked). */
async function continueSession(ports: Ports, o: OpenSessionOptions, id: string): Promise<OpenedSession> {
  validateSessionId(id);
  const path = o.layout.transcriptPath(o.workspace, id);
  const read = await readTranscript(ports.fs, path);
  if (read === null) {
    throw new BladeError("no_session", `Session ${id} was not found in this workspace.`, {
      hint: "Sessions belong to the folder they were started in; this folder's are the " +
        `session-<id>.jsonl files in ${
          o.layout.projectDir(o.workspace)
        } (\`blade\`, then /resume, lists them).`,
    });
  }
  // An empty file is a session whose first line never reached the disk (it was full): it starts now.
  if (read.events.length === 0 && read.diagnostics.length === 0 && o.fork !== true) {
    const transcript = writer(ports, o, id);
    await transcript.append([{
      type: "session_created",
      data: { agentType: "main", model: o.model, depth: 0 },
    }]);
    return { sessionId: id, transcript, history: rebuildHistory([]), diagnostics: [], resumed: true };
  }
  const first = read.events[0];
  if (first?.type !== "session_created" || first.sessionId !== id) {
    throw new BladeError(
      "transcript_invalid",
      `Session ${id} cannot be continued: ${path} does not start with its session_created event${
        read.diagnostics.length > 0 ? ` (${read.diagnostics.length} unreadable lines)` : ""
      }.`,
      {
        hint:
          "The file is not a Blade transcript (or its start was lost); move it aside and start a new session.",
      },
    );
  }
  if (o.fork === true) {
    const forkId = await freshId(ports, o);
    const transcript = writer(ports, o, forkId);
    // The fork starts as a copy of the original's events; the original is never written again.
    await transcript.append(read.events.map((e) => ({ type: e.type, data: e.data }) as NewTranscriptEvent));
    return {
      sessionId: forkId,
      transcript,
      history: rebuildHistory(read.events),
      diagnostics: read.diagnostics,
      resumed: true,
    };
  }
  const transcript = writer(ports, o, id);
  return {
    sessionId: id,
    transcript,
    history: rebuildHistory(read.events),
    diagnostics: read.diagnostics,
    resumed: true,
  };
}

function writer(ports: Ports, o: OpenSessionOptions, sessionId: string): TranscriptWriter {
  return new TranscriptWriter({
    fs: ports.fs,
    clock: ports.clock,
    ids: ports.ids,
    path: o.layout.transcriptPath(o.workspace, sessionId),
    sessionId,
    projectPath: o.workspace,
    // The main session is the first writer in a project: a folder it makes is made durable too.
    syncMadeFolder: true,
    ...(o.redact === undefined ? {} : { redact: o.redact }),
  });
}

/** A new session's id: `--session-id` (refused when that session exists) or a generated one. */
async function freshId(ports: Ports, o: OpenSessionOptions): Promise<string> {
  if (o.sessionId === undefined) return newSessionId(ports.ids);
  const id = validateSessionId(o.sessionId);
  if ((await ports.fs.stat(o.layout.transcriptPath(o.workspace, id))) !== null) {
    throw new BladeError("session_exists", `Session ID ${id} is already in use.`, {
      hint: "Pass a new UUID to --session-id, or continue that session with --resume " + id + ".",
    });
  }
  return id;
}
