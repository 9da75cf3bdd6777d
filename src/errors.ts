/**
 * Errors of the core (canonical digests, pins, listings, pin files). Every error
 * agent-airlock throws is an {@link AirlockError} with a stable `code`: switch on
 * `code`, not on the message. Other subpaths (scan, guard) subclass it.
 *
 * @example
 * ```ts
 * import { AirlockError, ToolDefinitionPinGuard } from "agent-airlock";
 * const guard = new ToolDefinitionPinGuard();
 * try {
 *   guard.validate({ name: "never_approved" });
 * } catch (err) {
 *   if (err instanceof AirlockError && err.code === "TOOL_DEFINITION_DRIFT") console.log("refused");
 * }
 * ```
 */
export class AirlockError extends Error {
  /** Stable, machine-readable error code. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Codes of {@link CanonicalizationError}. */
export type CanonicalizationErrorCode =
  /** Nested deeper than the depth limit (default 1,000). */
  | "CANONICAL_DEPTH"
  /** An object or array contains itself. */
  | "CANONICAL_CYCLE"
  /** NaN, Infinity, or a number JSON cannot carry. */
  | "CANONICAL_NUMBER"
  /** A string with a lone surrogate (RFC 8785 refuses it). */
  | "CANONICAL_STRING"
  /** A value JSON has no form for: undefined at top level, a function, a symbol, a bigint. */
  | "CANONICAL_TYPE"
  /** More values than the size limit allows. */
  | "CANONICAL_SIZE";

/**
 * A value could not be turned into canonical JSON. Thrown by `canonicalJson`,
 * `jcsCanonicalize`, `canonicalDigest` and `definitionSha256`; a pin guard treats a tool
 * that raises it as unreadable and refuses it.
 *
 * @example
 * ```ts
 * import { CanonicalizationError, definitionSha256 } from "agent-airlock";
 * try {
 *   definitionSha256({ name: "t", inputSchema: { maximum: Number.NaN } });
 * } catch (err) {
 *   if (err instanceof CanonicalizationError) console.log(err.code); // "CANONICAL_NUMBER"
 * }
 * ```
 */
export class CanonicalizationError extends AirlockError {
  declare readonly code: CanonicalizationErrorCode;
  /** JSON-pointer-like path of the offending value, e.g. `/inputSchema/properties/x`. */
  readonly path: string;

