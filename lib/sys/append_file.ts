// Owns writing lines to the end of a file as they come (`--debug-file <path>`): the file is created
// (0600) or appended to, each line written at once, so what a killed run logged is there. Errors after
// opening are swallowed: a log that cannot be written never fails the run.

/** Opens `path` for appending; throws (Deno's error) when it cannot be opened. */
export function appendWriter(path: string): { write(text: string): void; close(): void } {
  const file = Deno.openSync(path, { append: true, create: true, mode: 0o600 });
  const encoder = new TextEncoder();
  let open = true;
  return {
    write(text) {
      if (!open) return;
      try {
        const bytes = encoder.encode(text);
        let done = 0;
        while (done < bytes.length) done += file.writeSync(bytes.subarray(done));
      } catch {
        open = false;
      }
    },
    close() {
      if (!open) return;
      open = false;
      try {
        file.close();
      } catch { /* already closed */ }
    },
  };
}
