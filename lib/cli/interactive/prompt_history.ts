// Owns the interactive session's prompt history for one project: the last prompts, oldest first, in
// `<storage>/projects/<project>/prompt-history.json` (0600, written atomically after every prompt).
// A missing or unreadable file is an empty history, never an error; a failed write is reported.
// Configured secrets (provider keys) are redacted before anything is written, as in every record.

import type { Fs } from "../../sys/fs.ts";

export const HISTORY_LIMIT = 500;

export class PromptHistory {
  #fs: Fs;
  #path: string;
  #entries: string[] = [];
  #redact: (text: string) => string;

  constructor(fs: Fs, path: string, options: { redact?: (text: string) => string } = {}) {
    this.#fs = fs;
    this.#path = path;
    this.#redact = options.redact ?? ((text) => text);
  }

  /** Oldest first. */
  get entries(): readonly string[] {
    return this.#entries;
  }

  async load(): Promise<readonly string[]> {
    try {
      const parsed: unknown = JSON.parse(await this.#fs.readText(this.#path));
      const list = (parsed as { prompts?: unknown }).prompts;
      this.#entries = Array.isArray(list) ? list.filter((p): p is string => typeof p === "string") : [];
    } catch {
      this.#entries = [];
    }
    return this.#entries;
  }

  /** Adds a prompt (a repeat of the last one is not added twice) and writes the file. */
  async add(prompt: string): Promise<void> {
    const text = this.#redact(prompt.trim());
    if (text === "" || this.#entries.at(-1) === text) return;
    this.#entries = [...this.#entries, text].slice(-HISTORY_LIMIT);
    await this.#fs.writeAtomic(this.#path, JSON.stringify({ version: 1, prompts: this.#entries }) + "\n");
  }
}