  constructor(code: CanonicalizationErrorCode, message: string, path: string) {
    super(code, `${message} (at ${path === "" ? "the top level" : path})`);
    this.path = path;
  }
}

/**
 * A tool definition cannot be judged: not an object, no `name`, or a name that is not a
 * non-empty string. Code `INVALID_TOOL_DEFINITION`.
 *
 * @example
 * ```ts
 * import { InvalidToolDefinitionError, canonicalDigest } from "agent-airlock";
 * try { canonicalDigest({ description: "no name" }); }
 * catch (err) { if (err instanceof InvalidToolDefinitionError) console.log(err.code); }
 * ```
 */
export class InvalidToolDefinitionError extends AirlockError {
  declare readonly code: "INVALID_TOOL_DEFINITION";
  constructor(message: string) {
    super("INVALID_TOOL_DEFINITION", message);
  }
}

/**
 * A tool definition was refused by the pins (unpinned or drifted) while `enforce` is on.
 * Thrown by `ToolDefinitionPinGuard.validate`. Code `TOOL_DEFINITION_DRIFT`.
 *
 * @example
 * ```ts
 * import { ToolDefinitionDriftError, ToolDefinitionPinGuard } from "agent-airlock";
 * const guard = new ToolDefinitionPinGuard();
 * try { guard.validate({ name: "unknown_tool" }); }
 * catch (err) { if (err instanceof ToolDefinitionDriftError) console.log(err.decision.verdict); }
 * ```
 */
export class ToolDefinitionDriftError extends AirlockError {
  declare readonly code: "TOOL_DEFINITION_DRIFT";
  /** The decision that refused the tool. */
  readonly decision: import("./pins/types.js").PinDecision;
  constructor(decision: import("./pins/types.js").PinDecision) {
    super(
      "TOOL_DEFINITION_DRIFT",
      `tool ${JSON.stringify(decision.toolName)} refused (${decision.verdict}): ${decision.detail}`,
    );
    this.decision = decision;
  }
}

/**
 * Why a listing was refused: `refused` (tools not admitted by the pins), `unreadable`
 * (the listing itself is not a listing), or a pagination fault of a full listing.
 */
export type ListingFault =
  | "refused"
  | "unreadable"
  | "cursor_repeated"
  | "cursor_not_string"
  | "page_not_listing"
  | "too_many_pages"
  | "cursor_unsupported";

/**
 * A `tools/list` result was refused. Code `TOOL_LISTING_DRIFT`; `fault` says why, and
 * `check` carries the per-tool judgement when there is one.
 *
 * @example
 * ```ts
 * import { ToolListingDriftError, ToolDefinitionPinGuard } from "agent-airlock";
 * const guard = new ToolDefinitionPinGuard();
 * try { guard.validateListing({ tools: [{ name: "unknown_tool" }] }); }
 * catch (err) { if (err instanceof ToolListingDriftError) console.log(err.fault, err.check?.refused); }
 * ```
 */
export class ToolListingDriftError extends AirlockError {
  declare readonly code: "TOOL_LISTING_DRIFT";
  readonly fault: ListingFault;
  readonly check: import("./pins/types.js").ListingCheck | undefined;
  constructor(
    fault: ListingFault,
    message: string,
    check?: import("./pins/types.js").ListingCheck,
  ) {
    super("TOOL_LISTING_DRIFT", message);
    this.fault = fault;
    this.check = check;
  }
}

/** Codes of {@link PinFileError}. */
export type PinFileErrorCode =
  /** Not UTF-8, not JSON, or JSON that is not a pin file (unknown fields, bad digests...). */
  | "PIN_FILE_INVALID"
  /** A key appears twice in one object (JSON readers would silently keep one copy). */
  | "PIN_FILE_DUPLICATE_KEY"
  /** Another format version. */
  | "PIN_FILE_VERSION"
  /** Missing, not a regular file, over the size limit, or cannot be read or written. */
  | "PIN_FILE_UNREADABLE"
  /** The file has no such server section, or several and none was named. */
  | "PIN_FILE_UNKNOWN_SERVER"
  /** Another writer held the pin file's lock past the timeout; nothing was written. */
  | "PIN_FILE_LOCKED"
  /** The section under review changed on disk since it was read; nothing was written. */
  | "PIN_FILE_CONFLICT"
  /** A bad option (e.g. a lock timeout that is not a positive integer). */
  | "PIN_FILE_MISCONFIGURED";

/**
 * A pin file could not be read, parsed or used. Never yields an empty guard.
 *
 * @example
 * ```ts
 * import { PinFileError, parsePinFile } from "agent-airlock";
 * try { parsePinFile("{}"); }
 * catch (err) { if (err instanceof PinFileError) console.log(err.code); } // "PIN_FILE_INVALID"
 * ```
 */
export class PinFileError extends AirlockError {
  declare readonly code: PinFileErrorCode;
  constructor(code: PinFileErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/**
 * A stored pin cannot be loaded: an empty tool name, a digest that is not 64 lowercase
 * hex characters, an unknown pin version, or a stored definition whose digest is not the
 * pin's. Code `INVALID_PIN`.
 *
 * @example
 * ```ts
 * import { InvalidPinError, ToolDefinitionPinGuard } from "agent-airlock";
 * try { new ToolDefinitionPinGuard().pin("t", "not-a-digest"); }
 * catch (err) { if (err instanceof InvalidPinError) console.log(err.code); } // "INVALID_PIN"
 * ```
 */
export class InvalidPinError extends AirlockError {
  declare readonly code: "INVALID_PIN";
  constructor(message: string) {
    super("INVALID_PIN", message);
  }
}

/** Codes of {@link PeerDependencyError}. */
export type PeerDependencyErrorCode =
  /** The optional peer a subpath is built on is not installed. */
  | "PEER_DEPENDENCY_MISSING"
  /** The peer is installed but does not have what the subpath imports (a version out of range). */
  | "PEER_DEPENDENCY_INCOMPATIBLE";

/**
 * A subpath built on an optional peer dependency (`agent-airlock/langchain` on
 * `@langchain/core`, `agent-airlock/ai-sdk` on `ai`) was imported without it. Thrown when
 * the subpath is imported, instead of Node's raw `ERR_MODULE_NOT_FOUND`; `peer` names the
 * package to install and `subpath` the import that needs it.
 *
 * @example
 * ```ts
 * import { PeerDependencyError } from "agent-airlock";
 * try { await import("agent-airlock/langchain"); }
 * catch (err) { if (err instanceof PeerDependencyError) console.log(err.code, err.peer); } // "PEER_DEPENDENCY_MISSING" "@langchain/core"
 * ```
 */
export class PeerDependencyError extends AirlockError {
  declare readonly code: PeerDependencyErrorCode;
  /** The npm package to install (`@langchain/core`, `ai`). */
  readonly peer: string;
  /** The agent-airlock subpath that needs it (`agent-airlock/langchain`). */
  readonly subpath: string;
  constructor(
    code: PeerDependencyErrorCode,
    peer: string,
    subpath: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.peer = peer;
    this.subpath = subpath;
  }
}
