// Owns base64 for the embedded WebAssembly modules: V8's own `Uint8Array.fromBase64` /
// `toBase64` (one native pass; a JavaScript loop over the 2 MB text took over a second in a bundle).

interface Base64Uint8Array {
  fromBase64(text: string): Uint8Array;
}

interface Base64Bytes {
  toBase64(): string;
}

export function decodeBase64(text: string): Uint8Array {
  return (Uint8Array as unknown as Base64Uint8Array).fromBase64(text);
}

export function encodeBase64(bytes: Uint8Array): string {
  return (bytes as unknown as Base64Bytes).toBase64();
}
