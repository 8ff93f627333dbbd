// Owns classifying failed HTTP requests for the HTTP providers: a non-2xx response (kind, retryable,
// retry-after, the server's own message) or a connection that could not be made. Pure apart from
// reading the given values. Does not own retrying (retry.ts) or sending (sse_request.ts).

import { describeError } from "../errors.ts";
import type { ProviderErrorKind } from "../protocol/provider.ts";
import { type AttemptFailure, parseRetryAfter } from "./retry.ts";

export function connectFailure(
  error: unknown,
  request: { label: string; url: string; debug?: ((line: string) => void) | undefined },
): AttemptFailure {
  const url = displayUrl(request.url);
  const detail = describeCauses(error).replaceAll(request.url, url);
  // No network grant (a child Worker's proxy refusing a request says so too): retrying cannot help.
  if (error instanceof Error && error.name === "NotCapable") {
    return {
      kind: "invalid_request",
      summary: `${request.label} request was refused`,
      detail,
      retryable: false,
    };
  }
  if (/invalid url|url scheme|unsupported scheme/i.test(detail)) {
    return {
      kind: "invalid_request",
      summary: `${request.label} URL is not valid`,
      detail,
      retryable: false,
    };
  }
  const reason = /refused/i.test(detail)
    ? "connection refused"
    : /reset/i.test(detail)
    ? "connection reset"
    : /dns|lookup|resolve/i.test(detail)
    ? "host not found"
    : undefined;
  request.debug?.(`${request.label}: ${detail}`);
  if (reason !== undefined) {
    return {
      kind: "network",
      summary: `Could not connect to ${request.label} at ${url} (${reason})`,
      retryable: true,
    };
  }
  return {
    kind: "network",
    summary: `Could not connect to ${request.label} at ${url}`,
    detail,
    retryable: true,
  };
}

/** A URL fit for messages and logs: no credentials, no query string (some proxies put keys there). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return url.replace(/[?#].*$/, "").replace(/\/\/[^/@]*@/, "//");
  }
}

/** `fetch failed: error sending request…: Connection refused`: the error and its causes. */
export function describeCauses(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const message = describeError(e);
    if (message !== "" && !parts.includes(message)) parts.push(message);
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(": ");
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  408: "Request Timeout",
  413: "Payload Too Large",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  529: "Overloaded",
};

/** Classify a non-2xx response. Retryable: 408, 429, 5xx (529 included), unless `x-should-retry` says. */
export function statusFailure(
  response: Response,
  options: { label: string; body: string; now: number },
): AttemptFailure {
  const { label, body, now } = options;
  const { status } = response;
  const error = errorOf(body);
  const kind: ProviderErrorKind = status === 401 || status === 403
    ? "auth"
    : status === 408
    ? "timeout"
    : status === 429
    ? "rate_limit"
    : status === 529 || error.type === "overloaded_error"
    ? "overloaded"
    : status >= 500
    ? "server"
    : "invalid_request";
  const shouldRetry = response.headers.get("x-should-retry");
  const retryable = shouldRetry === "true" || (shouldRetry !== "false" && (status === 408 || status === 429 ||
    status >= 500));
  const statusText = STATUS_TEXT[status] ?? response.statusText;
  const failure: AttemptFailure = {
    kind,
    summary: `${label} returned ${status}${statusText ? ` ${statusText}` : ""}`,
    status,
    retryable,
  };
  const detail = error.message === undefined
    ? body.trim().slice(0, 500)
    : error.type === undefined
    ? error.message
    : `${error.type}: ${error.message}`;
  if (detail !== "") failure.detail = detail;
  if (error.message !== undefined || error.type !== undefined) failure.api = error;
  const retryAfterMs = parseRetryAfter(response.headers, now);
  if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
  return failure;
}

/** `{error: {type, message}}` (Anthropic, OpenAI) or `{message}` / `{detail}` (some local servers). */
function errorOf(body: string): { type?: string; message?: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return {};
  }
  if (typeof json !== "object" || json === null) return {};
  const record = json as Record<string, unknown>;
  const inner = typeof record["error"] === "object" && record["error"] !== null
    ? record["error"] as Record<string, unknown>
    : record;
  const message = [inner["message"], record["message"], record["detail"], record["error"]]
    .find((v): v is string => typeof v === "string");
  const out: { type?: string; message?: string } = {};
  if (typeof inner["type"] === "string") out.type = inner["type"];
  if (message !== undefined) out.message = message;
  return out;
}
