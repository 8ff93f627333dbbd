// Owns opening a top-level session: a fresh one (new id, `session_created`), `--resume <id>` or
// `--continue` (the most recent transcript of this workspace), rebuilt from its transcript.

import type { Ports } from "../sys/mod.ts";
import type { StorageLayout } from "../config/storage.ts";
import { newSessionId } from "../sys/ids.ts";
import { BladeError } from "../errors.ts";
import { readTranscript, type TranscriptDiagnostic, TranscriptWriter } from "./transcript.ts";
import { type History, rebuildHistory } from "./history.ts";
import { validateSessionId } from "../protocol/ids.ts";

export interface OpenedSession {
  sessionId: string;
  transcript: TranscriptWriter;
  history: History;
  diagnostics: TranscriptDiagnostic[];
  resumed: boolean;
}

export interface OpenSessionOptions {
  layout: StorageLayout;
  workspace: string;
  model: string;
  resume?: string;
  continueLatest?: boolean;
  redact?: (text: string) => string;
}

async function latestSessionId(ports: Ports, dir: string): Promise<string | undefined> {
  let entries;
  try {
    entries = await ports.fs.readDir(dir);
  } catch {
    return undefined;
  }
  let best: { id: string; mtime: number } | undefined;
  for (const e of entries) {
    if (!e.isFile || !e.name.endsWith(".jsonl") || !e.name.startsWith("session-")) continue;
    const info = await ports.fs.stat(`${dir}/${e.name}`);
    const mtime = info?.mtimeMs ?? 0;
    if (best === undefined || mtime > best.mtime) best = { id: e.name.slice(0, -6), mtime };
  }
  return best?.id;
}

export async function openSession(ports: Ports, o: OpenSessionOptions): Promise<OpenedSession> {
  let id = o.resume;
  if (id === undefined && o.continueLatest === true) {
    id = await latestSessionId(ports, o.layout.projectDir(o.workspace));
    if (id === undefined) {
      throw new BladeError("no_session", "There is no earlier session in this folder to continue.", {
        hint:
          'Start one with `blade -p "…"`; --continue picks the most recent session of the working folder.',
      });
    }
  }
  if (id !== undefined) {
    validateSessionId(id);
    const path = o.layout.transcriptPath(o.workspace, id);
    const read = await readTranscript(ports.fs, path);
    if (read === null) {
      throw new BladeError("no_session", `Session ${id} was not found in this workspace.`, {
        hint: "Sessions belong to the folder they were started in; list them with `ls ~/.blade/projects/`.",
      });
    }
    const transcript = new TranscriptWriter({
      fs: ports.fs,
      clock: ports.clock,
      ids: ports.ids,
      path,
      sessionId: id,
      projectPath: o.workspace,
      ...(o.redact === undefined ? {} : { redact: o.redact }),
    });
    return {
      sessionId: id,
      transcript,
      history: rebuildHistory(read.events),
      diagnostics: read.diagnostics,
      resumed: true,
    };
  }
  const sessionId = newSessionId(ports.ids);
  const transcript = new TranscriptWriter({
    fs: ports.fs,
    clock: ports.clock,
    ids: ports.ids,
    path: o.layout.transcriptPath(o.workspace, sessionId),
    sessionId,
    projectPath: o.workspace,
    ...(o.redact === undefined ? {} : { redact: o.redact }),
  });
  const data = { agentType: "main", model: o.model, depth: 0 };
  await transcript.append([{ type: "session_created", data }]);
  return {
    sessionId,
    transcript,
    history: rebuildHistory([]),
    diagnostics: [],
    resumed: false,
  };
}
