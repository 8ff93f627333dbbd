import { storeConformance } from "../testing/store_conformance.ts";
import { MemorySidecarStore } from "./memory_store.ts";

storeConformance("MemorySidecarStore", (clock) => {
  const texts = new Map<string, string>();
  return Promise.resolve({
    store: new MemorySidecarStore({ clock, texts }),
    writeRaw: (id: string, text: string) => Promise.resolve(void texts.set(id, text)),
    [Symbol.asyncDispose]: () => Promise.resolve(),
  });
});
