// Owns the vocabulary of Blade's web tools (docs/reference/tools.md): what WebFetch and WebSearch ask
// for, and the WebAccess port that answers them. The main thread implements it (lib/web/); a child in
// a Worker gets a proxy that asks the main thread, which checks the child's own tools first (the
// Worker has no network grant). No I/O.

/** A WebFetch call: the page, the question about it, where to start reading a long page. */
export interface WebFetchRequest {
  url: string;
  prompt: string;
  offset?: number;
}

/** A WebSearch call: the query and Anthropic's domain filters. */
export interface WebSearchRequest {
  query: string;
  allowedDomains?: string[];
  blockedDomains?: string[];
}

/** A web tool's answer, shaped like a tool result (lib/tools/tool.ts ToolResult). */
export interface WebResult {
  content: string;
  isError: boolean;
  metadata?: Record<string, unknown>;
}

/** How a session reaches the web: one fetch or one search per call, each cancellable. */
export interface WebAccess {
  fetch(request: WebFetchRequest, signal: AbortSignal): Promise<WebResult>;
  search(request: WebSearchRequest, signal: AbortSignal): Promise<WebResult>;
}
